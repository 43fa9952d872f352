#include "common/base64.h"

#include <array>
#include <cstdint>

#include <arrow/status.h>

namespace lakeshore {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr uint8_t kInvalid = 0xFF;

/// Each character's six bits, kInvalid for characters outside the alphabet ('=' included).
constexpr std::array<uint8_t, 256> DecodeTable() {
  std::array<uint8_t, 256> table{};
  for (auto& v : table) v = kInvalid;
  for (uint8_t i = 0; i < 64; ++i) table[static_cast<uint8_t>(kAlphabet[i])] = i;
  return table;
}
constexpr std::array<uint8_t, 256> kDecode = DecodeTable();
}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '=');
  const auto* in = reinterpret_cast<const uint8_t*>(bytes.data());
  char* o = out.data();
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (uint32_t{in[i + 1]} << 8) | in[i + 2];
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 63];
    o[2] = kAlphabet[(v >> 6) & 63];
    o[3] = kAlphabet[v & 63];
    o += 4;
  }
  if (const size_t rest = bytes.size() - i; rest > 0) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (rest == 2 ? uint32_t{in[i + 1]} << 8 : 0u);
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 63];
    if (rest == 2) o[2] = kAlphabet[(v >> 6) & 63];  // the rest stays '='
  }
  return out;
}

arrow::Result<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    return arrow::Status::Invalid("Base64 text of ", text.size(), " characters (not a multiple of 4)");
  }
  if (text.empty()) return std::string();
  const size_t padding = text.back() != '=' ? 0 : (text[text.size() - 2] == '=' ? 2 : 1);
  std::string out(text.size() / 4 * 3 - padding, '\0');
  auto* o = reinterpret_cast<uint8_t*>(out.data());
  const auto* in = reinterpret_cast<const uint8_t*>(text.data());
  const size_t whole = text.size() - (padding > 0 ? 4 : 0);  // groups without padding
  for (size_t i = 0; i < whole; i += 4) {
    const uint8_t a = kDecode[in[i]], b = kDecode[in[i + 1]], c = kDecode[in[i + 2]], d = kDecode[in[i + 3]];
    if (((a | b | c | d) & 0xC0) != 0) {  // kInvalid has these bits; no sextet does
      return arrow::Status::Invalid("Base64 text has a character outside the alphabet near offset ", i);
    }
    const uint32_t v = (uint32_t{a} << 18) | (uint32_t{b} << 12) | (uint32_t{c} << 6) | d;
    o[0] = static_cast<uint8_t>(v >> 16);
    o[1] = static_cast<uint8_t>(v >> 8);
    o[2] = static_cast<uint8_t>(v);
    o += 3;
  }
  if (padding > 0) {
    const size_t i = whole;
    const uint8_t a = kDecode[in[i]], b = kDecode[in[i + 1]];
    const uint8_t c = padding == 1 ? kDecode[in[i + 2]] : 0;
    if (((a | b | c) & 0xC0) != 0) {
      return arrow::Status::Invalid("Base64 text has a character outside the alphabet near offset ", i);
    }
    const uint32_t v = (uint32_t{a} << 18) | (uint32_t{b} << 12) | (uint32_t{c} << 6);
    o[0] = static_cast<uint8_t>(v >> 16);
    if (padding == 1) o[1] = static_cast<uint8_t>(v >> 8);
  }
  return out;
}

}  // namespace lakeshore
