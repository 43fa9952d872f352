#include "table/hoodie_table_config.h"

#include <arrow/util/string.h>

#include "common/parse_number.h"
#include "format/table_checksum.h"
#include "lakeshore/table/table_options.h"

namespace lakeshore {
namespace {

bool ParseBool(const std::optional<std::string>& value, bool fallback) {
  if (!value) return fallback;
  if (*value == "true" || *value == "TRUE" || *value == "True") return true;
  if (*value == "false" || *value == "FALSE" || *value == "False") return false;
  return fallback;
}

/// The key generator from hoodie.table.keygenerator.type (versions 8+) or .class (6), else as
/// Hudi infers it from the fields.
KeyGeneratorKind KeyGeneratorOf(const format::JavaProperties& p, size_t key_fields,
                                 size_t partition_fields) {
  std::string name = p.Get("hoodie.table.keygenerator.type").value_or("");
  if (name.empty()) {
    name = p.Get("hoodie.table.keygenerator.class").value_or("");
    const size_t dot = name.rfind('.');
    if (dot != std::string::npos) name = name.substr(dot + 1);
  }
  auto is = [&](std::initializer_list<const char*> names) {
    for (const char* n : names) {
      if (name == n) return true;
    }
    return false;
  };
  if (name.empty()) {
    if (partition_fields == 0) return KeyGeneratorKind::kNonPartitioned;
    return key_fields == 1 && partition_fields == 1 ? KeyGeneratorKind::kSimple
                                                    : KeyGeneratorKind::kComplex;
  }
  if (is({"SIMPLE", "SIMPLE_AVRO", "SimpleKeyGenerator", "SimpleAvroKeyGenerator"})) {
    return KeyGeneratorKind::kSimple;
  }
  if (is({"COMPLEX", "COMPLEX_AVRO", "ComplexKeyGenerator", "ComplexAvroKeyGenerator"})) {
    return KeyGeneratorKind::kComplex;
  }
  if (is({"NON_PARTITION", "NON_PARTITION_AVRO", "NonpartitionedKeyGenerator",
          "NonpartitionedAvroKeyGenerator"})) {
    return KeyGeneratorKind::kNonPartitioned;
  }
  if (is({"TIMESTAMP", "TIMESTAMP_AVRO", "TimestampBasedKeyGenerator",
          "TimestampBasedAvroKeyGenerator"})) {
    return KeyGeneratorKind::kTimestampBased;
  }
  if (is({"CUSTOM", "CUSTOM_AVRO", "CustomKeyGenerator", "CustomAvroKeyGenerator"})) {
    return KeyGeneratorKind::kCustom;
  }
  return KeyGeneratorKind::kOther;
}

/// hoodie.record.merge.mode (versions 8+); for version 6, inferred from the payload class as
/// Hudi's upgrade to version 8 infers it.
RecordMergeMode MergeModeOf(const format::JavaProperties& p, bool has_ordering) {
  const std::string mode = p.Get("hoodie.record.merge.mode").value_or("");
  if (mode == "EVENT_TIME_ORDERING") return RecordMergeMode::kEventTimeOrdering;
  if (mode == "COMMIT_TIME_ORDERING") return RecordMergeMode::kCommitTimeOrdering;
  if (!mode.empty()) return RecordMergeMode::kCustom;
  const std::string payload = p.Get("hoodie.compaction.payload.class").value_or("");
  if (payload.find("OverwriteWithLatestAvroPayload") != std::string::npos) {
    return RecordMergeMode::kCommitTimeOrdering;
  }
  if (payload.empty() || payload.find("DefaultHoodieRecordPayload") != std::string::npos ||
      payload.find("EventTimeAvroPayload") != std::string::npos) {
    return has_ordering ? RecordMergeMode::kEventTimeOrdering
                        : RecordMergeMode::kCommitTimeOrdering;
  }
  return RecordMergeMode::kCustom;
}

Status Corrupt(const std::string& source, const std::string& what) {
  return CorruptMetadata("Hudi table properties " + source + ": " + what);
}

}  // namespace

bool UsesComplexKeyEncoding(size_t key_fields, size_t partition_fields) {
  return key_fields > 1 || partition_fields > 1;
}

format::JavaProperties NewTableProperties(const NewHoodieTable& t) {
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + v[i];
    return out;
  };
  format::JavaProperties p;
  p.Set("hoodie.table.name", t.name);
  p.Set("hoodie.table.type", HoodieTableTypeName(t.table_type));
  p.Set("hoodie.table.version", "9");
  p.Set("hoodie.table.initial.version", "9");
  p.Set("hoodie.timeline.layout.version", "2");
  p.Set("hoodie.timeline.path", "timeline");
  p.Set("hoodie.timeline.history.path", "history");
  p.Set("hoodie.archivelog.folder", "archived");
  p.Set("hoodie.table.format", "native");
  p.Set("hoodie.table.base.file.format", "PARQUET");
  p.Set("hoodie.table.recordkey.fields", join(t.record_key_fields));
  if (!t.partition_fields.empty()) p.Set("hoodie.table.partition.fields", join(t.partition_fields));
  if (!t.ordering_field.empty()) p.Set("hoodie.table.ordering.fields", t.ordering_field);
  // NON_PARTITION encodes several key fields as COMPLEX does (Hudi's NonpartitionedKeyGenerator).
  const char* keygen = t.partition_fields.empty() ? "NON_PARTITION"
                       : UsesComplexKeyEncoding(t.record_key_fields.size(), t.partition_fields.size()) ? "COMPLEX"
                                                                                                      : "SIMPLE";
  p.Set("hoodie.table.keygenerator.type", keygen);
  p.Set("hoodie.datasource.write.hive_style_partitioning", "true");
  // Lakeshore Hive-escapes partition values (a '/' or '=' in a value stays one folder name):
  // Hudi's urlencode setting says exactly that.
  p.Set("hoodie.datasource.write.partitionpath.urlencode", "true");
  p.Set("hoodie.datasource.write.drop.partition.columns", "false");
  p.Set("hoodie.populate.meta.fields", "true");
  p.Set("hoodie.record.merge.mode", t.ordering_field.empty() ? "COMMIT_TIME_ORDERING" : "EVENT_TIME_ORDERING");
  p.Set("hoodie.table.timeline.timezone", "UTC");
  p.Set("hoodie.table.create.schema", t.avro_schema);
  for (const auto& [key, value] : t.extra) p.Set(key, value);
  auto checksum = format::TableChecksum(p);
  if (checksum.ok()) p.Set("hoodie.table.checksum", *checksum);
  return p;
}

const char* HoodieTableTypeName(HoodieTableType type) {
  return type == HoodieTableType::kMergeOnRead ? "MERGE_ON_READ" : "COPY_ON_WRITE";
}

const char* RecordMergeModeName(RecordMergeMode mode) {
  switch (mode) {
    case RecordMergeMode::kEventTimeOrdering: return "EVENT_TIME_ORDERING";
    case RecordMergeMode::kCommitTimeOrdering: return "COMMIT_TIME_ORDERING";
    case RecordMergeMode::kCustom: return "CUSTOM";
  }
  return "CUSTOM";
}

Result<HoodieTableConfig> HoodieTableConfig::Parse(std::string_view text, const std::string& source) {
  HoodieTableConfig c;
  ARROW_ASSIGN_OR_RAISE(c.properties, format::JavaProperties::Parse(text, source));
  const format::JavaProperties& p = c.properties;
  ARROW_RETURN_NOT_OK(format::ValidateTableChecksum(p, source));

  c.name = p.Get("hoodie.table.name").value_or("");
  if (c.name.empty()) return Corrupt(source, "hoodie.table.name is missing");
  c.database = p.Get("hoodie.database.name").value_or("");

  const std::string type = p.Get("hoodie.table.type").value_or("COPY_ON_WRITE");
  if (type == "COPY_ON_WRITE") {
    c.table_type = HoodieTableType::kCopyOnWrite;
  } else if (type == "MERGE_ON_READ") {
    c.table_type = HoodieTableType::kMergeOnRead;
  } else {
    return Corrupt(source, "hoodie.table.type is '" + type + "', not COPY_ON_WRITE or MERGE_ON_READ");
  }

  const std::string version = p.Get("hoodie.table.version").value_or("");
  const std::optional<int32_t> parsed_version = ParseInt32(version);
  if (!parsed_version) return Corrupt(source, "hoodie.table.version '" + version + "' is not a number");
  c.table_version = *parsed_version;
  if (c.table_version != 6 && c.table_version != 8 && c.table_version != 9) {
    return UnsupportedFeature("Hudi table properties " + source + ": table version " + version +
                              " is not supported (this build reads versions 6, 8 and 9)");
  }
  const std::string layout = p.Get("hoodie.timeline.layout.version").value_or(c.table_version >= 8 ? "2" : "1");
  const std::optional<int32_t> parsed_layout = ParseInt32(layout);
  if (!parsed_layout || (*parsed_layout != 1 && *parsed_layout != 2) ||
      (*parsed_layout == 2) != (c.table_version >= 8)) {
    return Corrupt(source, "hoodie.timeline.layout.version '" + layout +
                               "' does not fit table version " + version);
  }
  c.timeline_layout_version = *parsed_layout;
  if (c.timeline_layout_version == 1) {
    c.timeline_folder = HoodiePaths::kMetaFolder;
    c.archive_folder = std::string(HoodiePaths::kMetaFolder) + "/" +
                       p.Get("hoodie.archivelog.folder").value_or("archived");
  } else {
    c.timeline_folder = std::string(HoodiePaths::kMetaFolder) + "/" +
                        p.Get("hoodie.timeline.path").value_or("timeline");
    c.archive_folder = c.timeline_folder + "/" + p.Get("hoodie.timeline.history.path").value_or("history");
  }
  for (const std::string* folder : {&c.timeline_folder, &c.archive_folder}) {
    auto normal = NormalizeRelativePath(*folder);
    if (!normal.ok()) return Corrupt(source, "timeline folder '" + *folder + "' is not a path inside the table");
  }

  const std::string format = p.Get("hoodie.table.base.file.format").value_or("PARQUET");
  if (format != "PARQUET") {
    return UnsupportedFeature("Hudi table properties " + source + ": base file format " + format +
                              " is not supported (PARQUET is)");
  }

  c.record_key_fields = SplitConfigList(p.Get("hoodie.table.recordkey.fields").value_or(""));
  for (std::string field : SplitConfigList(p.Get("hoodie.table.partition.fields").value_or(""))) {
    const size_t colon = field.find(':');  // custom key generator: "name:SIMPLE"
    if (colon != std::string::npos) field.resize(colon);
    c.partition_fields.push_back(std::move(field));
  }
  c.ordering_fields = SplitConfigList(
      p.Get("hoodie.table.ordering.fields").value_or(p.Get("hoodie.table.precombine.field").value_or("")));
  c.key_generator = KeyGeneratorOf(p, c.record_key_fields.size(), c.partition_fields.size());
  if (c.key_generator == KeyGeneratorKind::kNonPartitioned) c.partition_fields.clear();
  c.hive_style_partitioning = ParseBool(p.Get("hoodie.datasource.write.hive_style_partitioning"), false);
  c.url_encode_partitions = ParseBool(p.Get("hoodie.datasource.write.partitionpath.urlencode"), false);
  c.populate_meta_fields = ParseBool(p.Get("hoodie.populate.meta.fields"), true);
  c.drop_partition_columns = ParseBool(p.Get("hoodie.datasource.write.drop.partition.columns"), false);
  c.merge_mode = MergeModeOf(p, !c.ordering_fields.empty());
  c.create_schema = p.Get("hoodie.table.create.schema").value_or("");
  c.metadata_partitions = SplitConfigList(p.Get("hoodie.table.metadata.partitions").value_or(""));
  c.metadata_partitions_inflight = SplitConfigList(p.Get("hoodie.table.metadata.partitions.inflight").value_or(""));
  ARROW_ASSIGN_OR_RAISE(c.record_key_encoding, RecordKeyEncodingOf(c, source));
  return c;
}

Result<TableConfig::KeyEncoding> RecordKeyEncodingOf(const HoodieTableConfig& table, const std::string& source) {
  using Encoding = TableConfig::KeyEncoding;
  if (table.record_key_fields.size() > 1 || table.key_generator != KeyGeneratorKind::kComplex) {
    return UsesComplexKeyEncoding(table.record_key_fields.size(), table.partition_fields.size()) ? Encoding::kComplex
                                                                                                 : Encoding::kPlain;
  }
  const auto encoding = table.properties.Get(kComplexKeyGenEncodingKey);
  if (!encoding) return table.table_version >= 9 ? Encoding::kComplex : Encoding::kUnknown;
  const std::string value = arrow::internal::AsciiToUpper(arrow::internal::TrimString(*encoding));
  if (value == "FIELD_PREFIXED") return Encoding::kComplex;
  if (value == "VALUE_ONLY") return Encoding::kPlain;
  return Corrupt(source, std::string(kComplexKeyGenEncodingKey) + " is '" + *encoding +
                             "', not FIELD_PREFIXED or VALUE_ONLY");
}

std::string UnknownKeyEncodingReason() {
  return "a version-8 table whose COMPLEX key generator over one record key field does not record " +
         std::string(kComplexKeyGenEncodingKey) +
         ": Hudi 0.14.1 to 1.0.2 wrote its keys as bare values, older releases as 'field:value' (HUDI-7001), so its "
         "keys cannot be matched; set the key to FIELD_PREFIXED or VALUE_ONLY as its _hoodie_record_key values show";
}

Properties HoodieTableConfig::TableOptions() const {
  Properties out;
  for (const ConfigOptionBase* option : table_options::All()) {
    if (auto value = properties.Get(option->key())) out[std::string(option->key())] = *value;
  }
  return out;
}

Result<bool> HoodieTableConfig::Exists(Storage& storage) {
  ARROW_ASSIGN_OR_RAISE(bool main, storage.Exists(HoodiePaths::kPropertiesFile));
  if (main) return true;
  return storage.Exists(HoodiePaths::kPropertiesBackupFile);
}

Result<std::optional<HoodieTableConfig>> HoodieTableConfig::LoadIfExists(Storage& storage) {
  Status first_error;
  for (const char* path : {HoodiePaths::kPropertiesFile, HoodiePaths::kPropertiesBackupFile}) {
    ARROW_ASSIGN_OR_RAISE(bool exists, storage.Exists(path));
    if (!exists) continue;
    ARROW_ASSIGN_OR_RAISE(std::string text, storage.ReadString(path));
    auto config = Parse(text, storage.root_uri() + "/" + path);
    // Hudi falls back to the backup only when the main file is missing or fails its checksum
    // (an update died half-way); any other problem is the answer.
    if (config.ok()) return std::optional<HoodieTableConfig>(std::move(*config));
    if (!IsError(config.status(), ErrorKind::kCorruptMetadata)) return config.status();
    if (first_error.ok()) first_error = config.status();
  }
  if (!first_error.ok()) return first_error;
  return std::optional<HoodieTableConfig>();  // neither file is there
}

Result<HoodieTableConfig> HoodieTableConfig::Load(Storage& storage) {
  ARROW_ASSIGN_OR_RAISE(auto config, LoadIfExists(storage));
  if (!config) {
    return CorruptMetadata(storage.root_uri() + " is not a Hudi table: it has no " +
                           HoodiePaths::kPropertiesFile);
  }
  return std::move(*config);
}

}  // namespace lakeshore
