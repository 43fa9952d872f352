#include "common/digest.h"

#include <nettle/hmac.h>
#include <nettle/md5.h>
#include <nettle/sha2.h>

namespace lakeshore {
namespace {
const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }
}  // namespace

std::string Md5(std::string_view data) {
  md5_ctx ctx;
  md5_init(&ctx);
  md5_update(&ctx, data.size(), Bytes(data));
  std::string out(MD5_DIGEST_SIZE, '\0');
  md5_digest(&ctx, out.size(), reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

std::string Sha256(std::string_view data) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, data.size(), Bytes(data));
  std::string out(SHA256_DIGEST_SIZE, '\0');
  sha256_digest(&ctx, out.size(), reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  hmac_sha256_ctx ctx;
  hmac_sha256_set_key(&ctx, key.size(), Bytes(key));
  hmac_sha256_update(&ctx, data.size(), Bytes(data));
  std::string out(SHA256_DIGEST_SIZE, '\0');
  hmac_sha256_digest(&ctx, out.size(), reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

std::string HexLower(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

}  // namespace lakeshore
