// Internal: libcurl, loaded on first use with dlopen instead of linked.
//
// Debian's libcurl pulls in the system libssl/libcrypto. Linked into the module, they were
// loaded into the same symbol scope as pyarrow's libparquet, which carries its own OpenSSL with
// exported symbols; the system libcrypto's internal calls then bound to libparquet's copy and
// `import lakeshore; import hashlib` crashed. Loaded here with RTLD_LOCAL | RTLD_DEEPBIND, libcurl
// and its OpenSSL resolve their symbols in their own tree first, and nothing is loaded at all
// until an S3 request needs it.
#pragma once

#include <curl/curl.h>

#include "lakeshore/status.h"

namespace lakeshore::s3_internal {

/// The libcurl entry points Lakeshore uses, resolved from libcurl.so.4.
struct CurlLibrary {
  CURLcode (*global_init)(long flags) = nullptr;
  CURL* (*easy_init)() = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  void (*easy_reset)(CURL*) = nullptr;
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
  void (*slist_free_all)(curl_slist*) = nullptr;

  /// The process-wide library, loaded and initialized (curl_global_init) on the first call.
  /// IOError naming the library if it cannot be loaded or lacks a symbol; the same error on
  /// every later call. Thread-safe.
  static Result<const CurlLibrary*> Get();
};

}  // namespace lakeshore::s3_internal
