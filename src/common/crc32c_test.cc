#include "common/crc32c.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

namespace lakeshore {
namespace {

TEST(Crc32c, KnownValues) {
  for (auto kernel : {Crc32cKernel::kBest, Crc32cKernel::kPortable}) {
    EXPECT_EQ(Crc32c("123456789", kernel), 0xE3069283u);
    EXPECT_EQ(Crc32c("", kernel), 0u);
    EXPECT_EQ(Crc32c(std::string(32, '\0'), kernel), 0x8A9136AAu);
  }
}

// The interleaved streams and their joining, at every length around the stream boundaries and
// at HBase's 16 KiB chunks, from every alignment: the same value as the table.
TEST(Crc32c, FastKernelEqualsTheTableAtEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  std::string data(40000, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 1700; ++n) lengths.push_back(n);
  for (size_t n : {16383, 16384, 16385, 24 * 683, 24 * 683 + 7, 39990}) lengths.push_back(n);
  for (int i = 0; i < 200; ++i) lengths.push_back(rng() % 39000);
  for (size_t n : lengths) {
    for (size_t offset : {0, 1, 3, 7}) {
      const std::string_view bytes = std::string_view(data).substr(offset, n);
      ASSERT_EQ(Crc32c(bytes, Crc32cKernel::kBest), Crc32c(bytes, Crc32cKernel::kPortable))
          << "length " << n << ", offset " << offset;
    }
  }
}

}  // namespace
}  // namespace lakeshore
