// The shared shape of Storage::OpenOutputStream streams: bytes are staged, Close publishes.
#pragma once

#include <arrow/io/interfaces.h>

#include "lakeshore/status.h"

namespace lakeshore {

/// An output stream whose content becomes visible only when Close publishes it. Subclasses
/// stage bytes (Append) and make them visible (Publish); this class counts the bytes, so Tell
/// still answers after Close with the final size, and makes Close idempotent.
class PublishOnCloseStream : public arrow::io::OutputStream {
 public:
  Status Close() final {
    if (closed_) return Status::OK();
    closed_ = true;
    return Publish();
  }
  bool closed() const final { return closed_; }
  Result<int64_t> Tell() const final { return position_; }
  Status Write(const void* data, int64_t nbytes) final {
    ARROW_RETURN_NOT_OK(Append(data, nbytes));
    position_ += nbytes;
    return Status::OK();
  }

 protected:
  virtual Status Append(const void* data, int64_t nbytes) = 0;
  virtual Status Publish() = 0;

 private:
  bool closed_ = false;
  int64_t position_ = 0;
};

}  // namespace lakeshore
