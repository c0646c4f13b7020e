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
#include <span>
#include <vector>

#include "beside.hpp"
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

std::vector<float> sky_from(const IslandMesh& mesh, const HeightField& field);
LightVolume volume_from(const IslandMesh& mesh, const HeightField& field);

}  // namespace

std::vector<float> sky_light(const IslandMesh& mesh) { return sky_from(mesh, height_field(mesh)); }

LightVolume light_volume(const IslandMesh& mesh) { return volume_from(mesh, height_field(mesh)); }

void bake_light(IslandMesh& mesh, LightVolume& volume) {
  const HeightField field = height_field(mesh);
  // The volume on a second thread while this one does the vertices (both only read the mesh
  // and the field; an interactive edit waits for both).
  std::vector<float> sky;
  run_beside([&] { volume = volume_from(mesh, field); }, [&] { sky = sky_from(mesh, field); });
  mesh.sky = std::move(sky);
}

namespace {

std::vector<float> sky_from(const IslandMesh& mesh, const HeightField& field) {
  const std::size_t n = mesh.positions.size();
  std::vector<Vec3> normal(n);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const Vec3 fn = face_normal(mesh, t);
    for (const std::uint32_t v : mesh.triangles[t])
      normal[v] = normal[v] + fn;
  }
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

/// Squared Euclidean distance transform along one line (Felzenszwalb and Huttenlocher's lower
/// envelope of parabolas): f holds squared distances (or kFar) at points `step` apart, and is
/// replaced by min_q (step (p - q))^2 + f(q). v, z and d are scratch of f.size() (+1 for z).
constexpr float kFar = 1e20f;

void distance_line(std::span<float> f, double step, std::vector<int>& v, std::vector<double>& z,
                   std::vector<float>& d) {
  const int n = static_cast<int>(f.size());
  const double s2 = step * step;
  int k = -1;
  for (int q = 0; q < n; ++q) {
    if (!(f[q] < kFar)) continue;
    const double fq = f[q] + s2 * q * q;
    double sq = -std::numeric_limits<double>::infinity();
    while (k >= 0) {
      const int p = v[k];
      sq = (fq - (f[p] + s2 * p * p)) / (2.0 * s2 * (q - p));
      if (sq > z[k]) break;
      --k;
    }
    ++k;
    v[k] = q;
    z[k] = k == 0 ? -std::numeric_limits<double>::infinity() : sq;
    z[k + 1] = std::numeric_limits<double>::infinity();
  }
  if (k < 0) return;  // No feature on this line: all stay far.
  int j = 0;
  for (int q = 0; q < n; ++q) {
    while (z[j + 1] < q)
      ++j;
    const double dq = step * (q - v[j]);
    d[q] = static_cast<float>(dq * dq + f[v[j]]);
  }
  std::copy(d.begin(), d.begin() + n, f.begin());
}

/// Squared distance (metres) from each voxel to the nearest voxel where `feature` is 1.
std::vector<float> distance_squared(const LightVolume& vol,
                                    const std::vector<std::uint8_t>& feature) {
  std::vector<float> f(vol.voxels());
  for (std::size_t i = 0; i < f.size(); ++i)
    f[i] = feature[i] != 0 ? 0.0f : kFar;
  const std::uint32_t longest = std::max({vol.nx, vol.ny, vol.nz});
  std::vector<int> v(longest);
  std::vector<double> z(longest + 1);
  std::vector<float> d(longest), line(longest);
  const auto pass = [&](std::uint32_t n, std::size_t stride, double step, std::size_t starts,
                        const auto& start_of) {
    for (std::size_t s = 0; s < starts; ++s) {
      const std::size_t base = start_of(s);
      for (std::uint32_t i = 0; i < n; ++i)
        line[i] = f[base + i * stride];
      distance_line(std::span(line.data(), n), step, v, z, d);
      for (std::uint32_t i = 0; i < n; ++i)
        f[base + i * stride] = line[i];
    }
  };
  const std::size_t nx = vol.nx, ny = vol.ny, nz = vol.nz;
  pass(vol.nx, 1, vol.step_xy, ny * nz, [&](std::size_t s) { return s * nx; });
  pass(vol.ny, nx, vol.step_xy, nx * nz,
       [&](std::size_t s) { return (s / nx) * nx * ny + s % nx; });
  pass(vol.nz, nx * ny, vol.step_z, nx * ny, [&](std::size_t s) { return s; });
  return f;
}

LightVolume volume_from(const IslandMesh& mesh, const HeightField& field) {
  LightVolume vol;
  vol.step_xy = kLightVoxelXyM;
  vol.step_z = kLightVoxelZM;
  if (mesh.positions.empty()) return vol;
  Vec3 lo{1e300, 1e300, 1e300}, hi{-1e300, -1e300, -1e300};
  for (const Vec3& p : mesh.positions) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  vol.origin = {lo.x - vol.step_xy, lo.y - vol.step_xy, lo.z - vol.step_z};
  const auto count = [](double span, double step, std::uint32_t extra) {
    return static_cast<std::uint32_t>(std::ceil(span / step)) + extra;
  };
  vol.nx = count(hi.x - lo.x, vol.step_xy, 3);
  vol.ny = count(hi.y - lo.y, vol.step_xy, 3);
  vol.nz = count(hi.z - lo.z, vol.step_z, 4);
  vol.cube.assign(vol.voxels(), {});
  vol.distance.assign(vol.voxels(), 0.0f);

  std::array<Vec2, kAzimuths> dirs{};
  for (std::uint32_t k = 0; k < kAzimuths; ++k) {
    const double a = 2.0 * std::numbers::pi * k / kAzimuths;
    dirs[k] = {std::cos(a), std::sin(a)};
  }
  // Side axes +x, -x, +y, -y: the azimuths they face (k = 0, 4, 2, 6) and their neighbours,
  // weighted by the cosine, normalised.
  constexpr std::array<std::uint32_t, 4> kAxisAzimuth{0, 4, 2, 6};
  const double w_side = 1.0 / (1.0 + 2.0 * std::numbers::sqrt2 / 2.0);
  const double w_next = (std::numbers::sqrt2 / 2.0) * w_side;
  std::array<double, kSteps.size()> inv_r{};
  for (std::size_t j = 0; j < kSteps.size(); ++j)
    inv_r[j] = 1.0 / kSteps[j];

  std::vector<std::uint8_t> solid(vol.voxels(), 0);
  std::vector<double> ground_of(std::size_t{vol.nx} * vol.ny);     // Per column, for the distances.
  std::array<std::array<double, kSteps.size()>, kAzimuths> rim{};  // Heights along each way.
  for (std::uint32_t iy = 0; iy < vol.ny; ++iy) {
    for (std::uint32_t ix = 0; ix < vol.nx; ++ix) {
      const double x = vol.origin.x + ix * vol.step_xy;
      const double y = vol.origin.y + iy * vol.step_xy;
      const double ground = field.at(x, y);  // -inf over the sea.
      ground_of[std::size_t{iy} * vol.nx + ix] = ground;
      double highest = -std::numeric_limits<double>::infinity();
      for (std::uint32_t k = 0; k < kAzimuths; ++k) {
        for (std::size_t j = 0; j < kSteps.size(); ++j) {
          rim[k][j] = field.at(x + dirs[k].x * kSteps[j], y + dirs[k].y * kSteps[j]);
          highest = std::max(highest, rim[k][j]);
        }
      }
      std::uint32_t first_open = vol.nz;
      for (std::uint32_t iz = 0; iz < vol.nz; ++iz) {
        const double z = vol.origin.z + iz * vol.step_z;
        const std::size_t i = vol.index(ix, iy, iz);
        if (z < ground) {
          solid[i] = 1;
          continue;
        }
        first_open = std::min(first_open, iz);
        // Per direction: the tangent of the horizon's elevation; then cos^2 h for +z and the
        // share a vertical surface facing that way gets, 1 - (2h + sin 2h) / pi.
        std::array<double, kAzimuths> up{}, side{};
        for (std::uint32_t k = 0; k < kAzimuths; ++k) {
          double t = 0.0;
          if (highest > z) {
            for (std::size_t j = 0; j < kSteps.size(); ++j)
              t = std::max(t, (rim[k][j] - z) * inv_r[j]);
          }
          const double c2 = 1.0 / (1.0 + t * t);
          up[k] = c2;
          side[k] = t > 0.0 ? 1.0 - (2.0 * std::atan(t) + 2.0 * t * c2) / std::numbers::pi : 1.0;
        }
        double sky_up = 0.0;
        for (const double u : up)
          sky_up += u;
        sky_up /= kAzimuths;
        const double bounce = kGroundAlbedo * sky_up;
        std::array<float, 6>& c = vol.cube[i];
        for (std::size_t a = 0; a < 4; ++a) {
          const std::uint32_t k = kAxisAzimuth[a];
          const double sky = w_side * side[k] + w_next * (side[(k + 1) % kAzimuths] +
                                                          side[(k + kAzimuths - 1) % kAzimuths]);
          c[a] = static_cast<float>(0.5 * sky + 0.5 * bounce);
        }
        c[4] = static_cast<float>(sky_up);
        c[5] = static_cast<float>(bounce);
      }
      // Under the ground: the light of the first voxel above it.
      for (std::uint32_t iz = 0; iz < std::min(first_open, vol.nz); ++iz) {
        vol.cube[vol.index(ix, iy, iz)] =
            first_open < vol.nz ? vol.cube[vol.index(ix, iy, first_open)] : std::array<float, 6>{};
      }
    }
  }

  // Signed distance: to the nearest voxel on the other side, less half a voxel (the surface
  // lies between the two centres), and never more than the height over (depth under) the
  // ground straight below (above): that is a distance to the surface too.
  std::vector<std::uint8_t> open(solid.size());
  for (std::size_t i = 0; i < solid.size(); ++i)
    open[i] = solid[i] == 0 ? 1 : 0;
  const std::vector<float> to_solid = distance_squared(vol, solid);
  const std::vector<float> to_open = distance_squared(vol, open);
  const double half = 0.5 * std::min(vol.step_xy, vol.step_z);
  constexpr double kNone = 1e9;  // No voxel of the other kind anywhere.
  for (std::uint32_t iy = 0; iy < vol.ny; ++iy) {
    for (std::uint32_t ix = 0; ix < vol.nx; ++ix) {
      const double ground = ground_of[std::size_t{iy} * vol.nx + ix];
      for (std::uint32_t iz = 0; iz < vol.nz; ++iz) {
        const std::size_t i = vol.index(ix, iy, iz);
        const double z = vol.origin.z + iz * vol.step_z;
        if (solid[i] == 0) {
          double d = to_solid[i] < kFar ? std::sqrt(to_solid[i]) - half : kNone;
          if (std::isfinite(ground)) d = std::min(d, z - ground);
          vol.distance[i] = static_cast<float>(std::max(0.0, d));
        } else {
          const double d =
              std::min(to_open[i] < kFar ? std::sqrt(to_open[i]) - half : kNone, ground - z);
          vol.distance[i] = static_cast<float>(-std::max(0.0, d));
        }
      }
    }
  }
  return vol;
}

}  // namespace

std::array<float, 6> LightVolume::cube_at(const Vec3& p) const {
  std::array<float, 6> out{};
  if (cube.empty()) return out;
  const auto axis = [](double v, double o, double step, std::uint32_t n, std::uint32_t& i0,
                       double& f) {
    const double u = std::clamp((v - o) / step, 0.0, static_cast<double>(n - 1));
    i0 = std::min(static_cast<std::uint32_t>(u), n > 1 ? n - 2 : 0);
    f = n > 1 ? u - i0 : 0.0;
  };
  std::uint32_t ix = 0, iy = 0, iz = 0;
  double fx = 0, fy = 0, fz = 0;
  axis(p.x, origin.x, step_xy, nx, ix, fx);
  axis(p.y, origin.y, step_xy, ny, iy, fy);
  axis(p.z, origin.z, step_z, nz, iz, fz);
  // Trilinear over the open corners only (renormalised): a corner under the ground holds the
  // light above the ground, which at the foot of a wall is the light on top of it. All
  // corners under the ground: plain trilinear.
  std::array<double, 6> sum{};
  double total = 0.0;
  for (const bool open_only : {true, false}) {
    for (std::uint32_t c = 0; c < 8; ++c) {
      const std::uint32_t dx = c & 1, dy = (c >> 1) & 1, dz = (c >> 2) & 1;
      const double w = (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy) * (dz ? fz : 1 - fz);
      const std::size_t i =
          index(std::min(ix + dx, nx - 1), std::min(iy + dy, ny - 1), std::min(iz + dz, nz - 1));
      if (w == 0.0 || (open_only && distance[i] < 0.0f)) continue;
      for (std::size_t a = 0; a < 6; ++a)
        sum[a] += w * cube[i][a];
      total += w;
    }
    if (total > 0.0) break;
  }
  for (std::size_t a = 0; a < 6 && total > 0.0; ++a)
    out[a] = static_cast<float>(sum[a] / total);
  return out;
}

float LightVolume::light_at(const Vec3& p, const Vec3& n) const {
  const std::array<float, 6> c = cube_at(p);
  return static_cast<float>(n.x * n.x * c[n.x >= 0 ? 0 : 1] + n.y * n.y * c[n.y >= 0 ? 2 : 3] +
                            n.z * n.z * c[n.z >= 0 ? 4 : 5]);
}

}  // namespace cityforge::islands
