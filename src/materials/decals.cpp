// SPDX-License-Identifier: Apache-2.0
// The procedural decals: each a function from a point of its quad ((x, y) in [0, 1], y down
// the image) to a colour, an opacity and, for cracks, a groove depth, sampled at pixel centres.
// Every opacity is multiplied by a border fade, so the outermost pixels are fully transparent.
#include "cityforge/materials/decals.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numbers>
#include <vector>

#include "materials/detail/noise.hpp"

namespace cityforge::materials {
namespace {

using detail::fbm2;
using detail::hash01;

constexpr std::uint64_t kDecalKey = 0x6465'6361'6c73'0001ULL;  // "decals"

/// What a decal is at one point.
struct DecalTexel {
  std::array<double, 3> rgb{};  ///< sRGB colour in [0, 1].
  double alpha = 0.0;
  double depth = 0.0;  ///< Groove depth in pixels of the image (cracks), for the normal map.
};

double smoothstep(double e0, double e1, double x) {
  const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

/// 1 inside, falling to 0 over `margin` at the quad's four borders (0 on the border itself).
double border(double x, double y, double margin) {
  return smoothstep(0.0, margin, x) * smoothstep(0.0, margin, 1.0 - x) *
         smoothstep(0.0, margin, y) * smoothstep(0.0, margin, 1.0 - y);
}

DecalTexel grime(double x, double y) {
  // Height above the ground as a share of the quad: the bottom row (y = 1) is the wall's foot.
  const double h = 1.0 - y;
  // Streaks: noise stretched along the height (rain running down soot), a splash band at the
  // foot, and large blotches so neighbouring pieces differ.
  const double streaks = fbm2(kDecalKey + 1, x, y * 0.15, 28, 2, 3);
  const double blotch = fbm2(kDecalKey + 2, x, y, 3, 3, 3);
  const double splash = std::exp(-h / 0.08) * (0.7 + 0.3 * fbm2(kDecalKey + 3, x, y, 64, 16, 2));
  const double rise = std::pow(1.0 - h, 1.2);
  DecalTexel t;
  t.alpha =
      0.8 * rise * std::clamp(0.65 + 0.55 * streaks + 0.25 * blotch, 0.0, 1.2) + 0.25 * splash;
  t.alpha = std::clamp(t.alpha, 0.0, 0.9) * smoothstep(0.0, 0.18, x) *
            smoothstep(0.0, 0.18, 1.0 - x) * smoothstep(0.0, 0.03, 1.0 - y);
  const double tone = 0.14 + 0.04 * blotch;
  t.rgb = {tone + 0.02, tone, tone - 0.02};  // brown-grey soot
  return t;
}

DecalTexel tyre_marks(double x, double y) {
  // Two tracks about 1.5 m apart on a lane-wide quad, each a few rubber streaks wide; they
  // darken toward +x (the stop line: braking) and break up along their length.
  double track = 0.0;
  for (const double centre : {0.27, 0.73}) {
    const double d = std::fabs(y - centre - 0.015 * fbm2(kDecalKey + 10, x, centre, 3, 1, 2));
    const double band = 1.0 - smoothstep(0.03, 0.09, d);
    const double streaks = 0.6 + 0.4 * fbm2(kDecalKey + 11, x, y, 4, 96, 2);
    // Each track breaks up along its own length (the noise read along the track's centre).
    const double patchy =
        std::clamp(0.75 + 0.5 * fbm2(kDecalKey + 12, x, centre, 12, 2, 3), 0.0, 1.0);
    track = std::max(track, band * streaks * patchy);
  }
  const double along = smoothstep(0.0, 0.6, x) * (1.0 - smoothstep(0.9, 1.0, x));
  DecalTexel t;
  t.alpha = 0.7 * track * (0.35 + 0.65 * along) * border(x, y, 0.04);
  t.rgb = {0.06, 0.06, 0.065};
  return t;
}

DecalTexel oil(double x, double y) {
  const double dx = x - 0.5, dy = y - 0.5;
  const double r = std::hypot(dx, dy);
  // A ragged rim (noise on the radius), a darker core, two drips beside the main stain.
  const double rim = 0.3 + 0.07 * fbm2(kDecalKey + 20, x, y, 5, 5, 3);
  double stain = 1.0 - smoothstep(rim - 0.05, rim, r);
  for (const auto& [cx, cy, cr] :
       {std::array<double, 3>{0.78, 0.36, 0.06}, std::array<double, 3>{0.27, 0.74, 0.045}}) {
    stain = std::max(stain, 1.0 - smoothstep(cr * 0.6, cr, std::hypot(x - cx, y - cy)));
  }
  const double core = 1.0 - smoothstep(0.0, rim, r);
  DecalTexel t;
  t.alpha = std::clamp(stain * (0.5 + 0.3 * core + 0.1 * fbm2(kDecalKey + 21, x, y, 32, 32, 2)),
                       0.0, 0.9) *
            border(x, y, 0.05);
  // A faint brown-violet sheen in the thin film near the rim.
  const double film = smoothstep(rim - 0.12, rim - 0.02, r);
  t.rgb = {0.05 + 0.04 * film, 0.045 + 0.02 * film, 0.05 + 0.05 * film};
  return t;
}

/// A crack: line segments with half widths, made once per image size.
struct Segment {
  double ax, ay, bx, by, half;
};

/// Distance from (x, y) to the segment.
double distance(const Segment& s, double x, double y) {
  const double vx = s.bx - s.ax, vy = s.by - s.ay;
  const double l2 = vx * vx + vy * vy;
  double t = l2 > 0.0 ? ((x - s.ax) * vx + (y - s.ay) * vy) / l2 : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  return std::hypot(x - (s.ax + t * vx), y - (s.ay + t * vy));
}

/// A main crack wandering across the quad and branches off it, all inside [0.08, 0.92].
std::vector<Segment> crack_segments(double px) {
  std::vector<Segment> out;
  std::uint64_t n = 0;
  const auto draw = [&] { return hash01(kDecalKey + 30, static_cast<std::int64_t>(n++), 0); };
  const auto inside = [](double v) { return v > 0.08 && v < 0.92; };
  const auto walk = [&](double x, double y, double angle, double length, double half, bool branch) {
    const double step = 0.025;
    for (double s = 0.0; s < length; s += step) {
      angle += (draw() - 0.5) * 0.9;
      const double nx = x + step * std::cos(angle), ny = y + step * std::sin(angle);
      if (!inside(nx) || !inside(ny)) return;
      out.push_back({x, y, nx, ny, std::max(half * (1.0 - 0.5 * s / length), 0.6 * px)});
      if (branch && draw() < 0.12) {
        const double side = draw() < 0.5 ? -1.0 : 1.0;
        const double a = angle + side * (0.5 + 0.7 * draw());
        const double len = 0.08 + 0.22 * draw();
        // Branches do not branch again (the lambda is not recursive): one level is enough.
        double bx = nx, by = ny, ba = a;
        for (double b = 0.0; b < len; b += step) {
          ba += (draw() - 0.5) * 0.9;
          const double ex = bx + step * std::cos(ba), ey = by + step * std::sin(ba);
          if (!inside(ex) || !inside(ey)) break;
          out.push_back({bx, by, ex, ey, std::max(half * 0.55 * (1.0 - b / len), 0.5 * px)});
          bx = ex;
          by = ey;
        }
      }
      x = nx;
      y = ny;
    }
  };
  walk(0.1, 0.35 + 0.3 * draw(), (draw() - 0.5) * 0.6, 0.95, 0.007, true);
  walk(0.5, 0.5, std::numbers::pi * (0.4 + 0.2 * draw()), 0.35, 0.005, true);
  return out;
}

DecalTexel crack(double x, double y, const std::vector<Segment>& segments, double px) {
  double d = 1.0;  // Distance beyond the nearest crack's edge.
  for (const Segment& s : segments) {
    // Cheap rejection by the segment's box.
    if (x < std::min(s.ax, s.bx) - 0.05 || x > std::max(s.ax, s.bx) + 0.05 ||
        y < std::min(s.ay, s.by) - 0.05 || y > std::max(s.ay, s.by) + 0.05)
      continue;
    d = std::min(d, distance(s, x, y) - s.half);
  }
  const double line = 1.0 - smoothstep(-0.5 * px, 1.0 * px, d);
  const double halo = 1.0 - smoothstep(0.0, 0.02, d);
  DecalTexel t;
  t.alpha = std::clamp(0.85 * line + 0.18 * halo, 0.0, 0.9) * border(x, y, 0.05);
  t.rgb = {0.07, 0.065, 0.06};
  t.depth = 3.0 * line;
  return t;
}

std::uint8_t decal_byte(double v) {
  return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

}  // namespace

const char* to_string(Decal d) {
  static constexpr std::array<const char*, kDecalCount> kNames = {"grime", "tyre_marks", "oil",
                                                                  "crack"};
  const auto i = static_cast<std::size_t>(d);
  return i < kNames.size() ? kNames[i] : "unknown";
}

bool decal_from_string(std::string_view name, Decal* out) {
  for (std::size_t i = 0; i < kDecalCount; ++i) {
    if (name == to_string(static_cast<Decal>(i))) {
      *out = static_cast<Decal>(i);
      return true;
    }
  }
  return false;
}

Result<DecalTextures> make_decal(Decal d, std::uint32_t size_px, const std::string& where) {
  if (size_px < 16 || size_px > 2048 || !std::has_single_bit(size_px)) {
    return Error::invalid_input(where, "decal size " + std::to_string(size_px) +
                                           " px: expected a power of two from 16 to 2048");
  }
  const std::size_t n = size_px;
  const double px = 1.0 / static_cast<double>(n);
  const std::vector<Segment> segments =
      d == Decal::crack ? crack_segments(px) : std::vector<Segment>{};
  std::vector<DecalTexel> texels(n * n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n), [&](const auto& rows) {
    for (std::size_t j = rows.begin(); j != rows.end(); ++j) {
      const double y = (static_cast<double>(j) + 0.5) * px;
      for (std::size_t i = 0; i < n; ++i) {
        const double x = (static_cast<double>(i) + 0.5) * px;
        DecalTexel& t = texels[j * n + i];
        switch (d) {
          case Decal::grime:
            t = grime(x, y);
            break;
          case Decal::tyre_marks:
            t = tyre_marks(x, y);
            break;
          case Decal::oil:
            t = oil(x, y);
            break;
          case Decal::crack:
            t = crack(x, y, segments, px);
            break;
        }
      }
    }
  });
  DecalTextures out;
  out.decal = d;
  out.has_normal = d == Decal::crack;
  out.roughness = d == Decal::oil ? 0.25 : 0.9;
  out.base_colour.width = out.base_colour.height = size_px;
  out.base_colour.channels = 4;
  out.base_colour.rgb.resize(n * n * 4);
  if (out.has_normal) {
    out.normal.width = out.normal.height = size_px;
    out.normal.rgb.resize(n * n * 3);
  }
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = j * n + i;
      const DecalTexel& t = texels[k];
      const bool edge = i == 0 || j == 0 || i + 1 == n || j + 1 == n;
      for (std::size_t c = 0; c < 3; ++c)
        out.base_colour.rgb[4 * k + c] = decal_byte(t.rgb[c]);
      out.base_colour.rgb[4 * k + 3] = edge ? 0 : decal_byte(t.alpha);
      if (!out.has_normal) continue;
      // The height is minus the depth; its slopes by central differences (clamped at the
      // borders), in pixels. As the surfaces' normal maps: nx = -dh/du, ny = +dh/dv (x right,
      // y up the image).
      const auto depth = [&](std::size_t a, std::size_t b) { return texels[b * n + a].depth; };
      const double nx = (depth(std::min(i + 1, n - 1), j) - depth(i > 0 ? i - 1 : 0, j)) * 0.5;
      const double ny = -(depth(i, std::min(j + 1, n - 1)) - depth(i, j > 0 ? j - 1 : 0)) * 0.5;
      const double len = std::sqrt(nx * nx + ny * ny + 1.0);
      out.normal.rgb[3 * k] = decal_byte(0.5 + 0.5 * nx / len);
      out.normal.rgb[3 * k + 1] = decal_byte(0.5 + 0.5 * ny / len);
      out.normal.rgb[3 * k + 2] = decal_byte(0.5 + 0.5 / len);
    }
  }
  return out;
}

}  // namespace cityforge::materials
