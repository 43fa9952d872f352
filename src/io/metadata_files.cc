#include "io/metadata_files.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <set>
#include <unordered_map>

#include "common/byte_compare.h"
#include "common/parse_number.h"
#include "common/path_set.h"
#include "format/hfile.h"
#include "format/hfile_writer.h"
#include "format/metadata_keys.h"
#include "format/metadata_record.h"
#include "format/avro_container.h"
#include "io/log_file.h"
#include "lakeshore/storage/sub_tree_storage.h"
#include "table/file_naming.h"
#include "table/file_system_view.h"
#include "timeline/commit_metadata_cache.h"
#include "timeline/timeline.h"

namespace lakeshore {
namespace {

constexpr const char* kFilesPartition = "files";
constexpr const char* kAllPartitions = "__all_partitions__";

/// The live files (name → size) of a `files` partition record (HoodieMetadataRecord type 1,
/// the partition list, or 2, a partition's files): those its filesystemMetadata does not mark
/// deleted.
Result<std::map<std::string, int64_t>> LiveFiles(const nlohmann::json& record, const std::string& where) {
  std::map<std::string, int64_t> out;
  auto meta = record.find("filesystemMetadata");
  if (meta == record.end() || meta->is_null()) return out;
  if (!meta->is_object()) return CorruptMetadata(where + ": filesystemMetadata is not a map");
  for (const auto& [name, info] : meta->items()) {
    if (!info.is_object() || info.value("isDeleted", false)) continue;
    auto size = info.find("size");
    out[name] = size != info.end() && size->is_number_integer() ? size->get<int64_t>() : 0;
  }
  return out;
}

/// Folds a newer version of a `files` record into `older`, as Hudi's combineFileSystemMetadata
/// does: a file the newer one marks deleted is deleted; one both hold keeps the larger size.
Status CombineFilesRecords(nlohmann::json& older, nlohmann::json&& newer, const std::string& where) {
  auto next = newer.find("filesystemMetadata");
  if (next == newer.end() || next->is_null()) return Status::OK();
  if (!next->is_object()) return CorruptMetadata(where + ": filesystemMetadata is not a map");
  nlohmann::json& into = older["filesystemMetadata"];
  if (!into.is_object()) into = nlohmann::json::object();
  auto size_of = [](const nlohmann::json& info) {
    auto size = info.find("size");
    return size != info.end() && size->is_number_integer() ? size->get<int64_t>() : int64_t{0};
  };
  for (auto& [name, info] : next->items()) {
    auto kept = into.find(name);
    const bool replace = kept == into.end() || !info.is_object() || info.value("isDeleted", false) ||
                         kept->value("isDeleted", false) || size_of(info) > size_of(*kept);
    if (replace) into[name] = std::move(info);
  }
  return Status::OK();
}

/// Which keys a read of a metadata partition wants: all (null `keys`), or `keys` (in any
/// order, repeats allowed), of which a file group holds only those `group_of` assigns to it.
struct KeySelection {
  const std::vector<std::string_view>* keys = nullptr;
  /// The keys are prefixes: every entry whose key starts with one is wanted (a secondary index
  /// lookup), and HFiles are scanned over the blocks a prefix can be in.
  bool prefixes = false;
  /// The number of the file group `key` lives in, of `groups`.
  std::function<int64_t(std::string_view key, size_t groups)> group_of;
  /// A file group's number (from its id), or -1 when its name does not say (it is then read).
  std::function<int64_t(const FileGroup& group)> number_of;
};

/// A looked-up key and where it was asked, ordered by key: its first 16 bytes compared as two
/// integers first, so sorting a group's keys rarely reaches memcmp (time-ordered keys share
/// their first 8 bytes).
struct AskedKey {
  uint64_t head = 0;  ///< bytes 0-7, big-endian, zero-padded
  uint64_t next = 0;  ///< bytes 8-15, likewise
  std::string_view key;
  size_t position = 0;

  static uint64_t Word(std::string_view key, size_t from) {
    uint64_t word = 0;
    for (size_t i = from; i < from + 8; ++i) {
      word = (word << 8) | (i < key.size() ? static_cast<unsigned char>(key[i]) : 0u);
    }
    return word;
  }
  static AskedKey Of(std::string_view key, size_t position) { return {Word(key, 0), Word(key, 8), key, position}; }
  bool operator<(const AskedKey& other) const {
    if (head != other.head) return head < other.head;
    if (next != other.next) return next < other.next;
    return BytesLess(key, other.key);
  }
  bool SameKey(const AskedKey& other) const { return head == other.head && next == other.next && SameBytes(key, other.key); }
};

/// The values of one HFile (a base file, or a log block's), under its writer schema: decoded
/// to JSON on demand (one Avro decoder per schema), and said to be of the layout
/// format/metadata_record.h encodes (so typed decoders may read them directly).
/// Avro readers by writer schema, so that one task parses each schema once however many files
/// and log blocks carry it (the metadata record schema is tens of kilobytes of JSON). Not
/// thread-safe: one per task.
using AvroReaders = std::map<std::string, std::unique_ptr<format::AvroDatumReader>, std::less<>>;

class ValueDecoder {
 public:
  /// Decodes values written with `schema`, naming `where` in errors; with `readers`, the reader
  /// of that schema is taken from (or added to) it.
  ValueDecoder(std::string schema, std::string where, AvroReaders* readers = nullptr)
      : schema_(std::move(schema)), where_(std::move(where)), readers_(readers) {}
  Result<nlohmann::json> Json(std::string_view value) {
    if (reader_ == nullptr) {
      if (readers_ != nullptr) {
        auto it = readers_->find(schema_);
        if (it == readers_->end()) {
          ARROW_ASSIGN_OR_RAISE(auto made, format::AvroDatumReader::Make(schema_, where_));
          it = readers_->emplace(schema_, std::move(made)).first;
        }
        it->second->Rename(where_);
        reader_ = it->second.get();
      } else {
        ARROW_ASSIGN_OR_RAISE(owned_, format::AvroDatumReader::Make(schema_, where_));
        reader_ = owned_.get();
      }
    }
    return reader_->Read(value);
  }
  bool KnownLayout() {
    if (!known_layout_) known_layout_ = format::IsCompatibleMetadataSchema(schema_);
    return *known_layout_;
  }
  const std::string& where() const { return where_; }

 private:
  std::string schema_, where_;
  AvroReaders* readers_ = nullptr;
  std::unique_ptr<format::AvroDatumReader> owned_;
  format::AvroDatumReader* reader_ = nullptr;
  std::optional<bool> known_layout_;
};

/// Every record of the metadata table partition `partition` that `selection` wants, by key:
/// the latest slice of each file group that may hold one (base HFile — scanned, or probed with
/// the group's keys, sorted by its own task —, then the HFile blocks of its log files in order,
/// likewise), each value decoded by `decode` and the versions of a key folded by
/// `combine(older, newer)` in that order; a delete block removes a key. File groups are read
/// in parallel. With `aligned` (exact keys only), each selected key's record is put at its
/// position in `*aligned` (sized like the keys; nullopt: none) by its group's task instead, and
/// the map returned is empty: no map of every key is built.
template <typename T>
Result<std::map<std::string, T>> ReadMetadataPartition(
    const std::shared_ptr<Storage>& table, Engine& engine, const std::string& partition,
    const std::function<Result<T>(std::string_view key, std::string_view value, ValueDecoder& decoder)>& decode,
    const std::function<Status(T& older, T&& newer, const std::string& where)>& combine,
    const std::function<bool(const std::string&)>& is_valid_data_instant, const KeySelection& selection = {},
    std::vector<std::optional<T>>* aligned = nullptr) {
  ARROW_ASSIGN_OR_RAISE(auto mdt, SubTreeStorage::Make(table, kMetadataFolder));
  ARROW_ASSIGN_OR_RAISE(auto slices, LoadMetadataPartitionSlices(*mdt, partition));
  auto visible = [&](const std::string& instant) {
    return slices.completed.count(instant) > 0 && (!is_valid_data_instant || is_valid_data_instant(instant));
  };
  const std::vector<const FileGroup*> groups = slices.view.LiveFileGroupsIn(partition);
  // Hudi hashes keys over the file groups on storage (its view of the metadata table lists
  // them), as the listing found them.
  const size_t group_count = groups.size();
  const std::string prefix = table->root_uri() + "/" + kMetadataFolder + "/";
  // Each asked-for key's group, hashed once (in parallel chunks).
  std::vector<int64_t> key_group;
  if (selection.keys != nullptr && !selection.keys->empty() && group_count == 0) {
    // Keys hash over the groups: with none, where a key lives cannot be said (Hudi writes a
    // partition's file groups when it builds it, so none is damage).
    return CorruptMetadata("metadata table partition " + prefix + partition + " has no file groups");
  }
  if (selection.keys != nullptr) {
    // Keys hash over the count of groups: a group lost from storage shifts every key to another
    // group, and a lookup would miss stored keys (an upsert then stores them twice). The
    // groups' numbers must be exactly 0..count-1 (groups whose names say no number are read
    // for every key, and not checked).
    std::vector<bool> numbered(group_count, false);
    for (const FileGroup* group : groups) {
      const int64_t number = selection.number_of(*group);
      if (number < 0) continue;
      if (static_cast<uint64_t>(number) >= group_count || numbered[static_cast<size_t>(number)]) {
        return CorruptMetadata("metadata table partition " + prefix + partition + " holds file group '" +
                               group->file_id + "' but " + std::to_string(group_count) +
                               " groups in all: a file group is missing from storage (keys hash over the count of "
                               "groups); rebuild the index (drop_index, then create_index)");
      }
      numbered[static_cast<size_t>(number)] = true;
    }
    const auto n = static_cast<int64_t>(selection.keys->size());
    key_group.resize(static_cast<size_t>(n));
    constexpr int64_t kChunk = 8192;
    ARROW_RETURN_NOT_OK(engine.ParallelFor((n + kChunk - 1) / kChunk, [&](int64_t c) {
      for (int64_t k = c * kChunk; k < std::min(n, (c + 1) * kChunk); ++k) {
        key_group[static_cast<size_t>(k)] = selection.group_of((*selection.keys)[static_cast<size_t>(k)], group_count);
      }
      return Status::OK();
    }));
    if (aligned != nullptr) aligned->assign(static_cast<size_t>(n), std::nullopt);
  }
  // The positions of the keys of each group number, in one pass (a group whose number its name
  // does not say takes every key).
  std::vector<std::vector<size_t>> keys_of_number(selection.keys != nullptr ? group_count : 0);
  for (size_t k = 0; k < key_group.size(); ++k) keys_of_number[static_cast<size_t>(key_group[k])].push_back(k);
  const std::vector<size_t> no_keys;
  auto read_group = [&](int64_t g) -> Result<std::map<std::string, T>> {
    const FileGroup* group = groups[static_cast<size_t>(g)];
    std::map<std::string, T> records;
    AvroReaders readers;  // this group's files share their writer schemas
    // The keys this group may hold (all, when the selection takes all), sorted and unique, with
    // the positions they were asked at.
    std::vector<AskedKey> asked;
    std::vector<std::string_view> wanted;
    std::vector<uint32_t> wanted_of;  // asked[i].key is wanted[wanted_of[i]]
    if (selection.keys != nullptr) {
      const int64_t number = selection.number_of(*group);
      if (number < 0) {
        asked.reserve(selection.keys->size());
        for (size_t k = 0; k < selection.keys->size(); ++k) asked.push_back(AskedKey::Of((*selection.keys)[k], k));
      } else {
        const std::vector<size_t>& positions =
            static_cast<size_t>(number) < keys_of_number.size() ? keys_of_number[static_cast<size_t>(number)] : no_keys;
        asked.reserve(positions.size());
        for (size_t j = 0; j < positions.size(); ++j) {
          if (j + 8 < positions.size()) __builtin_prefetch((*selection.keys)[positions[j + 8]].data());
          asked.push_back(AskedKey::Of((*selection.keys)[positions[j]], positions[j]));
        }
      }
      if (asked.empty()) return records;
      std::sort(asked.begin(), asked.end());
      wanted.reserve(asked.size());
      wanted_of.reserve(asked.size());
      for (size_t i = 0; i < asked.size(); ++i) {
        if (i == 0 || !asked[i - 1].SameKey(asked[i])) wanted.push_back(asked[i].key);
        wanted_of.push_back(static_cast<uint32_t>(wanted.size() - 1));
      }
    }
    const bool exact = selection.keys != nullptr && !selection.prefixes;
    std::vector<std::optional<T>> found(exact ? wanted.size() : 0);  // exact keys: by position in `wanted`
    // Every wanted entry of one HFile, in key order, folded in.
    auto fold = [&](const format::HFileReader& hfile, ValueDecoder& decoder) -> Status {
      auto add = [&](std::string_view key, std::string_view value) -> Status {
        ARROW_ASSIGN_OR_RAISE(T decoded, decode(key, value, decoder));
        // HFiles yield keys in order: a key after every one held goes at the end, found at once.
        if (records.empty() || std::string_view(records.rbegin()->first) < key) {
          records.emplace_hint(records.end(), std::string(key), std::move(decoded));
          return Status::OK();
        }
        auto [it, inserted] = records.try_emplace(std::string(key));
        if (inserted) {
          it->second = std::move(decoded);
          return Status::OK();
        }
        return combine(it->second, std::move(decoded), decoder.where());
      };
      if (selection.keys == nullptr) return hfile.Scan(add);
      if (selection.prefixes) {
        for (std::string_view prefix : wanted) ARROW_RETURN_NOT_OK(hfile.ScanPrefix(prefix, add));
        return Status::OK();
      }
      // Exact keys: the versions go straight to the wanted key's slot, no map.
      return hfile.VisitSorted(wanted, [&](size_t k, std::string_view value) -> Status {
        ARROW_ASSIGN_OR_RAISE(T decoded, decode(wanted[k], value, decoder));
        if (found[k]) return combine(*found[k], std::move(decoded), decoder.where());
        found[k] = std::move(decoded);
        return Status::OK();
      });
    };
    auto remove = [&](const std::string& key) {
      if (!exact) {
        records.erase(key);
        return;
      }
      auto at = std::lower_bound(wanted.begin(), wanted.end(), std::string_view(key));
      if (at != wanted.end() && *at == key) found[static_cast<size_t>(at - wanted.begin())].reset();
    };
    const FileSlice& slice = group->latest();
    if (slice.base_file) {
      const std::string& path = slice.base_file->path;
      const std::string where = "metadata table file " + prefix + path;
      std::shared_ptr<format::HFileReader> reader;
      if (selection.keys == nullptr) {
        ARROW_ASSIGN_OR_RAISE(auto bytes, mdt->ReadFile(path));
        ARROW_ASSIGN_OR_RAISE(reader, format::HFileReader::Open(bytes, where));
      } else {
        // Looked-up keys: only the blocks they fall in are read.
        ARROW_ASSIGN_OR_RAISE(auto file, mdt->OpenInputFile(path));
        ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
        ARROW_ASSIGN_OR_RAISE(reader, format::HFileReader::OpenLazy(file, size, where));
      }
      auto schema = reader->file_info().find("schema");
      if (schema == reader->file_info().end()) return CorruptMetadata(where + " has no schema in its file info");
      ValueDecoder decoder(schema->second, where, &readers);
      ARROW_RETURN_NOT_OK(fold(*reader, decoder));
    }
    for (const auto& log : slice.log_files) {
      ARROW_ASSIGN_OR_RAISE(auto blocks, ReadLogFile(*mdt, log, /*decode_hfile=*/false));
      // A rollback command block voids the blocks of its target instant.
      std::set<std::string> rolled_back;
      for (const auto& b : blocks) {
        if (b.is_rollback) rolled_back.insert(b.target_instant_time);
      }
      const std::string where = "metadata log file " + prefix + log;
      for (auto& b : blocks) {
        // Hudi 1.x writes each log file whole and never appends: a damaged block is damage, not
        // the torn tail of a crashed append, and its entries cannot be skipped.
        if (b.type == format::LogBlockType::kCorrupt) return CorruptMetadata(where + " has a damaged block");
        if (!visible(b.instant_time) || rolled_back.count(b.instant_time)) continue;
        if (b.hfile) {
          ValueDecoder decoder(b.hfile_schema, where, &readers);
          ARROW_RETURN_NOT_OK(fold(*b.hfile, decoder));
        }
        for (const auto& d : b.deletes) remove(d.record_key);
      }
    }
    if (exact && aligned != nullptr) {
      // Both sorted: one walk puts each record at every position its key was asked at.
      // A key asked once (the usual case) has its record moved, not copied.
      constexpr size_t kAhead = 8;  // positions are scattered: their slots are fetched ahead
      for (size_t i = 0; i < asked.size(); ++i) {
        if (i + kAhead < asked.size()) __builtin_prefetch(&(*aligned)[asked[i + kAhead].position], 1);
        const AskedKey& a = asked[i];
        const uint32_t w = wanted_of[i];
        if (!found[w]) continue;
        const bool asked_again = i + 1 < asked.size() && wanted_of[i + 1] == w;
        if (asked_again) {
          (*aligned)[a.position] = found[w];
        } else {
          (*aligned)[a.position] = std::move(found[w]);
        }
      }
      return records;  // empty
    }
    for (size_t k = 0; k < found.size(); ++k) {
      if (found[k]) records.emplace_hint(records.end(), std::string(wanted[k]), std::move(*found[k]));
    }
    return records;
  };
  using GroupRecords = std::map<std::string, T>;
  ARROW_ASSIGN_OR_RAISE(auto per_group, engine.Map<GroupRecords>(static_cast<int64_t>(groups.size()), read_group));
  std::map<std::string, T> out;
  for (auto& m : per_group) {
    if (out.empty()) {
      out = std::move(m);
      continue;
    }
    out.merge(m);  // a key lives in one group
  }
  return out;
}

/// The JSON decoding of values (every partition's generic path).
Result<nlohmann::json> DecodeJson(std::string_view, std::string_view value, ValueDecoder& decoder) {
  return decoder.Json(value);
}

/// A file id of Hudi's encoding 0: a Java UUID's text from its two halves, "-", the index.
std::string UuidFileId(uint64_t high, uint64_t low, int64_t index) {
  static constexpr char kHex[] = "0123456789abcdef";
  char buf[64];
  size_t n = 0;
  auto hex = [&](uint64_t v, int digits) {
    for (int d = digits - 1; d >= 0; --d) buf[n++] = kHex[(v >> (4 * d)) & 0xf];
  };
  hex(high >> 32, 8);
  buf[n++] = '-';
  hex(high >> 16, 4);
  buf[n++] = '-';
  hex(high, 4);
  buf[n++] = '-';
  hex(low >> 48, 4);
  buf[n++] = '-';
  hex(low, 12);
  buf[n++] = '-';
  const auto [end, ec] = std::to_chars(buf + n, buf + sizeof(buf), index);
  return std::string(buf, ec == std::errc() ? static_cast<size_t>(end - buf) : n);
}

}  // namespace

bool IsIndexInitTime(std::string_view time) {
  return time.size() == 17 && time.substr(0, 14) == "00000000000000" &&
         time.substr(14).find_first_not_of("0123456789") == std::string_view::npos;
}

std::function<bool(const std::string&)> ValidDataInstants(const Timeline& data_timeline) {
  auto completed = std::make_shared<std::set<std::string>>();
  auto active = std::make_shared<std::set<std::string>>();
  std::string first_write;
  for (const auto& i : data_timeline.instants()) {
    active->insert(i.time);
    if (i.is_completed()) completed->insert(i.time);
    const bool write = actions::WritesData(actions::CompletedAction(i.action));
    if (write && (first_write.empty() || i.time < first_write)) first_write = i.time;
  }
  return [completed, active, first_write](const std::string& instant) {
    if (completed->count(instant) > 0) return true;
    if (active->count(instant) > 0) return false;  // pending
    // No write active: every write was archived or rolled back (a rollback removes the
    // metadata deltacommit of what it undoes), so whatever the metadata table holds counts.
    return IsIndexInitTime(instant) || first_write.empty() || instant < first_write;
  };
}

Result<MetadataPartitionSlices> LoadMetadataPartitionSlices(Storage& mdt, const std::string& partition,
                                                            const Timeline* listed) {
  Timeline timeline;
  if (listed != nullptr) {
    timeline = *listed;
  } else {
    ARROW_ASSIGN_OR_RAISE(timeline, Timeline::Load(mdt, kMetadataTimeline));
  }
  MetadataPartitionSlices out;
  std::map<std::string, Instant> completed;
  for (const auto& i : timeline.instants()) {
    if (!i.is_completed()) continue;
    out.completed.insert(i.time);
    completed.emplace(i.time, i);
  }
  ARROW_ASSIGN_OR_RAISE(auto entries, mdt.List(partition, /*recursive=*/false));
  // One commit per completed instant, holding the files named by its time: a log file's name
  // carries the instant that wrote it (Hudi 1.x), a base file's the instant that wrote it.
  std::map<std::string, CompletedCommit> commits;
  for (const auto& e : entries) {
    const std::string name(BaseName(e.path));
    auto parsed = ParseDataFileName(name);
    if (!parsed) continue;
    auto instant = completed.find(parsed->instant_time);
    if (instant == completed.end()) continue;  // written by a metadata instant that did not complete
    auto [it, inserted] = commits.try_emplace(instant->first, CompletedCommit{instant->second, {}});
    WriteStat stat;
    stat.partition = partition;
    stat.file_id = parsed->file_id;
    stat.path = JoinPath(partition, name);
    stat.file_size = e.size;
    out.sizes[stat.path] = e.size;
    it->second.metadata.write_stats.push_back(std::move(stat));
  }
  std::vector<CompletedCommit> ordered;
  for (auto& [time, commit] : commits) ordered.push_back(std::move(commit));
  std::sort(ordered.begin(), ordered.end(), [](const CompletedCommit& a, const CompletedCommit& b) {
    return a.instant.completion_time < b.instant.completion_time;
  });
  out.view = FileSystemView::Build(ordered);
  out.timeline = std::move(timeline);
  return out;
}

namespace {
/// Views of `keys` (none when null), for a KeySelection; they live as long as `keys`.
std::vector<std::string_view> KeyViews(const std::vector<std::string>* keys) {
  return keys ? std::vector<std::string_view>(keys->begin(), keys->end()) : std::vector<std::string_view>();
}

/// The selection of `keys`: a key lives in the file group Hudi's hash names (<prefix>-<NNNN>-0).
KeySelection SelectKeys(const std::vector<std::string_view>* keys) {
  KeySelection selection;
  if (keys == nullptr) return selection;
  selection.keys = keys;
  selection.group_of = [](std::string_view key, size_t groups) {
    return format::RecordIndexFileGroup(key, static_cast<int64_t>(groups));
  };
  selection.number_of = [](const FileGroup& group) -> int64_t {
    const std::string& id = group.file_id;
    const size_t dash = id.rfind('-');
    const size_t start = id.rfind('-', dash == std::string::npos || dash == 0 ? 0 : dash - 1);
    if (dash == std::string::npos || start == std::string::npos) return -1;  // unknown naming: read it
    auto number = ParseInt64(std::string_view(id).substr(start + 1, dash - start - 1));
    return number ? *number : -1;
  };
  return selection;
}

template <typename T>
Status Latest(T& older, T&& newer, const std::string&) {
  older = std::move(newer);  // the latest version wins
  return Status::OK();
}

/// The IndexedFileGroup of a record index value, shared by every value of this thread that
/// names the same group: a lookup of many keys decodes them from few groups, and a string made
/// (and later freed, often on another thread) per key cost more than the lookup's reading.
/// Looked up first among the last few groups met (a UUID file id compared by its three numbers,
/// not its text), then by hash over the stored bytes. Holds at most
/// kMaxGroups groups per thread, then starts over.
std::shared_ptr<const IndexedFileGroup> InternFileGroup(const format::RecordIndexValue& v) {
  struct Recent {
    bool uuid = false;
    uint64_t high = 0, low = 0;
    int32_t index = 0;
    std::string file_id, partition;  // as stored
    std::shared_ptr<const IndexedFileGroup> group;
  };
  constexpr size_t kRecent = 16;
  thread_local std::array<Recent, kRecent> recent;
  thread_local size_t next_recent = 0;
  for (const Recent& r : recent) {
    if (r.group && r.uuid == v.uuid_file_id &&
        (r.uuid ? r.high == v.high && r.low == v.low && r.index == v.index : SameBytes(r.file_id, v.file_id)) &&
        SameBytes(r.partition, v.partition)) {
      return r.group;
    }
  }
  using Groups =
      std::unordered_map<std::string, std::shared_ptr<const IndexedFileGroup>, TransparentStringHash, std::equal_to<>>;
  constexpr size_t kMaxGroups = 1 << 16;
  thread_local Groups groups;
  thread_local std::string key;
  // The partition's length first: no two pairs of texts make the same key.
  const auto partition_size = static_cast<uint32_t>(v.partition.size());
  key.assign(reinterpret_cast<const char*>(&partition_size), sizeof(partition_size));
  key.append(v.partition);
  if (v.uuid_file_id) {
    key.push_back('u');
    key.append(reinterpret_cast<const char*>(&v.high), sizeof(v.high));
    key.append(reinterpret_cast<const char*>(&v.low), sizeof(v.low));
    key.append(reinterpret_cast<const char*>(&v.index), sizeof(v.index));
  } else {
    key.push_back('t');
    key.append(v.file_id);
  }
  std::shared_ptr<const IndexedFileGroup> group;
  if (auto it = groups.find(std::string_view(key)); it != groups.end()) {
    group = it->second;
  } else {
    auto made = std::make_shared<IndexedFileGroup>();
    made->partition = v.partition == "." ? std::string() : std::string(v.partition);
    made->file_id = v.uuid_file_id ? UuidFileId(v.high, v.low, v.index) : std::string(v.file_id);
    if (groups.size() >= kMaxGroups) groups.clear();
    group = groups.emplace(key, std::move(made)).first->second;
  }
  Recent& r = recent[next_recent++ % kRecent];
  r.uuid = v.uuid_file_id;
  r.high = v.high;
  r.low = v.low;
  r.index = v.index;
  r.file_id.assign(v.file_id);
  r.partition.assign(v.partition);
  r.group = group;
  return group;
}

/// A record index value → its location; the typed decoder for values of the known layout, the
/// JSON one for any other.
Result<RecordLocation> DecodeLocation(std::string_view key, std::string_view value, ValueDecoder& decoder) {
  RecordLocation loc;
  if (decoder.KnownLayout()) {
    if (auto v = format::DecodeRecordIndexValue(value)) {
      loc.group = InternFileGroup(*v);
      loc.instant_ms = v->instant_ms;
      return loc;
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto record, decoder.Json(value));
  const std::string where = "the record index entry of '" + std::string(key) + "' in " + decoder.where();
  auto info = record.find("recordIndexMetadata");
  if (info == record.end() || !info->is_object()) return CorruptMetadata(where + " has no recordIndexMetadata");
  auto group = std::make_shared<IndexedFileGroup>();
  group->partition = info->value("partitionName", "");
  if (group->partition == ".") group->partition.clear();
  loc.instant_ms = info->contains("instantTime") && (*info)["instantTime"].is_number_integer()
                       ? (*info)["instantTime"].get<int64_t>()
                       : 0;
  const int encoding = info->contains("fileIdEncoding") && (*info)["fileIdEncoding"].is_number_integer()
                           ? (*info)["fileIdEncoding"].get<int>()
                           : 0;
  if (encoding == 0) {
    auto bits = [&](const char* name) -> std::optional<uint64_t> {
      auto it = info->find(name);
      if (it == info->end() || !it->is_number_integer()) return std::nullopt;
      return static_cast<uint64_t>(it->get<int64_t>());
    };
    auto high = bits("fileIdHighBits"), low = bits("fileIdLowBits");
    auto index = info->find("fileIndex");
    if (!high || !low || index == info->end() || !index->is_number_integer()) {
      return CorruptMetadata(where + " has an incomplete file id");
    }
    group->file_id = UuidFileId(*high, *low, index->get<int64_t>());
  } else {
    group->file_id = info->value("fileId", "");
    if (group->file_id.empty()) return CorruptMetadata(where + " has an empty file id");
  }
  loc.group = std::move(group);
  return loc;
}
}  // namespace

Result<std::map<std::string, nlohmann::json>> ReadMetadataRecords(
    const std::shared_ptr<Storage>& table, Engine& engine, const std::string& partition,
    const std::function<bool(const std::string&)>& is_valid_data_instant, const std::vector<std::string>* keys) {
  const std::vector<std::string_view> views = KeyViews(keys);
  // Statistics merge as Hudi merges them (a loose bound widens); other partitions' latest wins.
  const bool statistics = partition == "column_stats" || partition == "partition_stats";
  auto merge_statistics = [](nlohmann::json& older, nlohmann::json&& newer, const std::string&) {
    older = format::MergeColumnStatsRecords(older, newer);
    return Status::OK();
  };
  return ReadMetadataPartition<nlohmann::json>(
      table, engine, partition, DecodeJson,
      statistics ? std::function<Status(nlohmann::json&, nlohmann::json&&, const std::string&)>(merge_statistics)
                 : Latest<nlohmann::json>,
      is_valid_data_instant, SelectKeys(keys ? &views : nullptr));
}

Result<std::map<std::optional<std::string>, std::vector<std::string>>> ReadMetadataSecondaryIndex(
    const std::shared_ptr<Storage>& table, Engine& engine, const std::string& partition,
    const std::function<bool(const std::string&)>& is_valid_data_instant,
    const std::vector<std::optional<std::string>>* secondary_keys, bool hashed_by_secondary_key) {
  std::vector<std::string> prefixes;
  std::vector<std::string_view> prefix_views;
  KeySelection selection;
  if (secondary_keys != nullptr) {
    for (const auto& k : *secondary_keys) prefixes.push_back(format::SecondaryIndexKeyPrefix(k));
    prefix_views.assign(prefixes.begin(), prefixes.end());
    selection = SelectKeys(&prefix_views);
    selection.prefixes = true;
    // Index version V2 hashes an entry by its prefix, as SelectKeys hashes a key; V1 hashed the
    // whole entry key, so a secondary key's entries may be in any group.
    if (!hashed_by_secondary_key) selection.number_of = [](const FileGroup&) -> int64_t { return -1; };
  }
  // The latest version of an entry says whether the pair is deleted.
  auto decode = [](std::string_view key, std::string_view value, ValueDecoder& decoder) -> Result<bool> {
    ARROW_ASSIGN_OR_RAISE(auto record, decoder.Json(value));
    auto info = record.find("SecondaryIndexMetadata");
    if (info == record.end() || !info->is_object() || !info->contains("isDeleted") ||
        !(*info)["isDeleted"].is_boolean()) {
      return CorruptMetadata("the secondary index entry '" + std::string(key) + "' in " + decoder.where() +
                             " has no SecondaryIndexMetadata.isDeleted");
    }
    return (*info)["isDeleted"].get<bool>();
  };
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadMetadataPartition<bool>(table, engine, partition, decode, Latest<bool>,
                                                                   is_valid_data_instant, selection));
  std::map<std::optional<std::string>, std::vector<std::string>> out;
  for (const auto& [key, deleted] : entries) {
    if (deleted) continue;
    ARROW_ASSIGN_OR_RAISE(auto pair, format::SplitSecondaryIndexKey(key));
    if (!pair.second) return CorruptMetadata("the secondary index entry '" + key + "' of " + partition + " has a null record key");
    out[std::move(pair.first)].push_back(std::move(*pair.second));
  }
  for (auto& [sk, keys] : out) std::sort(keys.begin(), keys.end());
  return out;
}

Result<std::string> CompactMetadataFileGroup(Storage& mdt, const MetadataPartitionSlices& slices, const FileGroup& group,
                                             const std::function<bool(const std::string&)>& is_valid_data_instant,
                                             const format::HFileWriterOptions& options, const std::string& schema,
                                             bool column_stats) {
  const FileSlice& slice = group.latest();
  const std::string prefix = mdt.root_uri() + "/";
  auto known = [&](const std::string& writer_schema, const std::string& where) -> Status {
    if (writer_schema == schema || format::IsCompatibleMetadataSchema(writer_schema, column_stats)) return Status::OK();
    return UnsupportedFeature(where + " holds values of another layout than Lakeshore writes");
  };
  // Statistics versions that widen the one before them (Hudi's loose bounds) must merge, which
  // copying values cannot do: such a group is refused, never narrowed.
  AvroReaders readers;  // each writer schema parsed once
  auto must_replace = [&](std::string_view key, std::string_view value, const std::string& value_schema,
                          const std::string& where) -> Status {
    if (!column_stats) return Status::OK();
    ValueDecoder decoder(value_schema, where, &readers);
    ARROW_ASSIGN_OR_RAISE(auto record, decoder.Json(value));
    auto stats = record.find("ColumnStatsMetadata");
    if (stats == record.end() || !stats->is_object() || stats->value("isDeleted", false) ||
        stats->value("isTightBound", false)) {
      return Status::OK();
    }
    return UnsupportedFeature(where + " holds a column statistics version of key '" + std::string(key) +
                              "' that widens the one before it (not a tight bound); compacting it here would narrow it");
  };
  // The log files' versions first (small): the latest of each key, or its deletion.
  std::map<std::string, std::optional<std::string>> newer;
  // column_stats: the schema each newer value was written with (the blocks' schemas, held once).
  std::set<std::string, std::less<>> schemas;
  std::map<std::string, const std::string*> newer_schema;
  for (const auto& log : slice.log_files) {
    ARROW_ASSIGN_OR_RAISE(auto blocks, ReadLogFile(mdt, log, /*decode_hfile=*/false));
    std::set<std::string> rolled_back;
    for (const auto& b : blocks) {
      if (b.is_rollback) rolled_back.insert(b.target_instant_time);
    }
    for (const auto& b : blocks) {
      if (b.type == format::LogBlockType::kCorrupt) {
        return CorruptMetadata("metadata log file " + prefix + log + " has a damaged block");
      }
      const bool visible = slices.completed.count(b.instant_time) > 0 &&
                           (!is_valid_data_instant || is_valid_data_instant(b.instant_time)) &&
                           rolled_back.count(b.instant_time) == 0;
      if (!visible) continue;
      if (b.hfile) {
        ARROW_RETURN_NOT_OK(known(b.hfile_schema, "metadata log file " + prefix + log));
        ARROW_RETURN_NOT_OK(b.hfile->Scan([&](std::string_view key, std::string_view value) -> Status {
          auto [at, fresh] = newer.try_emplace(std::string(key));
          if (!fresh && at->second) {
            ARROW_RETURN_NOT_OK(must_replace(key, value, b.hfile_schema, "metadata log file " + prefix + log));
          }
          at->second = std::string(value);
          if (column_stats) newer_schema[at->first] = &*schemas.insert(b.hfile_schema).first;
          return Status::OK();
        }));
      }
      for (const auto& d : b.deletes) newer[d.record_key] = std::nullopt;
    }
  }
  // Then the base file, merged with them in key order into the new file.
  format::HFileWriter writer(options);
  writer.AddFileInfo("schema", schema);
  // An entry marked deleted has served its purpose once it shadows the older entry: dropped.
  auto keep = [&](std::string_view key, std::string_view value) -> Status {
    return format::IsDeletionMarker(value) ? Status::OK() : writer.Append(key, value);
  };
  auto it = newer.begin();
  auto flush_before = [&](std::string_view key) -> Status {
    for (; it != newer.end() && std::string_view(it->first) < key; ++it) {
      if (it->second) ARROW_RETURN_NOT_OK(keep(it->first, *it->second));
    }
    return Status::OK();
  };
  if (slice.base_file) {
    const std::string& path = slice.base_file->path;
    const std::string where = "metadata table file " + prefix + path;
    ARROW_ASSIGN_OR_RAISE(auto bytes, mdt.ReadFile(path));
    ARROW_ASSIGN_OR_RAISE(auto reader, format::HFileReader::Open(bytes, where));
    auto base_schema = reader->file_info().find("schema");
    if (base_schema == reader->file_info().end()) return CorruptMetadata(where + " has no schema in its file info");
    ARROW_RETURN_NOT_OK(known(base_schema->second, where));
    ARROW_RETURN_NOT_OK(reader->Scan([&](std::string_view key, std::string_view value) -> Status {
      ARROW_RETURN_NOT_OK(flush_before(key));
      if (it != newer.end() && it->first == key) {
        if (it->second) {
          if (auto written = newer_schema.find(it->first); written != newer_schema.end()) {
            ARROW_RETURN_NOT_OK(must_replace(key, *it->second, *written->second, "metadata table group " + group.file_id));
          }
          ARROW_RETURN_NOT_OK(keep(key, *it->second));
        }
        ++it;
        return Status::OK();
      }
      return keep(key, value);
    }));
  }
  for (; it != newer.end(); ++it) {
    if (it->second) ARROW_RETURN_NOT_OK(keep(it->first, *it->second));
  }
  return writer.Finish();
}

Result<std::map<std::string, MetadataBloomFilter>> ReadMetadataBloomFilters(
    const std::shared_ptr<Storage>& table, Engine& engine,
    const std::function<bool(const std::string&)>& is_valid_data_instant, const std::vector<std::string>* keys) {
  ARROW_ASSIGN_OR_RAISE(auto records, ReadMetadataRecords(table, engine, "bloom_filters", is_valid_data_instant, keys));
  std::map<std::string, MetadataBloomFilter> out;
  for (auto& [key, record] : records) {
    auto info = record.find("BloomFilterMetadata");
    if (info == record.end() || !info->is_object()) {
      return CorruptMetadata("the bloom_filters entry of '" + key + "' has no BloomFilterMetadata");
    }
    if (info->value("isDeleted", false)) continue;
    auto bytes = info->find("bloomFilter");
    if (bytes == info->end() || !bytes->is_binary()) {
      return CorruptMetadata("the bloom_filters entry of '" + key + "' has no filter bytes");
    }
    MetadataBloomFilter f;
    f.type_code = info->value("type", "");
    f.instant_time = info->value("timestamp", "");
    f.serialized.assign(bytes->get_binary().begin(), bytes->get_binary().end());
    out.emplace(key, std::move(f));
  }
  return out;
}

Result<std::map<std::string, RecordLocation>> ReadMetadataRecordIndex(
    const std::shared_ptr<Storage>& table, Engine& engine,
    const std::function<bool(const std::string&)>& is_valid_data_instant, const std::vector<std::string>* keys) {
  const std::vector<std::string_view> views = KeyViews(keys);
  return ReadMetadataPartition<RecordLocation>(table, engine, "record_index", DecodeLocation, Latest<RecordLocation>,
                                               is_valid_data_instant, SelectKeys(keys ? &views : nullptr));
}

Result<std::vector<std::optional<RecordLocation>>> LookupMetadataRecordIndex(
    const std::shared_ptr<Storage>& table, Engine& engine,
    const std::function<bool(const std::string&)>& is_valid_data_instant, const std::vector<std::string_view>& keys) {
  std::vector<std::optional<RecordLocation>> out;
  ARROW_RETURN_NOT_OK(ReadMetadataPartition<RecordLocation>(table, engine, "record_index", DecodeLocation,
                                                            Latest<RecordLocation>, is_valid_data_instant,
                                                            SelectKeys(&keys), &out)
                          .status());
  return out;
}

Result<MetadataFileListing> ReadMetadataFiles(const std::shared_ptr<Storage>& table, Engine& engine,
                                              const std::function<bool(const std::string&)>& is_valid_data_instant) {
  ARROW_ASSIGN_OR_RAISE(auto records, ReadMetadataPartition<nlohmann::json>(table, engine, kFilesPartition, DecodeJson,
                                                                            CombineFilesRecords, is_valid_data_instant));
  MetadataFileListing listing;
  auto name_of = [](const std::string& key) { return key == "." ? std::string() : key; };
  for (const auto& [key, record] : records) {
    ARROW_ASSIGN_OR_RAISE(auto files, LiveFiles(record, "the files entry of '" + key + "'"));
    if (key == kAllPartitions) {
      // Partitions the partition list names but no file record holds yet are empty.
      for (const auto& [partition, size] : files) listing.files.try_emplace(name_of(partition));
    } else {
      listing.files[name_of(key)] = std::move(files);
    }
  }
  return listing;
}

}  // namespace lakeshore
