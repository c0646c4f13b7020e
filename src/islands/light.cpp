// SPDX-License-Identifier: Apache-2.0
// Baked sky light of the island: how much of the sky each vertex sees, from a height field of
// the finished mesh, written into the vertex colours so the light survives any renderer.
// Based on: O. Stalberg's island generator talk (seeds/003, 38:57-40:26): the lighting is baked
// from a 3D field of the shape rather than computed by the engine, so the foot of a cliff, a
// gully or the ground beside a house reads darker than an open plateau.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "cityforge/islands/island.hpp"
#include "mesh_util.hpp"

namespace cityforge::islands {
namespace {

constexpr double kCellM = 0.25;         // Height field spacing.
constexpr std::uint32_t kAzimuths = 8;  // Directions searched for the horizon.
// Distances along each direction (metres): denser near the vertex, out to 3 m.
constexpr std::array<double, 8> kSteps{0.3, 0.45, 0.65, 0.9, 1.25, 1.7, 2.3, 3.0};
// Directions more than this far behind the surface (cosine with its horizontal normal) are
// not part of the sky it faces: a cliff face is lit by what lies in front of it.
constexpr double kBehind = -0.2;
// Rises smaller than this are the gentle lift of a level's floor, not something in the way.
constexpr double kRiseTolerance = 0.15;

// The highest up-facing surface over each point of a regular raster: every triangle that faces
// up writes its height at the raster points inside it.
struct HeightField {
  double x0 = 0, y0 = 0;
  std::uint32_t nx = 0, ny = 0;
  std::vector<float> top;  // -inf where nothing covers the point.

  double at(double x, double y) const {
    const double fx = (x - x0) * (1.0 / kCellM) + 0.5;  // Nearest raster point.
    const double fy = (y - y0) * (1.0 / kCellM) + 0.5;
    if (!(fx >= 0.0 && fy >= 0.0 && fx < nx && fy < ny)) {
      return -std::numeric_limits<double>::infinity();
    }
    return top[std::size_t{static_cast<std::uint32_t>(fy)} * nx + static_cast<std::uint32_t>(fx)];
  }
};

HeightField height_field(const IslandMesh& mesh) {
  HeightField f;
  if (mesh.positions.empty()) return f;
  double x1 = -1e300, y1 = -1e300;
  f.x0 = f.y0 = 1e300;
  for (const Vec3& p : mesh.positions) {
    f.x0 = std::min(f.x0, p.x);
    f.y0 = std::min(f.y0, p.y);
    x1 = std::max(x1, p.x);
    y1 = std::max(y1, p.y);
  }
  f.nx = static_cast<std::uint32_t>(std::ceil((x1 - f.x0) / kCellM)) + 1;
  f.ny = static_cast<std::uint32_t>(std::ceil((y1 - f.y0) / kCellM)) + 1;
  f.top.assign(std::size_t{f.nx} * f.ny, -std::numeric_limits<float>::infinity());
  for (std::size_t i = 0; i < mesh.triangles.size(); ++i) {
    const auto& t = mesh.triangles[i];
    const Vec3 n = face_normal(mesh, i);
    if (!(n.z > 1e-12)) continue;  // Walls and undersides cover no point from above.
    const Vec3& a = mesh.positions[t[0]];
    const Vec3& b = mesh.positions[t[1]];
    const Vec3& c = mesh.positions[t[2]];
    const auto lo = [&](double v, double o) {
      return static_cast<std::uint32_t>(std::max(0.0, std::ceil((v - o) / kCellM)));
    };
    const auto hi = [&](double v, double o, std::uint32_t n_max) {
      return std::min<std::uint32_t>(n_max - 1,
                                     static_cast<std::uint32_t>(std::floor((v - o) / kCellM)));
    };
    const std::uint32_t ix0 = lo(std::min({a.x, b.x, c.x}), f.x0);
    const std::uint32_t iy0 = lo(std::min({a.y, b.y, c.y}), f.y0);
    const double mx = std::max({a.x, b.x, c.x});
    const double my = std::max({a.y, b.y, c.y});
    if (mx < f.x0 || my < f.y0) continue;
    const std::uint32_t ix1 = hi(mx, f.x0, f.nx);
    const std::uint32_t iy1 = hi(my, f.y0, f.ny);
    const double det = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
    if (std::abs(det) < 1e-14) continue;
    for (std::uint32_t iy = iy0; iy <= iy1 && iy < f.ny; ++iy) {
      for (std::uint32_t ix = ix0; ix <= ix1 && ix < f.nx; ++ix) {
        const double x = f.x0 + ix * kCellM;
        const double y = f.y0 + iy * kCellM;
        const double u = ((x - a.x) * (c.y - a.y) - (c.x - a.x) * (y - a.y)) / det;
        const double v = ((b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y)) / det;
        if (u < -1e-9 || v < -1e-9 || u + v > 1.0 + 1e-9) continue;
        const auto z = static_cast<float>(a.z + u * (b.z - a.z) + v * (c.z - a.z));
        float& top = f.top[std::size_t{iy} * f.nx + ix];
        top = std::max(top, z);
      }
    }
  }
  return f;
}

}  // namespace

std::vector<float> sky_light(const IslandMesh& mesh) {
  const std::size_t n = mesh.positions.size();
  std::vector<Vec3> normal(n);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const Vec3 fn = face_normal(mesh, t);
    for (const std::uint32_t v : mesh.triangles[t])
      normal[v] = normal[v] + fn;
  }
  const HeightField field = height_field(mesh);
  std::array<Vec2, kAzimuths> dirs{};
  for (std::uint32_t k = 0; k < kAzimuths; ++k) {
    const double a = 2.0 * std::numbers::pi * k / kAzimuths;
    dirs[k] = {std::cos(a), std::sin(a)};
  }
  std::vector<float> light(n, 1.0f);
  for (std::size_t v = 0; v < n; ++v) {
    const Vec3 p = mesh.positions[v];
    const double h = std::hypot(normal[v].x, normal[v].y);
    const Vec2 facing = h > 1e-12 ? Vec2{normal[v].x / h, normal[v].y / h} : Vec2{0.0, 0.0};
    // Up-facing surfaces see the whole ring of directions; steep ones only what lies before
    // them, weighted by how much they face it.
    double seen = 0.0;
    double weight = 0.0;
    for (const Vec2& d : dirs) {
      const double front = d.x * facing.x + d.y * facing.y;
      if (h > 1e-12 && front < kBehind) continue;
      double horizon = 0.0;  // Sine of the highest elevation seen along d.
      for (const double r : kSteps) {
        const double z = field.at(p.x + d.x * r, p.y + d.y * r);
        const double rise = z - p.z - kRiseTolerance;
        if (!(rise > 0.0)) continue;
        horizon = std::max(horizon, rise / std::sqrt(rise * rise + r * r));
      }
      // A diffuse surface gets sin^2 of its light from below the horizon's elevation
      // (cosine-weighted): what blocks it low down matters little.
      seen += 1.0 - horizon * horizon;
      weight += 1.0;
    }
    light[v] = weight > 0.0 ? static_cast<float>(seen / weight) : 1.0f;
  }
  return light;
}

}  // namespace cityforge::islands
