// SPDX-License-Identifier: Apache-2.0
// The procedural surfaces: each a function from a point of its tile (metres) to a shade, a
// height (for the normal map) and a roughness, sampled at pixel centres. Every pattern and every
// noise repeats exactly over the tile, so the images tile without a seam.
#include "cityforge/materials/textures.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numbers>

#include "cityforge/core/rng.hpp"
#include "materials/detail/noise.hpp"

namespace cityforge::materials {
namespace {

using detail::fbm2;
using detail::hash01;
using detail::wrap;

/// What a surface is at one point.
struct Texel {
  double shade = 1.0;      ///< Base colour multiplier, sRGB-encoded grey in [0, 1].
  double height_m = 0.0;   ///< Relief, metres (only differences matter).
  double roughness = 1.0;  ///< Multiplier of the material's roughness, (0, 1].
  double metal = 1.0;      ///< Multiplier of the material's metalness.
};

/// Isotropic fbm2.
double fbm(std::uint64_t key, double u, double v, std::int64_t period, int octaves) {
  return fbm2(key, u, v, period, period, octaves);
}

/// 1 inside a band of half-width w around 0 of a periodic coordinate c (period p), fading over
/// `soft` at its edges; 0 elsewhere.
double groove(double c, double p, double w, double soft) {
  const double d = std::fabs(c - p * std::round(c / p));
  return std::clamp((w + soft - d) / soft, 0.0, 1.0);
}

constexpr std::uint64_t kKey = 0x6d617465'7269616cULL;  // "material"

Texel brick(double x, double y, double s) {
  constexpr double kLength = 0.25, kCourse = 1.0 / 14.0, kMortar = 0.005;
  const auto row = static_cast<std::int64_t>(std::floor(y / kCourse));
  const double xo = x + (wrap(row, 2) == 1 ? 0.5 * kLength : 0.0);
  const auto col = static_cast<std::int64_t>(std::floor(xo / kLength));
  const double joint =
      std::max(groove(xo, kLength, kMortar, 0.002), groove(y, kCourse, kMortar, 0.002));
  const double u = x / s, v = y / s;
  Texel t;
  const double own = 0.8 + 0.2 * hash01(kKey + 1, wrap(row, 14), wrap(col, 4));
  const double speckle = 0.05 * fbm(kKey + 2, u, v, 64, 2);
  t.shade = (1.0 - joint) * (own + speckle) + joint * (0.93 + 0.03 * fbm(kKey + 3, u, v, 32, 2));
  t.height_m = 0.004 * (1.0 - joint) + 0.0006 * fbm(kKey + 4, u, v, 64, 2);
  t.roughness = 0.9 + 0.1 * joint;
  return t;
}

Texel plaster(double x, double y, double s) {
  const double u = x / s, v = y / s;
  Texel t;
  t.shade = 0.9 + 0.05 * fbm(kKey + 10, u, v, 4, 4) + 0.02 * fbm(kKey + 11, u, v, 128, 2);
  t.height_m = 0.0012 * fbm(kKey + 12, u, v, 64, 3);
  t.roughness = 0.95;
  return t;
}

Texel concrete(double x, double y, double s) {
  const double u = x / s, v = y / s;
  // Formwork panels 1 m wide and 2 m tall (the tile), tie holes in a 0.5 m grid inside them.
  const double joint = std::max(groove(x, 1.0, 0.004, 0.002), groove(y, 2.0, 0.004, 0.002));
  const double hx = x - (std::floor(x / 0.5) + 0.5) * 0.5;
  const double hy = y - (std::floor(y / 0.5) + 0.5) * 0.5;
  const double hole = std::clamp((0.012 - std::hypot(hx, hy)) / 0.003, 0.0, 1.0);
  const double pore = hash01(kKey + 20, wrap(static_cast<std::int64_t>(x * 100.0), 200),
                             wrap(static_cast<std::int64_t>(y * 100.0), 200)) < 0.04
                          ? 1.0
                          : 0.0;
  Texel t;
  t.shade = 0.86 + 0.06 * fbm(kKey + 21, u, v, 3, 4) + 0.03 * fbm(kKey + 22, u, v, 96, 2) -
            0.12 * joint - 0.25 * hole - 0.08 * pore;
  t.height_m = -0.003 * joint - 0.008 * hole - 0.001 * pore + 0.0005 * fbm(kKey + 23, u, v, 96, 2);
  t.roughness = 0.85 + 0.1 * fbm(kKey + 24, u, v, 4, 2);
  return t;
}

Texel glass(double x, double y, double s) {
  const double u = x / s, v = y / s;
  Texel t;
  t.shade = 0.97 + 0.03 * fbm(kKey + 30, u, v, 2, 3);
  t.height_m = 0.0003 * fbm(kKey + 31, u, v, 2, 3);
  t.roughness = 0.6 + 0.3 * std::max(0.0, fbm(kKey + 32, u, v, 8, 3));  // smudges
  return t;
}

Texel metal(double x, double y, double s) {
  const double u = x / s, v = y / s;
  // Brushed along u: noise 64 times finer across the strokes (v) than along them.
  const double strokes = fbm2(kKey + 40, u, v, 4, 256, 2);
  Texel t;
  t.shade = 0.9 + 0.06 * strokes + 0.03 * fbm(kKey + 41, u, v, 4, 3);
  t.height_m = 0.0002 * strokes;
  t.roughness = 0.75 + 0.2 * fbm(kKey + 42, u, v, 8, 2);
  return t;
}

Texel wood(double x, double y, double s) {
  constexpr double kBoard = 0.125;
  const double u = x / s, v = y / s;
  const auto board = static_cast<std::int64_t>(std::floor(x / kBoard));
  const double gap = groove(x, kBoard, 0.003, 0.002);
  const double own = hash01(kKey + 50, wrap(board, 8), 0);
  const double grain = std::sin(2.0 * std::numbers::pi *
                                (x * 24.0 + 1.5 * fbm2(kKey + 51, u, v, 16, 4, 3) + own * 7.0));
  Texel t;
  t.shade = (1.0 - gap) * (0.78 + 0.12 * own + 0.08 * grain) + gap * 0.45;
  t.height_m = -0.003 * gap + 0.0003 * grain;
  t.roughness = 0.8 + 0.15 * gap;
  return t;
}

Texel asphalt(double x, double y, double s) {
  const double u = x / s, v = y / s;
  // Aggregate: one stone per 1.5 cm cell, some light, some dark.
  const auto ci = static_cast<std::int64_t>(std::floor(x / 0.015625));
  const auto cj = static_cast<std::int64_t>(std::floor(y / 0.015625));
  const double stone = hash01(kKey + 60, wrap(ci, 256), wrap(cj, 256));
  const double aggregate = stone < 0.12 ? 0.18 : (stone > 0.9 ? -0.12 : 0.0);
  const double wear = fbm(kKey + 61, u, v, 2, 4);
  Texel t;
  t.shade = 0.8 + aggregate + 0.1 * wear + 0.04 * fbm(kKey + 62, u, v, 128, 2);
  t.height_m = 0.0015 * (aggregate != 0.0 ? 1.0 : 0.0) + 0.0008 * fbm(kKey + 63, u, v, 128, 2);
  t.roughness = 0.92 - 0.12 * std::max(0.0, wear);  // polished where worn
  return t;
}

Texel paving(double x, double y, double s) {
  constexpr double kSlab = 0.5;
  const double u = x / s, v = y / s;
  const double joint = std::max(groove(x, kSlab, 0.004, 0.003), groove(y, kSlab, 0.004, 0.003));
  const auto i = static_cast<std::int64_t>(std::floor(x / kSlab));
  const auto j = static_cast<std::int64_t>(std::floor(y / kSlab));
  const double own = hash01(kKey + 70, wrap(i, 4), wrap(j, 4));
  Texel t;
  t.shade = (1.0 - joint) * (0.84 + 0.1 * own + 0.04 * fbm(kKey + 71, u, v, 64, 2)) + joint * 0.6;
  t.height_m = -0.004 * joint + 0.0004 * fbm(kKey + 72, u, v, 64, 2);
  t.roughness = 0.88 + 0.1 * joint;
  return t;
}

Texel roofing(double x, double y, double s) {
  const double u = x / s, v = y / s;
  const double seam = groove(x, 1.0, 0.02, 0.01);
  Texel t;
  t.shade = 0.88 + 0.05 * fbm(kKey + 80, u, v, 4, 4) -
            0.06 * std::max(0.0, fbm2(kKey + 81, u, v, 64, 8, 3)) + 0.04 * seam;
  t.height_m = 0.003 * seam + 0.0004 * fbm(kKey + 82, u, v, 64, 2);
  t.roughness = 0.8 - 0.1 * seam;
  return t;
}

Texel grass(double x, double y, double s) {
  const double u = x / s, v = y / s;
  const double blades = fbm(kKey + 90, u, v, 256, 2);
  const double clumps = fbm(kKey + 91, u, v, 8, 4);
  Texel t;
  t.shade = 0.78 + 0.12 * blades + 0.1 * clumps;
  t.height_m = 0.006 * blades + 0.01 * clumps;
  t.roughness = 1.0;
  return t;
}

Texel soil(double x, double y, double s) {
  const double u = x / s, v = y / s;
  const auto ci = static_cast<std::int64_t>(std::floor(x / 0.03125));
  const auto cj = static_cast<std::int64_t>(std::floor(y / 0.03125));
  const double pebble = hash01(kKey + 100, wrap(ci, 128), wrap(cj, 128)) < 0.06 ? 1.0 : 0.0;
  Texel t;
  t.shade = 0.8 + 0.1 * fbm(kKey + 101, u, v, 8, 4) + 0.12 * pebble;
  t.height_m = 0.004 * fbm(kKey + 102, u, v, 32, 3) + 0.006 * pebble;
  t.roughness = 1.0;
  return t;
}

Texel sand(double x, double y, double s) {
  const double u = x / s, v = y / s;
  const double ripple =
      std::sin(2.0 * std::numbers::pi * (y * 4.0 + 0.6 * fbm(kKey + 110, u, v, 4, 3)));
  Texel t;
  t.shade = 0.92 + 0.04 * fbm(kKey + 111, u, v, 128, 2) + 0.02 * ripple;
  t.height_m = 0.004 * ripple + 0.0005 * fbm(kKey + 112, u, v, 128, 2);
  t.roughness = 1.0;
  return t;
}

Texel sample(Surface surface, double x, double y, double s) {
  switch (surface) {
    case Surface::brick:
      return brick(x, y, s);
    case Surface::plaster:
      return plaster(x, y, s);
    case Surface::concrete:
      return concrete(x, y, s);
    case Surface::glass:
      return glass(x, y, s);
    case Surface::metal:
      return metal(x, y, s);
    case Surface::wood:
      return wood(x, y, s);
    case Surface::asphalt:
      return asphalt(x, y, s);
    case Surface::paving:
      return paving(x, y, s);
    case Surface::roofing:
      return roofing(x, y, s);
    case Surface::grass:
      return grass(x, y, s);
    case Surface::soil:
      return soil(x, y, s);
    case Surface::sand:
      return sand(x, y, s);
  }
  return {};
}

std::uint8_t byte(double v) {
  return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

double srgb_to_linear(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

}  // namespace

const char* to_string(Surface s) {
  static constexpr std::array<const char*, kSurfaceCount> kNames = {
      "brick",   "plaster", "concrete", "glass", "metal", "wood",
      "asphalt", "paving",  "roofing",  "grass", "soil",  "sand"};
  const auto i = static_cast<std::size_t>(s);
  return i < kNames.size() ? kNames[i] : "unknown";
}

bool surface_from_string(std::string_view name, Surface* out) {
  for (std::size_t i = 0; i < kSurfaceCount; ++i) {
    if (name == to_string(static_cast<Surface>(i))) {
      *out = static_cast<Surface>(i);
      return true;
    }
  }
  return false;
}

double repeat_m(Surface s) {
  switch (s) {
    case Surface::brick:
    case Surface::glass:
    case Surface::metal:
    case Surface::wood:
      return 1.0;
    case Surface::plaster:
    case Surface::concrete:
    case Surface::paving:
      return 2.0;
    case Surface::asphalt:
    case Surface::roofing:
    case Surface::grass:
    case Surface::soil:
    case Surface::sand:
      return 4.0;
  }
  return 1.0;
}

Result<Textures> make_textures(Surface surface, std::uint32_t size_px, const std::string& where) {
  if (size_px < 16 || size_px > 2048 || !std::has_single_bit(size_px)) {
    return Error::invalid_input(where, "texture size " + std::to_string(size_px) +
                                           " px: expected a power of two from 16 to 2048");
  }
  const std::size_t n = size_px;
  const double size_m = repeat_m(surface);
  const double px_m = size_m / static_cast<double>(n);
  std::vector<Texel> texels(n * n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n), [&](const auto& rows) {
    for (std::size_t j = rows.begin(); j != rows.end(); ++j) {
      for (std::size_t i = 0; i < n; ++i) {
        // Image row j is v = (j + 0.5) px from the top; the world y of the tile runs with v.
        texels[j * n + i] = sample(surface, (static_cast<double>(i) + 0.5) * px_m,
                                   (static_cast<double>(j) + 0.5) * px_m, size_m);
      }
    }
  });
  Textures t;
  t.surface = surface;
  t.size_m = size_m;
  for (Image* img : {&t.base_colour, &t.normal, &t.metallic_roughness}) {
    img->width = size_px;
    img->height = size_px;
    img->rgb.resize(n * n * 3);
  }
  double linear = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = j * n + i;
      const Texel& c = texels[k];
      const std::uint8_t grey = byte(c.shade);
      linear += srgb_to_linear(grey / 255.0);
      std::fill_n(t.base_colour.rgb.begin() + static_cast<std::ptrdiff_t>(3 * k), 3, grey);
      // Slopes by central differences, wrapping: x right (+u), y up the image (-v).
      const double dx =
          (texels[j * n + (i + 1) % n].height_m - texels[j * n + (i + n - 1) % n].height_m) /
          (2.0 * px_m);
      const double dy_down =
          (texels[((j + 1) % n) * n + i].height_m - texels[((j + n - 1) % n) * n + i].height_m) /
          (2.0 * px_m);
      const double nx = -dx;
      const double ny = dy_down;  // up the image is -v: -(-dh/dv)
      const double len = std::sqrt(nx * nx + ny * ny + 1.0);
      t.normal.rgb[3 * k] = byte(0.5 + 0.5 * nx / len);
      t.normal.rgb[3 * k + 1] = byte(0.5 + 0.5 * ny / len);
      t.normal.rgb[3 * k + 2] = byte(0.5 + 0.5 / len);
      t.metallic_roughness.rgb[3 * k] = 255;
      t.metallic_roughness.rgb[3 * k + 1] = byte(c.roughness);
      t.metallic_roughness.rgb[3 * k + 2] = byte(c.metal);
    }
  }
  t.mean_linear = linear / static_cast<double>(n * n);
  return t;
}

}  // namespace cityforge::materials
