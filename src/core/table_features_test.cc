#include "deltacommit/table_features.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "deltacommit/testing/golden_dir.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace deltacommit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Features = std::vector<std::string>;

constexpr const char* kPlainSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})";

Protocol Legacy(int32_t reader, int32_t writer) {
  return Protocol{reader, writer, std::nullopt, std::nullopt, {}};
}

Protocol WithFeatures(std::optional<Features> reader, Features writer) {
  return Protocol{
      reader.has_value() ? 3 : 1, 7, std::move(reader), std::move(writer), {}};
}

Metadata Meta(StringMap configuration = {}, std::string schema = kPlainSchema) {
  Metadata m;
  m.id = "test";
  m.schema_string = std::move(schema);
  m.configuration = std::move(configuration);
  return m;
}

// A schema whose column `name` carries metadata {key: value}.
std::string SchemaWithColumnMetadata(const std::string& key,
                                     const nlohmann::json& value) {
  nlohmann::json schema = nlohmann::json::parse(kPlainSchema);
  schema["fields"].push_back({{"name", "x"},
                              {"type", "long"},
                              {"nullable", true},
                              {"metadata", {{key, value}}}});
  return schema.dump();
}

// ---- CheckReadSupported ----

TEST(CheckReadSupportedTest, LegacyReaderVersionsAreReadable) {
  for (int32_t reader : {1, 2}) {
    for (int32_t writer : {1, 2, 3, 4, 5, 6}) {
      EXPECT_TRUE(CheckReadSupported(Legacy(reader, writer)).ok())
          << reader << "," << writer;
    }
  }
}

TEST(CheckReadSupportedTest, EverySupportedReaderFeatureIsReadable) {
  const Features readable = {"columnMapping",
                             "deletionVectors",
                             "timestampNtz",
                             "v2Checkpoint",
                             "vacuumProtocolCheck",
                             "typeWidening",
                             "typeWidening-preview",
                             "variantType",
                             "variantType-preview",
                             "variantShredding",
                             "variantShredding-preview"};
  EXPECT_TRUE(CheckReadSupported(WithFeatures(readable, readable)).ok());
  EXPECT_TRUE(CheckReadSupported(WithFeatures(Features{}, Features{})).ok());
}

TEST(CheckReadSupportedTest, UnknownReaderFeatureIsNamedWithVersion) {
  Status s = CheckReadSupported(
      WithFeatures(Features{"futureFeature", "deletionVectors"},
                   Features{"futureFeature", "deletionVectors"}));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(),
            "table requires reader features [futureFeature] that deltacommit "
            "does not "
            "support (minReaderVersion=3)");
}

TEST(CheckReadSupportedTest, EveryUnsupportedReaderFeatureIsNamedSorted) {
  Status s = CheckReadSupported(
      WithFeatures(Features{"zeta", "futureReader", "appendOnly"},
                   Features{"zeta", "futureReader", "appendOnly"}));
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  // appendOnly is a writer feature: listing it for readers is not something we
  // understand.
  EXPECT_THAT(s.message(), HasSubstr("[appendOnly, futureReader, zeta]"));
}

// Who may commit to them is CheckManagingCatalog's question
// (commit_coordinator_test.cc); the features themselves are read and written.
TEST(CheckReadSupportedTest, CatalogManagedTablesAreReadAndWritten) {
  for (const char* f : {"catalogManaged", "catalogOwned-preview"}) {
    const Protocol p = WithFeatures(Features{f}, Features{f, "inCommitTimestamp"});
    EXPECT_TRUE(CheckReadSupported(p).ok()) << f;
    EXPECT_TRUE(CheckWriteSupported(p, Metadata{}).ok()) << f;
  }
}

TEST(ProtocolForNewTableTest, CatalogManagedBringsInCommitTimestamps) {
  Metadata m;
  m.schema_string = R"({"type":"struct","fields":[]})";
  m.configuration = {{"delta.feature.catalogManaged", "supported"}};
  StatusOr<Protocol> p = ProtocolForNewTable(m);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->reader_features, Features{"catalogManaged"});
  EXPECT_EQ(p->writer_features, (Features{"catalogManaged", "inCommitTimestamp"}));
}

TEST(CheckReadSupportedTest, WriterOnlyFeaturesDoNotBlockReads) {
  Protocol p =
      WithFeatures(std::nullopt, Features{"rowTracking", "futureWriterThing"});
  EXPECT_TRUE(CheckReadSupported(p).ok());
}

TEST(CheckReadSupportedTest, ReaderVersionAboveThreeIsRefusedNamingIt) {
  Status s = CheckReadSupported(Protocol{4, 7, Features{}, Features{}, {}});
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("minReaderVersion=4"));
}

TEST(CheckReadSupportedTest, MalformedProtocolsAreInvalid) {
  EXPECT_EQ(CheckReadSupported(Legacy(0, 2)).code(),
            StatusCode::kInvalidArgument);
  Status s = CheckReadSupported(Protocol{3, 7, std::nullopt, Features{}, {}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("without readerFeatures"));
}

// ---- CheckWriteSupported ----

TEST(CheckWriteSupportedTest, EverySupportedWriterFeatureIsWritable) {
  const Features reader = {
      "columnMapping",       "deletionVectors",      "timestampNtz",
      "typeWidening",        "typeWidening-preview", "v2Checkpoint",
      "vacuumProtocolCheck", "variantShredding",     "variantShredding-preview",
      "variantType",         "variantType-preview"};
  Features writer = reader;
  for (const char* f :
       {"appendOnly", "changeDataFeed", "domainMetadata", "inCommitTimestamp",
        "invariants", "checkConstraints", "generatedColumns", "identityColumns",
        "allowColumnDefaults"}) {
    writer.emplace_back(f);
  }
  Status s = CheckWriteSupported(WithFeatures(reader, writer), Meta());
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(CheckWriteSupportedTest,
     LegacyVersionsWithUnusedRowValueFeaturesAreWritable) {
  for (auto [r, w] : std::vector<std::pair<int32_t, int32_t>>{
           {1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {2, 5}, {2, 6}}) {
    Status s = CheckWriteSupported(Legacy(r, w), Meta());
    EXPECT_TRUE(s.ok()) << r << "," << w << ": " << s.ToString();
  }
}

struct ActiveCase {
  Protocol protocol;
  Metadata metadata;
  std::string feature;
};

TEST(CheckWriteSupportedTest, ActiveRowValueFeaturesAreRefused) {
  const std::vector<ActiveCase> cases = {
      {Legacy(1, 2),
       Meta({}, SchemaWithColumnMetadata("delta.invariants", "{}")),
       R"(invariants (used by column "x" has delta.invariants))"},
      {Legacy(1, 3), Meta({{"delta.constraints.positive", "id > 0"}}),
       "checkConstraints (used by delta.constraints.positive)"},
      {Legacy(1, 4),
       Meta({},
            SchemaWithColumnMetadata("delta.generationExpression", "id + 1")),
       R"(generatedColumns (used by column "x" has delta.generationExpression))"},
      {Legacy(2, 6),
       Meta({}, SchemaWithColumnMetadata("delta.identity.start", 1)),
       R"(identityColumns (used by column "x" has delta.identity.))"},
      {WithFeatures(std::nullopt, {"allowColumnDefaults"}),
       Meta({}, SchemaWithColumnMetadata("CURRENT_DEFAULT", "42")),
       R"(allowColumnDefaults (used by column "x" has CURRENT_DEFAULT))"},
      {WithFeatures(std::nullopt, {"invariants"}),
       Meta({}, SchemaWithColumnMetadata("delta.invariants", "{}")),
       "invariants"},
  };
  for (const ActiveCase& c : cases) {
    Status s = CheckWriteSupported(c.protocol, c.metadata);
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << c.feature;
    EXPECT_THAT(s.message(), HasSubstr(c.feature));
    EXPECT_THAT(s.message(),
                HasSubstr("minWriterVersion=" +
                          std::to_string(c.protocol.min_writer_version)));
  }
}

TEST(CheckWriteSupportedTest, RowValueMetadataWithoutTheFeatureIsIgnored) {
  // Writer 1 does not support invariants, so the key means nothing to writers.
  Metadata m = Meta({{"delta.constraints.c", "id > 0"}},
                    SchemaWithColumnMetadata("delta.invariants", "{}"));
  EXPECT_TRUE(CheckWriteSupported(Legacy(1, 1), m).ok());
  // checkConstraints starts at writer 3.
  EXPECT_TRUE(CheckWriteSupported(Legacy(1, 2),
                                  Meta({{"delta.constraints.c", "id > 0"}}))
                  .ok());
  // Table features without the feature listed.
  EXPECT_TRUE(
      CheckWriteSupported(WithFeatures(std::nullopt, {"appendOnly"}), m).ok());
}

TEST(CheckWriteSupportedTest, UnsupportedWriterFeaturesAreAllNamed) {
  Protocol p = WithFeatures(
      std::nullopt,
      {"appendOnly", "clustering", "domainMetadata", "futureThing", "icebergCompatV1", "icebergCompatV2",
       "inCommitTimestamp-preview", "rowTracking", "columnMapping"});
  p.min_reader_version = 2;
  Status s = CheckWriteSupported(p, Meta());
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(
      s.message(),
      "table requires writer features [clustering, "
      "futureThing, icebergCompatV1, icebergCompatV2, "
      "inCommitTimestamp-preview, "
      "rowTracking] that deltacommit does not support for writing "
      "(minWriterVersion=7)");
}

TEST(CheckWriteSupportedTest, ActiveAndUnsupportedAreReportedTogether) {
  Protocol p = WithFeatures(
      std::nullopt, {"checkConstraints", "rowTracking", "domainMetadata"});
  Status s = CheckWriteSupported(p, Meta({{"delta.constraints.a", "id > 0"}}));
  EXPECT_THAT(
      s.message(),
      HasSubstr(
          "[checkConstraints (used by delta.constraints.a), rowTracking]"));
}

TEST(CheckWriteSupportedTest, UnreadableTablesAreNotWritable) {
  Protocol p =
      WithFeatures(Features{"futureFeature"}, Features{"futureFeature"});
  EXPECT_THAT(CheckWriteSupported(p, Meta()).message(),
              HasSubstr("reader features"));
}

TEST(CheckWriteSupportedTest, WriterVersionAboveSevenIsRefused) {
  Status s = CheckWriteSupported(Protocol{1, 8, std::nullopt, std::nullopt, {}},
                                 Meta());
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("minWriterVersion=8"));
}

TEST(CheckWriteSupportedTest, MalformedProtocolsAreInvalid) {
  const std::vector<std::pair<Protocol, std::string>> cases = {
      {Protocol{3, 6, Features{}, std::nullopt, {}},
       "reader version 3 needs writer version 7"},
      {Protocol{1, 7, std::nullopt, std::nullopt, {}},
       "writerFeatures must be listed"},
      {Protocol{1, 5, std::nullopt, Features{"appendOnly"}, {}},
       "writerFeatures must be listed"},
      {Protocol{2, 5, Features{"columnMapping"}, std::nullopt, {}},
       "readerFeatures must be"},
      {Protocol{3, 7, Features{"deletionVectors"}, Features{}, {}},
       "reader feature deletionVectors is not also in writerFeatures"},
      {Protocol{1, 0, std::nullopt, std::nullopt, {}}, "versions start at 1"},
  };
  for (const auto& [p, want] : cases) {
    Status s = CheckWriteSupported(p, Meta());
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << want;
    EXPECT_THAT(s.message(), HasSubstr(want));
  }
  // Empty lists where the version has none say nothing and are tolerated.
  EXPECT_TRUE(
      CheckWriteSupported(Protocol{1, 2, Features{}, Features{}, {}}, Meta())
          .ok());
}

TEST(CheckWriteSupportedTest, UnparsableSchemaIsInvalidWhenItMatters) {
  Status s = CheckWriteSupported(Legacy(1, 2), Meta({}, "not json"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("schema"));
}

// ---- IsFeatureEnabled / EnabledFeatures ----

TEST(EnabledFeaturesTest, LegacyVersionsImplyTheirFeatures) {
  const std::vector<std::pair<Protocol, Features>> cases = {
      {Legacy(1, 1), {}},
      {Legacy(1, 2), {"appendOnly", "invariants"}},
      {Legacy(1, 3), {"appendOnly", "checkConstraints", "invariants"}},
      {Legacy(1, 4),
       {"appendOnly", "changeDataFeed", "checkConstraints", "generatedColumns",
        "invariants"}},
      // columnMapping also needs reader version 2.
      {Legacy(1, 5),
       {"appendOnly", "changeDataFeed", "checkConstraints", "generatedColumns",
        "invariants"}},
      {Legacy(2, 5),
       {"appendOnly", "changeDataFeed", "checkConstraints", "columnMapping",
        "generatedColumns", "invariants"}},
      {Legacy(2, 6),
       {"appendOnly", "changeDataFeed", "checkConstraints", "columnMapping",
        "generatedColumns", "identityColumns", "invariants"}},
      {Legacy(2, 2), {"appendOnly", "invariants"}},
  };
  for (const auto& [p, want] : cases) {
    EXPECT_EQ(EnabledFeatures(p), want)
        << p.min_reader_version << "," << p.min_writer_version;
  }
}

TEST(EnabledFeaturesTest, FeatureListsReplaceLegacyImplication) {
  // Reader 2 + writer 7: nothing implied, columnMapping only if listed.
  EXPECT_THAT(EnabledFeatures(Protocol{
                  2, 7, std::nullopt, Features{"inCommitTimestamp"}, {}}),
              ElementsAre("inCommitTimestamp"));
  EXPECT_FALSE(IsFeatureEnabled(Protocol{2, 7, std::nullopt, Features{}, {}},
                                "columnMapping"));
  EXPECT_TRUE(IsFeatureEnabled(
      Protocol{2, 7, std::nullopt, Features{"columnMapping"}, {}},
      "columnMapping"));
  Protocol p = WithFeatures(Features{"deletionVectors"},
                            Features{"deletionVectors", "appendOnly"});
  EXPECT_THAT(EnabledFeatures(p), ElementsAre("appendOnly", "deletionVectors"));
  EXPECT_TRUE(IsFeatureEnabled(p, "deletionVectors"));
  EXPECT_FALSE(IsFeatureEnabled(p, "invariants"));
  EXPECT_FALSE(
      IsFeatureEnabled(p, "DeletionVectors"));  // names are case-sensitive
}

TEST(IsFeatureEnabledTest, LegacyWriterVersionBoundaries) {
  EXPECT_FALSE(IsFeatureEnabled(Legacy(1, 1), "appendOnly"));
  EXPECT_TRUE(IsFeatureEnabled(Legacy(1, 2), "invariants"));
  EXPECT_FALSE(IsFeatureEnabled(Legacy(1, 2), "checkConstraints"));
  EXPECT_TRUE(IsFeatureEnabled(Legacy(1, 3), "checkConstraints"));
  EXPECT_FALSE(IsFeatureEnabled(Legacy(1, 3), "changeDataFeed"));
  EXPECT_TRUE(IsFeatureEnabled(Legacy(1, 4), "generatedColumns"));
  EXPECT_FALSE(IsFeatureEnabled(Legacy(2, 4), "columnMapping"));
  EXPECT_TRUE(IsFeatureEnabled(Legacy(2, 5), "columnMapping"));
  EXPECT_FALSE(IsFeatureEnabled(Legacy(2, 5), "identityColumns"));
  EXPECT_TRUE(IsFeatureEnabled(Legacy(1, 6), "identityColumns"));
  EXPECT_FALSE(IsFeatureEnabled(Legacy(2, 6), "deletionVectors"));
}

// ---- IsAppendOnly / InCommitTimestampsEnabled ----

TEST(IsAppendOnlyTest, NeedsFeatureAndProperty) {
  EXPECT_TRUE(IsAppendOnly(Legacy(1, 2), Meta({{"delta.appendOnly", "true"}})));
  EXPECT_TRUE(IsAppendOnly(Legacy(1, 2), Meta({{"delta.appendOnly", "TRUE"}})));
  EXPECT_FALSE(
      IsAppendOnly(Legacy(1, 2), Meta({{"delta.appendOnly", "false"}})));
  EXPECT_FALSE(IsAppendOnly(Legacy(1, 2), Meta()));
  EXPECT_FALSE(
      IsAppendOnly(Legacy(1, 1), Meta({{"delta.appendOnly", "true"}})));
  EXPECT_FALSE(IsAppendOnly(WithFeatures(std::nullopt, {"inCommitTimestamp"}),
                            Meta({{"delta.appendOnly", "true"}})));
  EXPECT_TRUE(IsAppendOnly(WithFeatures(std::nullopt, {"appendOnly"}),
                           Meta({{"delta.appendOnly", "true"}})));
}

TEST(InCommitTimestampsEnabledTest, NeedsFeatureAndProperty) {
  const Metadata on = Meta({{"delta.enableInCommitTimestamps", "true"}});
  EXPECT_TRUE(InCommitTimestampsEnabled(
      WithFeatures(std::nullopt, {"inCommitTimestamp"}), on));
  EXPECT_FALSE(InCommitTimestampsEnabled(
      WithFeatures(std::nullopt, {"inCommitTimestamp"}), Meta()));
  EXPECT_FALSE(InCommitTimestampsEnabled(Legacy(2, 6), on));
  EXPECT_FALSE(InCommitTimestampsEnabled(
      WithFeatures(std::nullopt, {"inCommitTimestamp"}),
      Meta({{"delta.enableInCommitTimestamps", "false"}})));
}

TEST(DeletionVectorsWritableTest, NeedsFeatureAndProperty) {
  const Metadata on = Meta({{"delta.enableDeletionVectors", "true"}});
  const Protocol dv = WithFeatures(std::vector<std::string>{"deletionVectors"},
                                   {"deletionVectors"});
  EXPECT_TRUE(DeletionVectorsWritable(dv, on));
  EXPECT_TRUE(DeletionVectorsWritable(dv, Meta({{"delta.enableDeletionVectors", "True"}})));
  // Supported but not enabled: DVs are read, deletes rewrite files.
  EXPECT_FALSE(DeletionVectorsWritable(dv, Meta()));
  EXPECT_FALSE(DeletionVectorsWritable(Legacy(2, 6), on));
}

TEST(ChangeDataFeedEnabledTest, ThePropertySaysSo) {
  EXPECT_TRUE(ChangeDataFeedEnabled(Meta({{"delta.enableChangeDataFeed", "true"}})));
  EXPECT_FALSE(ChangeDataFeedEnabled(Meta({{"delta.enableChangeDataFeed", "false"}})));
  EXPECT_FALSE(ChangeDataFeedEnabled(Meta()));
}

// ---- ProtocolForNewTable ----

struct NewTableCase {
  StringMap configuration;
  std::string schema;
  Protocol want;
};

TEST(ProtocolForNewTableTest, PicksTheSmallestProtocolForWhatIsAsked) {
  const std::string ntz_schema =
      R"({"type":"struct","fields":[{"name":"m","type":{"type":"map","keyType":"string",)"
      R"("valueType":"timestamp_ntz"},"nullable":true,"metadata":{}}]})";
  const std::string variant_schema =
      R"({"type":"struct","fields":[{"name":"v","type":"variant","nullable":true,"metadata":{}}]})";
  const std::vector<NewTableCase> cases = {
      {{}, kPlainSchema, Legacy(1, 2)},
      {{{"delta.appendOnly", "true"}}, kPlainSchema, Legacy(1, 2)},
      {{{"delta.appendOnly", "false"}}, kPlainSchema, Legacy(1, 2)},
      {{{"delta.enableChangeDataFeed", "true"}}, kPlainSchema, Legacy(1, 4)},
      {{{"delta.columnMapping.mode", "name"}}, kPlainSchema, Legacy(2, 5)},
      {{{"delta.columnMapping.mode", "none"}}, kPlainSchema, Legacy(1, 2)},
      {{{"delta.columnMapping.mode", "ID"},
        {"delta.enableChangeDataFeed", "true"}},
       kPlainSchema,
       Legacy(2, 5)},
      {{{"delta.enableDeletionVectors", "true"}},
       kPlainSchema,
       WithFeatures(Features{"deletionVectors"}, {"deletionVectors"})},
      {{{"delta.enableInCommitTimestamps", "true"}},
       kPlainSchema,
       WithFeatures(std::nullopt, {"inCommitTimestamp"})},
      {{{"delta.enableInCommitTimestamps", "true"},
        {"delta.appendOnly", "true"},
        {"delta.enableDeletionVectors", "true"},
        {"delta.columnMapping.mode", "id"}},
       kPlainSchema,
       WithFeatures(Features{"columnMapping", "deletionVectors"},
                    {"appendOnly", "columnMapping", "deletionVectors",
                     "inCommitTimestamp"})},
      {{{"delta.enableChangeDataFeed", "true"},
        {"delta.enableInCommitTimestamps", "true"}},
       kPlainSchema,
       WithFeatures(std::nullopt, {"changeDataFeed", "inCommitTimestamp"})},
      {{{"delta.feature.domainMetadata", "supported"}},
       kPlainSchema,
       WithFeatures(std::nullopt, {"domainMetadata"})},
      // Any coordinator name; Delta's required features come with it.
      {{{"delta.coordinatedCommits.commitCoordinator-preview", "deltacommit"}},
       kPlainSchema,
       WithFeatures(Features{"vacuumProtocolCheck"},
                    {"coordinatedCommits-preview", "inCommitTimestamp",
                     "vacuumProtocolCheck"})},
      // delta.feature.* always asks for the table-features form.
      {{{"delta.feature.appendOnly", "supported"}},
       kPlainSchema,
       WithFeatures(std::nullopt, {"appendOnly"})},
      {{{"delta.feature.DeletionVectors", "Supported"}},
       kPlainSchema,
       WithFeatures(Features{"deletionVectors"}, {"deletionVectors"})},
      {{{"delta.feature.invariants", "supported"}},
       kPlainSchema,
       WithFeatures(std::nullopt, {"invariants"})},
      {{{"delta.feature.vacuumProtocolCheck", "supported"},
        {"delta.checkpointPolicy", "v2"}},
       kPlainSchema,
       WithFeatures(Features{"v2Checkpoint", "vacuumProtocolCheck"},
                    {"v2Checkpoint", "vacuumProtocolCheck"})},
      {{{"delta.enableTypeWidening", "true"}},
       kPlainSchema,
       WithFeatures(Features{"typeWidening"}, {"typeWidening"})},
      {{},
       ntz_schema,
       WithFeatures(Features{"timestampNtz"}, {"timestampNtz"})},
      {{},
       variant_schema,
       WithFeatures(Features{"variantType"}, {"variantType"})},
      {{{"delta.enableVariantShredding", "true"}},
       variant_schema,
       WithFeatures(Features{"variantShredding", "variantType"},
                    {"variantShredding", "variantType"})},
      {{{"delta.feature.variantShredding-preview", "supported"}},
       kPlainSchema,
       WithFeatures(Features{"variantShredding-preview", "variantType"},
                    {"variantShredding-preview", "variantType"})},
  };
  for (const NewTableCase& c : cases) {
    const Metadata m = Meta(c.configuration, c.schema);
    StatusOr<Protocol> p = ProtocolForNewTable(m);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(*p, c.want) << nlohmann::json(c.configuration).dump();
    // What we create we can write, and it is well formed.
    EXPECT_TRUE(CheckWriteSupported(*p, m).ok())
        << CheckWriteSupported(*p, m).ToString();
    EXPECT_TRUE(CheckProtocolTransition(*p, *p).ok());
  }
}

TEST(ProtocolForNewTableTest, FeaturesWeCannotWriteAreRefusedNamingThem) {
  const std::vector<std::pair<NewTableCase, std::string>> cases = {
      {{{{"delta.feature.futureThing", "supported"}}, kPlainSchema, {}},
       "futureThing (delta.feature.futureThing=supported: unknown feature)"},
      {{{{"delta.feature.rowTracking", "supported"}}, kPlainSchema, {}},
       "rowTracking (delta.feature.rowTracking=supported)"},
      {{{{"delta.enableRowTracking", "true"}}, kPlainSchema, {}},
       "rowTracking (delta.enableRowTracking=true)"},
      {{{{"delta.enableIcebergCompatV2", "true"},
         {"delta.columnMapping.mode", "name"}},
        kPlainSchema,
        {}},
       "icebergCompatV2 (delta.enableIcebergCompatV2=true)"},
      {{{{"delta.constraints.positive", "id > 0"}}, kPlainSchema, {}},
       "checkConstraints (used by delta.constraints.positive)"},
      {{{}, SchemaWithColumnMetadata("delta.invariants", "{}"), {}},
       "invariants (used by"},
      {{{}, SchemaWithColumnMetadata("delta.generationExpression", "id"), {}},
       "generatedColumns (used by"},
      {{{}, SchemaWithColumnMetadata("delta.identity.start", 1), {}},
       "identityColumns (used by"},
      {{{}, SchemaWithColumnMetadata("CURRENT_DEFAULT", "1"), {}},
       "allowColumnDefaults (used by"},
  };
  for (const auto& [c, want] : cases) {
    StatusOr<Protocol> p = ProtocolForNewTable(Meta(c.configuration, c.schema));
    ASSERT_FALSE(p.ok()) << want;
    EXPECT_EQ(p.status().code(), StatusCode::kUnimplemented) << want;
    EXPECT_THAT(p.status().message(), HasSubstr(want));
  }
}

TEST(ProtocolForNewTableTest, EveryRefusalIsListedInOneError) {
  StatusOr<Protocol> p =
      ProtocolForNewTable(Meta({{"delta.enableRowTracking", "true"},
                                {"delta.feature.zzz", "supported"}}));
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("rowTracking"));
  EXPECT_THAT(p.status().message(), HasSubstr("zzz"));
}

TEST(ProtocolForNewTableTest, BadPropertiesAndSchemasAreInvalid) {
  const std::vector<std::pair<Metadata, std::string>> cases = {
      {Meta({{"delta.feature.appendOnly", "enabled"}}),
       "must be \"supported\""},
      {Meta({{"delta.columnMapping.mode", "physical"}}),
       "must be none, name or id"},
      {Meta({{"delta.minWriterVersion", "7"}}),
       "delta.minWriterVersion is not supported"},
      {Meta({}, "{}"), "schema"},
  };
  for (const auto& [m, want] : cases) {
    StatusOr<Protocol> p = ProtocolForNewTable(m);
    ASSERT_FALSE(p.ok()) << want;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(p.status().message(), HasSubstr(want));
  }
}

// ---- CheckProtocolTransition ----

TEST(CheckProtocolTransitionTest, UpgradesThatKeepEveryFeatureAreAllowed) {
  EXPECT_TRUE(CheckProtocolTransition(Legacy(1, 2), Legacy(1, 2)).ok());
  EXPECT_TRUE(CheckProtocolTransition(Legacy(1, 2), Legacy(2, 5)).ok());
  EXPECT_TRUE(CheckProtocolTransition(
                  Legacy(1, 2),
                  WithFeatures(std::nullopt, {"appendOnly", "inCommitTimestamp",
                                              "invariants"}))
                  .ok());
  EXPECT_TRUE(
      CheckProtocolTransition(
          Legacy(2, 5),
          WithFeatures(Features{"columnMapping", "deletionVectors"},
                       {"appendOnly", "changeDataFeed", "checkConstraints",
                        "columnMapping", "deletionVectors", "generatedColumns",
                        "invariants"}))
          .ok());
  EXPECT_TRUE(
      CheckProtocolTransition(WithFeatures(std::nullopt, {"appendOnly"}),
                              WithFeatures(Features{"deletionVectors"},
                                           {"appendOnly", "deletionVectors"}))
          .ok());
}

TEST(CheckProtocolTransitionTest, VersionDowngradeIsRefusedNamingIt) {
  Status s = CheckProtocolTransition(Legacy(1, 4), Legacy(1, 2));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("downgrade"));
  EXPECT_THAT(s.message(), HasSubstr("minWriterVersion=4"));
  s = CheckProtocolTransition(WithFeatures(Features{}, {}),
                              WithFeatures(std::nullopt, {}));
  EXPECT_THAT(s.message(), HasSubstr("minReaderVersion=3"));
}

TEST(CheckProtocolTransitionTest, DroppingFeaturesIsRefusedNamingThem) {
  Status s =
      CheckProtocolTransition(WithFeatures(Features{"deletionVectors"},
                                           {"appendOnly", "deletionVectors"}),
                              WithFeatures(Features{}, {"appendOnly"}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("drops features [deletionVectors]"));
  // Moving to table features must list what the legacy versions implied.
  s = CheckProtocolTransition(
      Legacy(1, 2), WithFeatures(std::nullopt, {"inCommitTimestamp"}));
  EXPECT_THAT(s.message(),
              HasSubstr("drops features [appendOnly, invariants]"));
}

TEST(CheckProtocolTransitionTest, MalformedNewProtocolIsRefused) {
  Status s = CheckProtocolTransition(
      Legacy(1, 2), Protocol{3, 6, Features{}, std::nullopt, {}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("malformed"));
}

// ---- Golden tables ----

const std::filesystem::path kGoldenRoot = GoldenTablesDir().value_or("/nonexistent-golden-tables");

std::optional<Features> FeatureList(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<Features>();
}

Protocol ProtocolFromJson(const nlohmann::json& j) {
  return Protocol{j.at("minReaderVersion").get<int32_t>(),
                  j.at("minWriterVersion").get<int32_t>(),
                  FeatureList(j, "readerFeatures"),
                  FeatureList(j, "writerFeatures"),
                  {}};
}

Metadata MetadataFromJson(const nlohmann::json& j) {
  Metadata m;
  m.schema_string = j.value("schemaString", "");
  if (j.contains("configuration"))
    m.configuration = j["configuration"].get<StringMap>();
  return m;
}

// The last protocol and metaData of one _delta_log, replaying its JSON files
// (commits and JSON checkpoints) in name order.
struct LogState {
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
};

LogState ReplayJsonFiles(const std::filesystem::path& log_dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(log_dir)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  LogState state;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find("\"protocol\"") == std::string::npos &&
          line.find("\"metaData\"") == std::string::npos) {
        continue;
      }
      nlohmann::json a =
          nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!a.is_object()) continue;
      if (a.contains("protocol"))
        state.protocol = ProtocolFromJson(a["protocol"]);
      if (a.contains("metaData"))
        state.metadata = MetadataFromJson(a["metaData"]);
    }
  }
  return state;
}

// Table (path under tables/) -> why we refuse to write it.
const std::map<std::string, std::string>& GoldenWriteRefusals() {
  static const auto* refusals = new std::map<std::string, std::string>{
      {"collations-table",
       "collations: a writer feature this build does not know"},
      {"collations-preview-table",
       "collations-preview: a writer feature this build does not know"},
      {"table-with-icebegCompatV2Enabled",
       "icebergCompatV2: data-file rules we do not check"},
  };
  return *refusals;
}

TEST(GoldenTablesTest, ProtocolsAreReadableExceptTheInvalidVersion) {
  if (!std::filesystem::exists(kGoldenRoot))
    GTEST_SKIP() << GoldenTablesMissingMessage();
  int tables_with_protocol = 0;
  std::vector<std::string> refused_seen;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(kGoldenRoot)) {
    if (!e.is_directory() || e.path().filename() != "_delta_log") continue;
    const std::string table =
        std::filesystem::relative(e.path().parent_path(), kGoldenRoot).string();
    LogState state = ReplayJsonFiles(e.path());
    if (!state.protocol.has_value())
      continue;  // checkpoint-only or deliberately missing
    ++tables_with_protocol;
    Status read = CheckReadSupported(*state.protocol);
    if (table == "deltalog-invalid-protocol-version") {
      EXPECT_EQ(read.code(), StatusCode::kUnimplemented) << table;
      EXPECT_THAT(read.message(), HasSubstr("minReaderVersion=99")) << table;
      continue;
    }
    EXPECT_TRUE(read.ok()) << table << ": " << read.ToString();
    // Some fixtures carry a metaData without schemaString; no one can write
    // those.
    if (!state.metadata.has_value() || state.metadata->schema_string.empty())
      continue;
    Status write = CheckWriteSupported(*state.protocol, *state.metadata);
    auto refusal = GoldenWriteRefusals().find(table);
    if (refusal == GoldenWriteRefusals().end()) {
      EXPECT_TRUE(write.ok()) << table << ": " << write.ToString();
    } else {
      EXPECT_EQ(write.code(), StatusCode::kUnimplemented)
          << table << ": " << refusal->second;
      refused_seen.push_back(table);
    }
  }
  EXPECT_GT(tables_with_protocol, 80);
  EXPECT_EQ(refused_seen.size(), GoldenWriteRefusals().size())
      << "a listed table is missing";
}

}  // namespace
}  // namespace deltacommit
