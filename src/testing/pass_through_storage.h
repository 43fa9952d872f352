// Test support: a Storage that forwards every call, for tests that disturb a few of them (a
// concurrent writer acting at one exact call).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lakeshore/storage/storage.h"

namespace lakeshore::testing {

/// Forwards every call to `inner`; tests override the calls they want to disturb.
class PassThroughStorage : public Storage {
 public:
  explicit PassThroughStorage(std::shared_ptr<Storage> inner) : inner_(std::move(inner)) {}
  std::string root_uri() const override { return inner_->root_uri(); }
  std::string ExternalPath(std::string_view p) const override { return inner_->ExternalPath(p); }
  Result<std::shared_ptr<arrow::Buffer>> ReadFile(std::string_view p) override { return inner_->ReadFile(p); }
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(std::string_view p,
                                                                     std::optional<int64_t> size) override {
    return inner_->OpenInputFile(p, size);
  }
  Status WriteFile(std::string_view p, std::shared_ptr<arrow::Buffer> d) override {
    return inner_->WriteFile(p, std::move(d));
  }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(std::string_view p) override {
    return inner_->OpenOutputStream(p);
  }
  Result<bool> PutIfAbsent(std::string_view p, std::shared_ptr<arrow::Buffer> d) override {
    return inner_->PutIfAbsent(p, std::move(d));
  }
  Result<std::optional<FileEntry>> GetFileInfo(std::string_view p) override { return inner_->GetFileInfo(p); }
  Result<std::vector<FileEntry>> List(std::string_view p, bool r) override { return inner_->List(p, r); }
  Result<DeleteOutcome> DeleteFiles(const std::vector<std::string>& p) override { return inner_->DeleteFiles(p); }
  Result<bool> DeleteDirIfEmpty(std::string_view p) override { return inner_->DeleteDirIfEmpty(p); }

 protected:
  std::shared_ptr<Storage> inner_;
};

}  // namespace lakeshore::testing
