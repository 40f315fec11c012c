// The `service` and `coordinated` log stores of an s3:// table: the commit
// service client (--service-url, --service-token, --service-endpoint, or
// DELTACOMMIT_SERVICE_URL / DELTACOMMIT_SERVICE_TOKEN) over the table's HTTP
// client. It sends temporary credentials only: the table's chain's when they
// are temporary, else a session from STS GetSessionToken for its long-term
// keys (storage options deltacommit.sts.endpointUrl, else
// AWS_ENDPOINT_URL_STS, ..., else the table's S3-compatible endpoint, else
// AWS's; deltacommit.sts.durationSeconds, 900-129600, default 3600). The
// table's own S3 calls keep using the chain.
#pragma once

#include "deltacommit/aws/aws_config.h"
#include "deltacommit/aws/http.h"
#include "deltacommit/status.h"
#include "deltacommit/table/table_adapters.h"

namespace deltacommit {

// The writer's temporary credentials from `chain`: its own when they are
// temporary, else a session from STS GetSessionToken for its long-term keys
// (STS as the header above says; sets open.sts). REQUIRES: open.http is
// set; `chain` outlives the result. Nothing is sent here.
StatusOr<std::unique_ptr<aws::CredentialsProvider>> WriterSession(
    const TableOptions& options, const std::map<std::string, std::string>& storage,
    const aws::AwsServiceConfig& s3, aws::CredentialsProvider& chain, TableAdapters& open);

// Sets open.sts, open.service_credentials, open.service and open.log for
// open.mode (kService or kCoordinated); `s3` is the table's S3 config.
// REQUIRES: open.http, open.credentials, open.store and open.uri are set.
// kInvalidArgument for a missing or malformed URL or token (naming the
// option and the variable), a malformed STS endpoint or session duration.
// Nothing is sent here: STS is asked on the first commit.
// `storage` is TableOptions::storage_options as CheckStorageOptions returns it.
Status AttachCommitService(const TableOptions& options,
                           const std::map<std::string, std::string>& storage,
                           const aws::AwsServiceConfig& s3, TableAdapters& open);

// The same for a local table (open.mode kService or kCoordinated): the
// service writes it as its own user (under one of its [local] roots), so no
// credentials are fetched or sent and there is no S3 endpoint to name.
// Sets open.http, open.credentials (empty, never asked), open.service and
// open.log. REQUIRES: open.store and open.uri (the absolute path) are set.
Status AttachLocalCommitService(const TableOptions& options, const aws::HttpOptions& http,
                                TableAdapters& open);

// kInvalidArgument when --service-url, --service-token or --service-endpoint
// is given for a mode that does not use the commit service.
Status CheckNoServiceOptions(const TableOptions& options, const std::string& mode);

}  // namespace deltacommit
