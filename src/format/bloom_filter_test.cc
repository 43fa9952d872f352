#include "format/bloom_filter.h"

#include <gtest/gtest.h>

#include <random>

#include "common/digest.h"

namespace lakeshore::format {
namespace {

TEST(BloomFilter, MurmurHashIsHudisVariant) {
  // Values of the Python port of Hudi's MurmurHash that reproduced the filters in 30
  // Spark-written base files bit for bit (tail bytes read from the end, signed bytes).
  struct Case {
    std::string key;
    int32_t seed0, seed12345;
  };
  for (const Case& c : {Case{"", 0, 1907878902}, Case{"a", -1838653602, -579949966}, Case{"ab", 1525573013, -1822173170},
                        Case{"abc", 1775488903, -2108309701}, Case{"abcd", 646393889, 758563494},
                        Case{"id:1,name:Alice", 71696166, 533269829},
                        Case{"\xc3\xb8-\xc3\xa9-\xc3\xbc", -294611968, -621525075},
                        Case{"\xff\xfe\x80\x7f\x01", 1222592240, 543277501}}) {
    EXPECT_EQ(HudiMurmurHash(c.key, 0), c.seed0) << c.key;
    EXPECT_EQ(HudiMurmurHash(c.key, 12345), c.seed12345) << c.key;
  }
}

TEST(BloomFilter, SerializesExactlyAsSparkWrote) {
  // The footer filter of v9_txns_simple_overwrite's us/771732df-...parquet, which holds the
  // one key TXN-101: 431,380 Base64 characters, compared by digest.
  auto filter = BloomFilter::Make(BloomFilterType::kDynamicV0);
  ASSERT_TRUE(filter.ok());
  filter->Add("TXN-101");
  const std::string text = filter->Serialize();
  EXPECT_EQ(text.size(), 431380u);
  EXPECT_EQ(text.substr(0, 60), "/////wAAAB4BACd9PgAA6mAAAAABAAAAAf////8AAAAeAQAnfT4AAAAAAAAA");
  EXPECT_EQ(HexLower(Sha256(text)), "e1db3275c75d59882caeb77fdddbea9f661ad54d55dbf354db0c031e10521d2c");
}

TEST(BloomFilter, RoundTripsGrowsAndNeverForgetsAKey) {
  for (BloomFilterType type : {BloomFilterType::kSimple, BloomFilterType::kDynamicV0}) {
    auto filter = BloomFilter::Make(type, /*num_entries=*/100, /*fpp=*/0.001, /*max_entries=*/250);
    ASSERT_TRUE(filter.ok());
    for (int i = 0; i < 400; ++i) filter->Add("key-" + std::to_string(i));
    auto back = BloomFilter::Deserialize(filter->Serialize(), type == BloomFilterType::kSimple ? "" : "DYNAMIC_V0", "t");
    ASSERT_TRUE(back.ok()) << back.status();
    int false_positives = 0;
    for (int i = 0; i < 400; ++i) EXPECT_TRUE(back->MightContain("key-" + std::to_string(i))) << i;
    for (int i = 0; i < 1000; ++i) false_positives += back->MightContain("other-" + std::to_string(i));
    EXPECT_LT(false_positives, type == BloomFilterType::kSimple ? 1000 : 100);
    EXPECT_EQ(back->Serialize(), filter->Serialize());
  }
}

TEST(BloomFilter, ParallelAddAllEqualsSequentialAdds) {
  // 130,000 keys cross the dynamic filter's row growth (60,000) and its bound (100,000); 40,000
  // fill one row. Threads from 1 to 3: whole rows per thread, or shares of one row's keys.
  for (int count : {40000, 130000}) {
    std::vector<std::string> keys;
    for (int i = 0; i < count; ++i) keys.push_back("id:" + std::to_string(i * 7919 % 1000003));
    keys[5].clear();  // an empty key is skipped by both
    std::vector<std::string_view> views(keys.begin(), keys.end());
    auto one = BloomFilter::Make(BloomFilterType::kDynamicV0);
    ASSERT_TRUE(one.ok());
    for (const auto& k : keys) one->Add(k);
    for (int threads : {1, 2, 3}) {
      for (BloomHashKernel kernel : {BloomHashKernel::kBest, BloomHashKernel::kScalar}) {
        auto many = BloomFilter::Make(BloomFilterType::kDynamicV0);
        ASSERT_TRUE(many.ok());
        many->AddAll(views, threads, kernel);
        EXPECT_EQ(one->Serialize(), many->Serialize()) << count << " keys, " << threads << " threads";
      }
    }
  }
}

TEST(BloomFilter, HashKernelsAgreeWithTheReferenceHash) {
  // Keys of every length from 0 to 300 bytes (past the kernels' prepared-block bound), bytes
  // with the high bit set (Java's signed bytes), mixed in groups so vector lanes disagree on
  // length, and counts that leave partial groups; filter sizes near the modulo's edges.
  std::mt19937 random(7);
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) {
    const size_t length = i < 301 ? static_cast<size_t>(i) : random() % (i % 50 == 0 ? 300 : 40);
    std::string key(length, '\0');
    for (char& c : key) c = static_cast<char>(random());
    keys.push_back(key);
  }
  std::vector<std::string_view> views(keys.begin(), keys.end());
  for (uint32_t size : {1u, 7u, 2587032u, (1u << 30) - 1, 1u << 30}) {
    for (size_t count : {views.size(), size_t{13}, size_t{1}}) {
      const int32_t hashes = 30;
      std::vector<uint32_t> scalar(count * hashes), vector(count * hashes, 1u << 31);
      BloomBitPositions(views.data(), count, hashes, size, scalar.data(), BloomHashKernel::kScalar);
      BloomBitPositions(views.data(), count, hashes, size, vector.data(), BloomHashKernel::kAvx2);
      for (size_t i = 0; i < count; ++i) {
        int32_t seed = 0;
        for (int32_t k = 0; k < hashes; ++k) {
          seed = HudiMurmurHash(views[i], seed);
          const uint64_t magnitude = seed < 0 ? -static_cast<int64_t>(seed) : seed;
          const uint32_t expected = static_cast<uint32_t>(magnitude % size);
          ASSERT_EQ(scalar[static_cast<size_t>(k) * count + i], expected) << "size " << size << " key " << i;
          ASSERT_EQ(vector[static_cast<size_t>(k) * count + i], expected) << "size " << size << " key " << i;
        }
      }
    }
  }
}

TEST(BloomFilter, MalformedFiltersAreCleanErrors) {
  auto filter = BloomFilter::Make(BloomFilterType::kDynamicV0, 100, 0.01);
  ASSERT_TRUE(filter.ok());
  filter->Add("k");
  const std::string good = filter->Serialize();
  for (size_t n : {size_t{0}, size_t{4}, size_t{12}, good.size() / 2, good.size() - 4}) {
    auto bad = BloomFilter::Deserialize(good.substr(0, n), "DYNAMIC_V0", "cut");
    EXPECT_FALSE(bad.ok()) << n;
  }
  EXPECT_TRUE(IsError(BloomFilter::Deserialize("!!!", "", "x").status(), ErrorKind::kCorruptMetadata));
  EXPECT_TRUE(IsError(BloomFilter::Deserialize(good, "DYNAMIC_V9", "x").status(), ErrorKind::kUnsupportedFeature));
  EXPECT_FALSE(BloomFilter::Make(BloomFilterType::kSimple, 0).ok());
  EXPECT_FALSE(BloomFilter::Make(BloomFilterType::kSimple, 10, 1.5).ok());
}

TEST(BloomFilter, PrefixProbeAnswersExactlyAsMightContain) {
  // Shapes with fewer hashes than the prefix (fpp 0.3: 2 hashes) and more (Hudi's default
  // fpp: 30); a dynamic filter grown to several rows; members, and enough non-members to
  // include false positives.
  for (double fpp : {0.3, 0.01, BloomFilter::kDefaultFpp}) {
    for (BloomFilterType type : {BloomFilterType::kSimple, BloomFilterType::kDynamicV0}) {
      auto filter = BloomFilter::Make(type, /*num_entries=*/200, fpp, /*max_entries=*/600);
      ASSERT_TRUE(filter.ok());
      for (int i = 0; i < 700; ++i) filter->Add("key-" + std::to_string(i));
      std::vector<std::string> probes;
      for (int i = 0; i < 700; ++i) probes.push_back("key-" + std::to_string(i));
      for (int i = 0; i < 5000; ++i) probes.push_back("other-" + std::to_string(i));
      probes.emplace_back();  // the empty key: "might contain", as MightContain says
      std::vector<std::string_view> views(probes.begin(), probes.end());
      const auto prefixes = BloomFilter::ProbePrefixes(views.data(), views.size(), filter->num_hashes(),
                                                       filter->vector_size());
      int positives = 0;
      for (size_t i = 0; i < views.size(); ++i) {
        const bool expected = filter->MightContain(views[i]);
        ASSERT_EQ(filter->MightContain(views[i], prefixes.data() + i * BloomFilter::kProbePrefix), expected)
            << probes[i] << " fpp " << fpp;
        positives += expected;
      }
      EXPECT_GE(positives, 701);
      if (fpp == 0.3) EXPECT_GT(positives, 800);  // false positives were compared too
    }
  }
}

}  // namespace
}  // namespace lakeshore::format
