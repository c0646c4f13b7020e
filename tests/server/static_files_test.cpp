// SPDX-License-Identifier: Apache-2.0
// The static file server's path and range rules: nothing outside a root is ever named.
#include "server/static_files.hpp"

#include <gtest/gtest.h>

namespace cityforge::server::detail {
namespace {

TEST(StaticFiles, DecodesAndRefusesClimbing) {
  EXPECT_EQ(*url_decode("/a%20b"), "/a b");
  EXPECT_FALSE(url_decode("/a%2"));
  EXPECT_FALSE(url_decode("/a%00b"));
  EXPECT_EQ(*safe_relative("//etc/passwd"), std::filesystem::path("etc/passwd"));
  EXPECT_FALSE(safe_relative("a/../../b"));
  EXPECT_FALSE(safe_relative(*url_decode("/%2e%2e/x")));
  EXPECT_TRUE(inside("/srv/city", "/srv/city/a/b.json"));
  EXPECT_FALSE(inside("/srv/city", "/srv/other/b.json"));
  EXPECT_EQ(content_type("x/city.glb"), "model/gltf-binary");
  EXPECT_EQ(content_type("x/unknown.zzz"), "application/octet-stream");
}

TEST(StaticFiles, SingleByteRanges) {
  ByteRange r;
  ASSERT_EQ(parse_range("bytes=10-19", 100, &r), RangeResult::ok);
  EXPECT_EQ(r.first, 10u);
  EXPECT_EQ(r.last, 19u);
  ASSERT_EQ(parse_range("bytes=90-", 100, &r), RangeResult::ok);
  EXPECT_EQ(r.last, 99u);
  ASSERT_EQ(parse_range("bytes=-5", 100, &r), RangeResult::ok);
  EXPECT_EQ(r.first, 95u);
  EXPECT_EQ(parse_range("bytes=100-", 100, &r), RangeResult::unsatisfiable);
  EXPECT_EQ(parse_range("bytes=1-2,4-5", 100, &r), RangeResult::none);
  EXPECT_EQ(parse_range("items=1-2", 100, &r), RangeResult::none);
}

}  // namespace
}  // namespace cityforge::server::detail
