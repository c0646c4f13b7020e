// SPDX-License-Identifier: Apache-2.0
// The procedural textures: sizes, seamless tiling, normal maps, determinism, PNG round trip.
#include "cityforge/materials/textures.hpp"

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cityforge::materials {
namespace {

constexpr std::uint32_t kPx = 64;

Textures make(Surface s, std::uint32_t px = kPx) {
  Result<Textures> t = make_textures(s, px, "test");
  EXPECT_TRUE(t.ok()) << t.error().to_string();
  return t.ok() ? *t : Textures{};
}

/// Mean absolute difference of channel c between columns (or rows) a and b.
double step(const Image& img, std::uint32_t a, std::uint32_t b, bool columns, int c) {
  double sum = 0.0;
  for (std::uint32_t k = 0; k < img.height; ++k) {
    const std::size_t pa =
        columns ? (std::size_t{k} * img.width + a) : (std::size_t{a} * img.width + k);
    const std::size_t pb =
        columns ? (std::size_t{k} * img.width + b) : (std::size_t{b} * img.width + k);
    sum += std::abs(int{img.rgb[3 * pa + c]} - int{img.rgb[3 * pb + c]});
  }
  return sum / img.height;
}

TEST(Textures, EverySurfaceTilesWithoutASeam) {
  for (std::size_t i = 0; i < kSurfaceCount; ++i) {
    const auto s = static_cast<Surface>(i);
    const Textures t = make(s, 128);
    ASSERT_EQ(t.base_colour.rgb.size(), 128U * 128U * 3U) << to_string(s);
    EXPECT_GT(repeat_m(s), 0.0);
    EXPECT_EQ(t.size_m, repeat_m(s));
    EXPECT_GT(t.mean_linear, 0.2) << to_string(s);
    EXPECT_LE(t.mean_linear, 1.0) << to_string(s);
    // Across the wrap (last to first column or row) the image changes no more than between
    // any two neighbours inside it (a joint may lie on the tile's edge, as inside): a seam of
    // the noise would stand out by far.
    for (const Image* img : {&t.base_colour, &t.normal}) {
      for (const bool columns : {true, false}) {
        double inside = 0.0;
        for (std::uint32_t k = 0; k + 1 < 128; ++k)
          inside = std::max(inside, step(*img, k, k + 1, columns, 0));
        EXPECT_LE(step(*img, 127, 0, columns, 0), 1.1 * inside + 1.0)
            << to_string(s) << (columns ? " columns" : " rows");
      }
    }
  }
}

TEST(Textures, NormalMapsPointOutOfTheSurfaceAndShowTheRelief) {
  const Textures brick = make(Surface::brick, 256);
  std::size_t tilted = 0;
  for (std::size_t p = 0; p < brick.normal.rgb.size(); p += 3) {
    const double x = brick.normal.rgb[p] / 127.5 - 1.0;
    const double y = brick.normal.rgb[p + 1] / 127.5 - 1.0;
    const double z = brick.normal.rgb[p + 2] / 127.5 - 1.0;
    EXPECT_GT(z, 0.0);
    EXPECT_NEAR(x * x + y * y + z * z, 1.0, 0.03);
    tilted += z < 0.95 ? 1 : 0;
  }
  // The mortar joints' edges tilt the normal; the brick faces do not.
  EXPECT_GT(tilted, 256U * 8U);
  EXPECT_LT(tilted, 256U * 256U / 2U);
  // Roughness and metalness channels: multipliers in (0, 1].
  for (std::size_t p = 0; p < brick.metallic_roughness.rgb.size(); p += 3) {
    EXPECT_EQ(brick.metallic_roughness.rgb[p], 255);
    EXPECT_GT(brick.metallic_roughness.rgb[p + 1], 0);
  }
}

TEST(Textures, SameBytesEveryTimeAndEverySurfaceItsOwn) {
  for (std::size_t i = 0; i < kSurfaceCount; ++i) {
    const auto s = static_cast<Surface>(i);
    EXPECT_EQ(make(s).base_colour.rgb, make(s).base_colour.rgb) << to_string(s);
    EXPECT_EQ(make(s).normal.rgb, make(s).normal.rgb) << to_string(s);
    if (i > 0) {
      EXPECT_NE(make(s).base_colour.rgb, make(static_cast<Surface>(i - 1)).base_colour.rgb);
    }
    Surface back{};
    ASSERT_TRUE(surface_from_string(to_string(s), &back));
    EXPECT_EQ(back, s);
  }
  Surface none{};
  EXPECT_FALSE(surface_from_string("marble", &none));
}

TEST(Textures, SizesThatAreNotAPowerOfTwoAreRefused) {
  for (const std::uint32_t px : {0U, 8U, 100U, 4096U}) {
    Result<Textures> t = make_textures(Surface::brick, px, "export.textures");
    ASSERT_FALSE(t.ok()) << px;
    EXPECT_EQ(t.error().where, "export.textures");
    EXPECT_NE(t.error().message.find("power of two"), std::string::npos);
  }
}

TEST(Textures, PngReadsBackAsTheSameImage) {
  const Textures t = make(Surface::paving);
  Result<std::vector<std::uint8_t>> png = encode_png(t.base_colour, "paving.png");
  ASSERT_TRUE(png.ok()) << png.error().to_string();
  Result<std::vector<std::uint8_t>> again = encode_png(t.base_colour, "paving.png");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*png, *again);
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  ASSERT_NE(png_image_begin_read_from_memory(&image, png->data(), png->size()), 0);
  image.format = PNG_FORMAT_RGB;
  std::vector<std::uint8_t> pixels(PNG_IMAGE_SIZE(image));
  ASSERT_NE(png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr), 0);
  EXPECT_EQ(image.width, kPx);
  EXPECT_EQ(image.height, kPx);
  EXPECT_EQ(pixels, t.base_colour.rgb);
  Image bad;
  bad.width = 4;
  bad.height = 4;
  EXPECT_FALSE(encode_png(bad, "bad.png").ok());
}

}  // namespace
}  // namespace cityforge::materials
