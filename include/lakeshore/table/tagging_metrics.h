// What tagging (finding where each incoming record already lives) cost one write.
#pragma once

#include <cstdint>
#include <string>

namespace lakeshore {

/// What tagging (finding where each incoming record lives) cost one write: per level of the
/// index, how many files it ruled out, and what it read.
struct TaggingMetrics {
  std::string index;                 ///< the index that tagged: simple, bloom, record_index; "" when none ran
  int64_t keys = 0;                  ///< keys looked up
  int64_t files_considered = 0;      ///< live file groups in the partitions the keys fall in
  int64_t files_pruned_by_range = 0; ///< ruled out by their key range (min, max)
  int64_t files_pruned_by_bloom = 0; ///< ruled out by their bloom filter (no key passed it)
  int64_t filters_loaded = 0;        ///< bloom filters read (footers or the metadata table)
  int64_t filter_batches = 0;        ///< batches the filters were loaded in (memory budget)
  int64_t keys_checked = 0;          ///< (key, file) candidates validated against key columns
  int64_t false_positives = 0;       ///< candidates a filter passed that the file does not hold
  int64_t files_read = 0;            ///< key columns read (validation, or the simple index's)
  int64_t found = 0;                 ///< keys found stored
  int64_t duration_ms = 0;
};

}  // namespace lakeshore
