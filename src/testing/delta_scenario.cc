#include "testing/delta_scenario.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <arrow/io/memory.h>
#include <arrow/json/reader.h>
#include <arrow/table.h>
#include <parquet/arrow/writer.h>

#include "lakeshore/delta/delta_log.h"

namespace lakeshore::testing {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::string_view kZ85 =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

std::string Padded(int64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(v));
  return buf;
}

std::shared_ptr<arrow::DataType> DvType() {
  return arrow::struct_({arrow::field("storageType", arrow::utf8()),
                         arrow::field("pathOrInlineDv", arrow::utf8()),
                         arrow::field("offset", arrow::int32()),
                         arrow::field("sizeInBytes", arrow::int32()),
                         arrow::field("cardinality", arrow::int64())});
}

/// The shape of a checkpoint (Spark writes the same field names; stats left out).
std::shared_ptr<arrow::Schema> CheckpointSchema() {
  auto strings = arrow::list(arrow::utf8());
  return arrow::schema({
      arrow::field("protocol", arrow::struct_({arrow::field("minReaderVersion", arrow::int32()),
                                               arrow::field("minWriterVersion", arrow::int32()),
                                               arrow::field("readerFeatures", strings),
                                               arrow::field("writerFeatures", strings)})),
      arrow::field("metaData", arrow::struct_({arrow::field("id", arrow::utf8()),
                                               arrow::field("partitionColumns", strings)})),
      arrow::field("add", arrow::struct_({arrow::field("path", arrow::utf8()),
                                          arrow::field("size", arrow::int64()),
                                          arrow::field("modificationTime", arrow::int64()),
                                          arrow::field("dataChange", arrow::boolean()),
                                          arrow::field("deletionVector", DvType())})),
      arrow::field("remove", arrow::struct_({arrow::field("path", arrow::utf8()),
                                             arrow::field("deletionTimestamp", arrow::int64()),
                                             arrow::field("size", arrow::int64()),
                                             arrow::field("dataChange", arrow::boolean()),
                                             arrow::field("deletionVector", DvType())})),
  });
}

std::shared_ptr<arrow::Buffer> ToParquet(const std::vector<json>& rows) {
  std::string ndjson;
  for (const auto& r : rows) ndjson += r.dump() + "\n";
  auto parse = arrow::json::ParseOptions::Defaults();
  parse.explicit_schema = CheckpointSchema();
  parse.unexpected_field_behavior = arrow::json::UnexpectedFieldBehavior::Ignore;
  auto input = std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(ndjson));
  auto reader = *arrow::json::TableReader::Make(arrow::default_memory_pool(), input,
                                               arrow::json::ReadOptions::Defaults(), parse);
  auto table = *reader->Read();
  auto sink = *arrow::io::BufferOutputStream::Create();
  auto st = parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), sink, 1024);
  if (!st.ok()) throw std::runtime_error(st.ToString());
  return *sink->Finish();
}

std::string KeyOf(const json& action) {
  std::string key = action["path"].get<std::string>();
  if (action.contains("deletionVector")) key += "|" + action["deletionVector"].dump();
  return key;
}

}  // namespace

json DvJson(const std::string& storage_type, const std::string& payload, std::optional<int> offset) {
  json dv = {{"storageType", storage_type}, {"pathOrInlineDv", payload}, {"sizeInBytes", 40},
             {"cardinality", 6}};
  if (offset && storage_type != "i") dv["offset"] = *offset;
  return dv;
}

std::string Z85Encode(const std::string& bytes) {
  std::string out;
  for (size_t i = 0; i + 3 < bytes.size(); i += 4) {
    uint32_t v = 0;
    for (int j = 0; j < 4; ++j) v = (v << 8) | static_cast<uint8_t>(bytes[i + j]);
    char group[5];
    for (int j = 4; j >= 0; --j) {
      group[j] = kZ85[v % 85];
      v /= 85;
    }
    out.append(group, 5);
  }
  return out;
}

std::string Z85Uuid(const std::string& canonical) {
  std::string hex;
  for (char c : canonical) if (c != '-') hex.push_back(c);
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    unsigned value = 0;
    std::from_chars(hex.data() + i, hex.data() + i + 2, value, 16);  // test input: a canonical UUID
    bytes.push_back(static_cast<char>(value));
  }
  return Z85Encode(bytes);
}

DeltaScenario::DeltaScenario(const std::string& name) {
  root_ = (fs::temp_directory_path() / ("lakeshore_vacuum_" + name + "_" + std::to_string(::getpid()))).string();
  fs::remove_all(root_);
  fs::create_directories(root_);
  storage_ = *Storage::Open(root_);
  auto real_now = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count();
  clock_ = std::make_shared<ManualClock>(real_now);
  engine_ = *Engine::MakeThreadPool(4);
}

DeltaScenario::~DeltaScenario() { fs::remove_all(root_); }

void DeltaScenario::Stamp(const std::string& path) const {
  auto st = storage_->SetModificationTimeForTesting(path, clock_->NowMs());
  if (!st.ok()) throw std::runtime_error(st.ToString());
}

void DeltaScenario::Create(std::vector<std::string> partition_columns, json configuration, json protocol) {
  json meta = {{"metaData",
                {{"id", "test-table"},
                 {"format", {{"provider", "parquet"}, {"options", json::object()}}},
                 {"schemaString", R"({"type":"struct","fields":[]})"},
                 {"partitionColumns", partition_columns},
                 {"configuration", configuration},
                 {"createdTime", clock_->NowMs()}}}};
  json proto = {{"protocol", protocol}};
  protocol_and_metadata_ = {proto, meta};
  in_commit_timestamps_ = configuration.is_object() && configuration.value("delta.enableInCommitTimestamps", "") == "true";
  Commit({proto, meta}, "CREATE TABLE");
}

int64_t DeltaScenario::Commit(const std::vector<json>& actions, const std::string& operation) {
  json info = {{"timestamp", clock_->NowMs()}, {"operation", operation}};
  if (in_commit_timestamps_) {
    last_ict_ = std::max(last_ict_ + 1, clock_->NowMs());  // strictly increasing, as the protocol wants
    info["inCommitTimestamp"] = last_ict_;
  }
  std::string text = json{{"commitInfo", info}}.dump() + "\n";
  for (const auto& a : actions) {
    text += a.dump() + "\n";
    if (a.contains("add")) {
      std::string key = KeyOf(a["add"]);
      std::erase_if(removes_, [&](const auto& r) { return r.first == key; });
      adds_.emplace_back(key, a);
    }
    if (a.contains("remove")) {
      std::string key = KeyOf(a["remove"]);
      std::erase_if(adds_, [&](const auto& r) { return r.first == key; });
      removes_.emplace_back(key, a);
    }
  }
  CommitRaw(text);
  return version_;
}

void DeltaScenario::CommitRaw(const std::string& bytes) {
  // The log may have grown through the vacuum's own commits.
  while (fs::exists(root_ + "/" + delta::DeltaLog::CommitPath(version_ + 1))) ++version_;
  ++version_;
  std::string path = delta::DeltaLog::CommitPath(version_);
  if (!*storage_->PutIfAbsentString(path, bytes)) throw std::runtime_error("commit exists: " + path);
  Stamp(path);
}

void DeltaScenario::Put(const std::string& path, int64_t size) {
  auto st = storage_->WriteString(path, std::string(static_cast<size_t>(size), 'x'));
  if (!st.ok()) throw std::runtime_error(st.ToString());
  Stamp(path);
}

void DeltaScenario::Add(const std::string& path, std::optional<json> dv, std::optional<std::string> log_path) {
  Put(path);
  json add = {{"path", log_path.value_or(path)}, {"size", 10}, {"modificationTime", clock_->NowMs()},
              {"dataChange", true}, {"partitionValues", json::object()}};
  if (dv) add["deletionVector"] = *dv;
  Commit({{{"add", add}}});
}

void DeltaScenario::Remove(const std::string& path, std::optional<json> dv,
                           std::optional<std::string> log_path, const std::string& operation) {
  json remove = {{"path", log_path.value_or(path)}, {"deletionTimestamp", clock_->NowMs()},
                 {"size", 10}, {"dataChange", true}};
  if (dv) remove["deletionVector"] = *dv;
  Commit({{{"remove", remove}}}, operation);
}

void DeltaScenario::MakeDir(const std::string& path) {
  fs::create_directories(root_ + "/" + path);
  Stamp(path);
}

void DeltaScenario::Checkpoint(int parts, bool v2_sidecars, bool write_last_checkpoint) {
  std::vector<json> file_rows;
  for (const auto& [k, a] : adds_) file_rows.push_back(a);
  for (const auto& [k, r] : removes_) file_rows.push_back(r);
  std::string v = Padded(version_, 20);
  json last = {{"version", version_}, {"size", file_rows.size() + 2}};
  if (v2_sidecars) {
    std::string uuid = "3a0d65cd-4056-49b8-937b-95f9e3ee90e5";
    auto sidecar = ToParquet(file_rows);
    (void)storage_->WriteFile("_delta_log/_sidecars/" + uuid + ".parquet", sidecar);
    std::string text;
    for (const auto& row : protocol_and_metadata_) text += row.dump() + "\n";
    text += json{{"checkpointMetadata", {{"version", version_}}}}.dump() + "\n";
    text += json{{"sidecar", {{"path", uuid + ".parquet"}, {"sizeInBytes", sidecar->size()},
                              {"modificationTime", clock_->NowMs()}}}}.dump() + "\n";
    std::string name = v + ".checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json";
    (void)storage_->WriteString("_delta_log/" + name, text);
    last["v2Checkpoint"] = {{"path", name}};
  } else if (parts <= 1) {
    std::vector<json> rows = protocol_and_metadata_;
    rows.insert(rows.end(), file_rows.begin(), file_rows.end());
    (void)storage_->WriteFile("_delta_log/" + v + ".checkpoint.parquet", ToParquet(rows));
  } else {
    for (int p = 1; p <= parts; ++p) {
      std::vector<json> rows;
      if (p == 1) rows = protocol_and_metadata_;
      for (size_t i = 0; i < file_rows.size(); ++i) {
        if (static_cast<int>(i % static_cast<size_t>(parts)) == p - 1) rows.push_back(file_rows[i]);
      }
      if (rows.empty()) rows.push_back(json{{"add", nullptr}});
      std::string name = v + ".checkpoint." + Padded(p, 10) + "." + Padded(parts, 10) + ".parquet";
      (void)storage_->WriteFile("_delta_log/" + name, ToParquet(rows));
    }
    last["parts"] = parts;
  }
  if (write_last_checkpoint) (void)storage_->WriteString("_delta_log/_last_checkpoint", last.dump());
}

Result<VacuumReport> DeltaScenario::Vacuum(VacuumOptions options) {
  options.clock = clock_;
  options.engine = engine_;
  return lakeshore::Vacuum(storage_, options);
}

bool DeltaScenario::Exists(const std::string& path) const { return fs::exists(root_ + "/" + path); }

std::vector<std::string> DeltaScenario::DataFiles() const {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root_)) {
    std::string rel = e.path().string().substr(root_.size() + 1);
    if (rel.rfind("_delta_log", 0) == 0) continue;
    out.push_back(rel);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace lakeshore::testing
