// Helpers for table tests: a small schema, batch builders and a temp folder.
#pragma once

#include "timeline/commit_metadata.h"
#include "timeline/timeline.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <arrow/api.h>

#include "lakeshore/table/table.h"

namespace lakeshore::testing {

/// A fresh empty folder under the temp dir, removed on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& name);
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Schema {id int64, name string, ts int64, part string}; key id, partition part, ordering ts.
std::shared_ptr<arrow::Schema> PeopleSchema();
TableConfig PeopleConfig(bool partitioned = true);

/// One row of the people schema.
struct Person {
  int64_t id;
  std::string name;
  int64_t ts;
  std::string part;
  bool operator==(const Person&) const = default;
};

/// A reader over the given people rows.
std::shared_ptr<arrow::RecordBatchReader> PeopleReader(const std::vector<Person>& rows);
/// A reader with only id and part (the fields a delete needs).
std::shared_ptr<arrow::RecordBatchReader> KeysReader(const std::vector<std::pair<int64_t, std::string>>& keys);

/// Reads the table's latest snapshot into (part, id) -> Person.
std::map<std::pair<std::string, int64_t>, Person> ReadPeople(Table& table, const ReadOptions& options = {});

}  // namespace lakeshore::testing

namespace lakeshore::testing {

/// The timeline of a table Lakeshore writes (`.hoodie/timeline`, layout 2, Hudi's contents).
const TimelineLocation& TableTimeline();

/// The decoded content of `instant`'s file (Hudi's Avro), as the services see it. For a
/// pending rollback, the plan (read from its requested file).
Result<CommitMetadata> ReadInstant(Storage& storage, const Instant& instant);

}  // namespace lakeshore::testing

namespace lakeshore::testing {

/// An in-memory storage and a manual clock for a table under test, and open options over the
/// storage or over a wrapper of it (fault injection).
struct ClockedStorage {
  explicit ClockedStorage(int64_t start_ms) : clock(std::make_shared<ManualClock>(start_ms)) {}
  std::shared_ptr<ManualClock> clock;
  std::shared_ptr<Storage> inner;
  std::string uri;

  TableOpenOptions Options(std::shared_ptr<Storage> storage) const {
    TableOpenOptions o;
    o.clock = clock;
    o.storage_override = std::move(storage);
    return o;
  }
};

/// A people table on an in-memory storage with a manual clock, and the oracle of every completed
/// write: the snapshot as of each instant. For services that must change no read.
struct RecordedTable {
  explicit RecordedTable(const std::string& name);

  std::string uri;
  std::shared_ptr<Storage> storage;
  std::shared_ptr<ManualClock> clock;
  std::map<std::string, std::map<std::pair<std::string, int64_t>, Person>> as_of;

  /// Open options on the table's storage, or on `over` (a fault-injecting wrapper).
  TableOpenOptions Options(std::shared_ptr<Storage> over = nullptr) const;
  /// The table opened (null, with a test failure, when it does not open).
  std::shared_ptr<Table> Open(std::shared_ptr<Storage> over = nullptr) const;
  /// Records the snapshot after the write `r` (which must have succeeded), then moves the clock.
  void Record(Table& table, const Result<WriteResult>& r);
  /// Every recorded instant reads as recorded, and the snapshot as the last one.
  void ExpectReadsUnchanged(Table& table) const;
};

}  // namespace lakeshore::testing
