// The table the service asks its state store about to see that the store
// answers: at start (service/process) and on each GET /readyz.
#pragma once

namespace deltacommit::service {

// A table URI no client can name (bucket names have no '_').
inline constexpr char kStateProbeTable[] = "s3://deltacommit_state_probe";

}  // namespace deltacommit::service
