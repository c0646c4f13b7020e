// SPDX-License-Identifier: Apache-2.0
// The procedural decals: RGBA, transparent borders, a visible picture inside, the grime's fade
// upward, the crack's normal map, determinism and the RGBA PNG round trip.
#include "cityforge/materials/decals.hpp"

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

namespace cityforge::materials {
namespace {

DecalTextures make(Decal d, std::uint32_t px = 128) {
  Result<DecalTextures> t = make_decal(d, px, "test");
  EXPECT_TRUE(t.ok()) << t.error().to_string();
  return t.ok() ? *t : DecalTextures{};
}

std::uint8_t alpha(const Image& img, std::uint32_t i, std::uint32_t j) {
  return img.rgb[4 * (std::size_t{j} * img.width + i) + 3];
}

/// Mean alpha (0..1) over rows [j0, j1).
double mean_alpha(const Image& img, std::uint32_t j0, std::uint32_t j1) {
  double sum = 0.0;
  for (std::uint32_t j = j0; j < j1; ++j) {
    for (std::uint32_t i = 0; i < img.width; ++i)
      sum += alpha(img, i, j);
  }
  return sum / (255.0 * img.width * (j1 - j0));
}

TEST(Decals, NamesRoundTrip) {
  for (std::size_t i = 0; i < kDecalCount; ++i) {
    const auto d = static_cast<Decal>(i);
    Decal back{};
    ASSERT_TRUE(decal_from_string(to_string(d), &back));
    EXPECT_EQ(back, d);
  }
  Decal none{};
  EXPECT_FALSE(decal_from_string("brick", &none));
  EXPECT_STREQ(to_string(Decal::tyre_marks), "tyre_marks");
}

TEST(Decals, RgbaWithTransparentBordersAndAVisiblePicture) {
  for (std::size_t k = 0; k < kDecalCount; ++k) {
    const auto d = static_cast<Decal>(k);
    SCOPED_TRACE(to_string(d));
    const DecalTextures t = make(d);
    const Image& img = t.base_colour;
    ASSERT_EQ(img.channels, 4U);
    ASSERT_EQ(img.rgb.size(), 128U * 128U * 4U);
    for (std::uint32_t i = 0; i < 128; ++i) {
      EXPECT_EQ(alpha(img, i, 0), 0) << i;
      EXPECT_EQ(alpha(img, i, 127), 0) << i;
      EXPECT_EQ(alpha(img, 0, i), 0) << i;
      EXPECT_EQ(alpha(img, 127, i), 0) << i;
    }
    // Two pixels in, still faint: the picture fades out, it is not cut off.
    for (std::uint32_t i = 0; i < 128; ++i) {
      EXPECT_LE(alpha(img, i, 2), 80) << i;
      EXPECT_LE(alpha(img, 2, i), 80) << i;
    }
    std::uint8_t most = 0;
    double dark = 0.0, covered = 0.0;
    for (std::size_t p = 0; p < 128U * 128U; ++p) {
      const std::uint8_t a = img.rgb[4 * p + 3];
      most = std::max(most, a);
      covered += a;
      dark += a * (img.rgb[4 * p] + img.rgb[4 * p + 1] + img.rgb[4 * p + 2]) / 3.0;
    }
    EXPECT_GE(most, 120) << "nothing visible";
    // Dirt is dark: the covered part's mean colour is well below mid grey.
    EXPECT_LT(dark / covered, 70.0);
    // Not a filled rectangle: a share of the quad is (nearly) clear.
    std::size_t clear = 0;
    for (std::size_t p = 0; p < 128U * 128U; ++p)
      clear += img.rgb[4 * p + 3] < 20 ? 1 : 0;
    EXPECT_GT(clear, 128U * 128U / 10U);
    EXPECT_GT(t.roughness, 0.0);
    EXPECT_LE(t.roughness, 1.0);
  }
  EXPECT_LT(make(Decal::oil).roughness, make(Decal::grime).roughness) << "oil is glossy";
}

TEST(Decals, GrimeFadesUpwardFromTheFoot) {
  const Image img = make(Decal::grime).base_colour;
  // Row 0 is the top; the last rows stand on the ground.
  EXPECT_GT(mean_alpha(img, 96, 124), 3.0 * mean_alpha(img, 4, 32));
  EXPECT_GT(mean_alpha(img, 96, 124), 0.2);
}

TEST(Decals, TyreMarksAreTwoTracksAlongU) {
  const Image img = make(Decal::tyre_marks).base_colour;
  // Across the quad near its front (u = 0.6..0.9, toward the stop line): two dark bands with
  // clear road between and beside them.
  const auto at = [&](double v) {
    double sum = 0.0;
    for (std::uint32_t i = 77; i < 115; ++i)
      sum += alpha(img, i, static_cast<std::uint32_t>(v * 127));
    return sum / 38.0;
  };
  EXPECT_GT(at(0.27), 40.0);
  EXPECT_GT(at(0.73), 40.0);
  EXPECT_LT(at(0.5), 10.0);
  EXPECT_LT(at(0.1), 10.0);
}

TEST(Decals, OnlyTheCrackHasANormalMapAndItShowsTheGroove) {
  for (std::size_t k = 0; k < kDecalCount; ++k) {
    const DecalTextures t = make(static_cast<Decal>(k));
    EXPECT_EQ(t.has_normal, static_cast<Decal>(k) == Decal::crack);
    EXPECT_EQ(t.normal.rgb.empty(), !t.has_normal);
  }
  const DecalTextures crack = make(Decal::crack);
  ASSERT_EQ(crack.normal.channels, 3U);
  std::size_t tilted = 0;
  for (std::size_t p = 0; p < 128U * 128U; ++p) {
    EXPECT_GT(crack.normal.rgb[3 * p + 2], 128) << "points out of the surface";
    tilted += crack.normal.rgb[3 * p + 2] < 250 ? 1 : 0;
  }
  EXPECT_GT(tilted, 50U);
}

TEST(Decals, DeterministicAndSizesChecked) {
  for (std::size_t k = 0; k < kDecalCount; ++k) {
    const auto d = static_cast<Decal>(k);
    const DecalTextures a = make(d, 64);
    const DecalTextures b = make(d, 64);
    EXPECT_EQ(a.base_colour.rgb, b.base_colour.rgb) << to_string(d);
    EXPECT_EQ(a.normal.rgb, b.normal.rgb) << to_string(d);
  }
  for (const std::uint32_t bad : {0U, 8U, 100U, 4096U}) {
    Result<DecalTextures> t = make_decal(Decal::oil, bad, "export.textures");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_NE(t.error().to_string().find("export.textures"), std::string::npos);
  }
}

TEST(Decals, EncodesAsAnRgbaPngThatReadsBack) {
  const Image img = make(Decal::oil, 64).base_colour;
  Result<std::vector<std::uint8_t>> png = encode_png(img, "test");
  ASSERT_TRUE(png.ok()) << png.error().to_string();
  png_image read;
  std::memset(&read, 0, sizeof(read));
  read.version = PNG_IMAGE_VERSION;
  ASSERT_NE(png_image_begin_read_from_memory(&read, png->data(), png->size()), 0);
  EXPECT_EQ(read.width, 64U);
  EXPECT_NE(read.format & PNG_FORMAT_FLAG_ALPHA, 0U);
  read.format = PNG_FORMAT_RGBA;
  std::vector<std::uint8_t> pixels(PNG_IMAGE_SIZE(read));
  ASSERT_NE(png_image_finish_read(&read, nullptr, pixels.data(), 0, nullptr), 0);
  EXPECT_EQ(pixels, img.rgb);
  // A wrong channel count is refused.
  Image odd = img;
  odd.channels = 2;
  EXPECT_FALSE(encode_png(odd, "test").ok());
}

TEST(Decals, Figures) {
  // Prints the time to make and encode all four at 256 px (no timed assertion).
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t bytes = 0;
  for (std::size_t k = 0; k < kDecalCount; ++k) {
    const DecalTextures t = make(static_cast<Decal>(k), 256);
    for (const Image* img : {&t.base_colour, &t.normal}) {
      if (img->rgb.empty()) continue;
      Result<std::vector<std::uint8_t>> png = encode_png(*img, "test");
      ASSERT_TRUE(png.ok());
      bytes += png->size();
    }
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "decals at 256 px: " << ms << " ms to make and encode, " << bytes << " PNG bytes\n";
  // CITYFORGE_DECAL_DIR=DIR: also writes the pictures there to look at.
  if (const char* dir = std::getenv("CITYFORGE_DECAL_DIR")) {
    for (std::size_t k = 0; k < kDecalCount; ++k) {
      const DecalTextures t = make(static_cast<Decal>(k), 256);
      for (const Image* img : {&t.base_colour, &t.normal}) {
        if (img->rgb.empty()) continue;
        const std::string name = std::string(dir) + "/" + to_string(static_cast<Decal>(k)) +
                                 (img == &t.normal ? ".normal.png" : ".png");
        Result<std::vector<std::uint8_t>> png = encode_png(*img, name);
        ASSERT_TRUE(png.ok());
        std::ofstream(name, std::ios::binary)
            .write(reinterpret_cast<const char*>(png->data()),
                   static_cast<std::streamsize>(png->size()));
      }
    }
  }
}

}  // namespace
}  // namespace cityforge::materials
