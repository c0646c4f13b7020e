// SPDX-License-Identifier: Apache-2.0
// What ranks send each other (ByteWriter / ByteReader) and the one-rank group.
#include "cityforge/core/ranks.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cityforge {
namespace {

TEST(Bytes, RoundTripValuesVectorsAndStrings) {
  ByteWriter w;
  w.put<std::uint64_t>(42);
  w.put(3.5);
  w.put_vector(std::vector<std::array<float, 3>>{{1, 2, 3}, {4, 5, 6}});
  w.put_vector(std::vector<std::uint32_t>{});
  w.put_string("tiles/3/1/2.glb");
  const std::string bytes = w.take();
  ByteReader r(bytes, "test");
  std::uint64_t n = 0;
  double d = 0;
  std::vector<std::array<float, 3>> v;
  std::vector<std::uint32_t> empty{7};
  std::string s;
  ASSERT_TRUE(r.get(n).ok());
  ASSERT_TRUE(r.get(d).ok());
  ASSERT_TRUE(r.get_vector(v).ok());
  ASSERT_TRUE(r.get_vector(empty).ok());
  ASSERT_TRUE(r.get_string(s).ok());
  EXPECT_TRUE(r.done());
  EXPECT_EQ(n, 42U);
  EXPECT_EQ(d, 3.5);
  ASSERT_EQ(v.size(), 2U);
  EXPECT_EQ(v[1][2], 6.0F);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(s, "tiles/3/1/2.glb");
}

TEST(Bytes, AShortOrLyingMessageIsAnErrorNotAReadPastTheEnd) {
  ByteWriter w;
  w.put<std::uint64_t>(1000000);  // Claims a million floats, holds none.
  const std::string lying = w.take();
  ByteReader r(lying, "rank 3's tiles");
  std::vector<float> v;
  const Status s = r.get_vector(v);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, "rank 3's tiles");
  const std::string three = "abc";
  ByteReader r2(three, "x");
  std::uint64_t n = 0;
  EXPECT_FALSE(r2.get(n).ok());
  std::string str;
  ByteReader r3(lying, "y");
  EXPECT_FALSE(r3.get_string(str).ok());
}

TEST(SingleRank, IsOneProcessAndAgreeReturnsItsOwnStatus) {
  const Ranks& one = single_rank();
  EXPECT_EQ(one.rank(), 0);
  EXPECT_EQ(one.size(), 1);
  EXPECT_EQ(one.gather("x"), std::vector<std::string>{"x"});
  EXPECT_EQ(one.broadcast("y"), "y");
  EXPECT_EQ(all_gather(one, "z"), std::vector<std::string>{"z"});
  EXPECT_TRUE(agree(one, Ok{}).ok());
  const Status failed = agree(one, Error::io("tiles/0/0/0.glb", "disk full"));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().to_string(), "tiles/0/0/0.glb: disk full") << "no rank prefix";
}

}  // namespace
}  // namespace cityforge
