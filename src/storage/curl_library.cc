#include "storage/curl_library_internal.h"

#include <dlfcn.h>

#include <string>

namespace lakeshore::s3_internal {
namespace {

constexpr const char* kLibraryName = "libcurl.so.4";

template <typename Fn>
Status Resolve(void* handle, const char* name, Fn* out) {
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) {
    return Status::IOError(kLibraryName, " has no symbol ", name, "; S3 conditional requests need libcurl >= 7.62");
  }
  *out = reinterpret_cast<Fn>(symbol);
  return Status::OK();
}

Result<CurlLibrary> Load() {
  // RTLD_DEEPBIND: libcurl's tree (libssl, libcrypto) binds to itself before the global scope,
  // where a program linked against pyarrow's libparquet has libparquet's OpenSSL copy.
  void* handle = ::dlopen(kLibraryName, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Status::IOError("cannot load ", kLibraryName, " (needed for S3 put-if-absent and batched deletes; "
                           "install the libcurl4 package): ", why ? why : "unknown error");
  }
  CurlLibrary lib;
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_global_init", &lib.global_init));
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_easy_init", &lib.easy_init));
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_easy_cleanup", &lib.easy_cleanup));
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_easy_reset", &lib.easy_reset));
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_easy_setopt", &lib.easy_setopt));
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_easy_perform", &lib.easy_perform));
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_easy_getinfo", &lib.easy_getinfo));
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_easy_strerror", &lib.easy_strerror));
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_slist_append", &lib.slist_append));
  ARROW_RETURN_NOT_OK(Resolve(handle, "curl_slist_free_all", &lib.slist_free_all));
  CURLcode rc = lib.global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) {
    return Status::IOError("curl_global_init failed: ", lib.easy_strerror(rc));
  }
  // The handle is never closed: libcurl lives as long as the process.
  return lib;
}

}  // namespace

Result<const CurlLibrary*> CurlLibrary::Get() {
  static const Result<CurlLibrary> loaded = Load();
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

}  // namespace lakeshore::s3_internal
