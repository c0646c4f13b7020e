// SPDX-License-Identifier: Apache-2.0
// Procedural vertex colours of the island: a soft palette per material, varied per game tile,
// with thin darker lines along game-tile and material borders.
// Based on: O. Stalberg's island generator talk (seeds/003, 34:50-38:57): the look does not
// come from the tiles but is painted on afterwards with base colours per material, and lines
// internal to the shape (tile borders, material borders with more contrast) are drawn from the
// mesh. Here the lines are per-vertex darkening on the inset rings the mesh builder adds.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "cityforge/islands/island.hpp"
#include "mesh_util.hpp"

namespace cityforge::islands {
namespace {

constexpr std::uint64_t kColourStream = 0xC0105;  // Keeps colour draws off the grid's stream.
constexpr float kTileLine = 0.82f;                // Game-tile border.
constexpr float kMaterialLine = 0.6f;             // Material border.
constexpr float kSkyMin = 0.45f;  // Colour left where a vertex sees no sky (baked light).

using Rgb = std::array<float, 3>;

float srgb_to_linear(float c) {
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

// Base colour per material, chosen in sRGB (soft, saturated, Townscaper/Bad North-like).
Rgb base_colour(Material m) {
  std::array<int, 3> s{};
  switch (m) {
    case Material::grass:
      s = {138, 196, 92};
      break;
    case Material::sand:
      s = {236, 214, 160};
      break;
    case Material::rock:
      s = {158, 140, 124};
      break;
    case Material::water:
      s = {86, 170, 204};
      break;
    case Material::path:
      s = {222, 196, 146};
      break;
    case Material::wall:
      s = {244, 238, 226};
      break;
    case Material::roof:
      s = {204, 98, 74};
      break;
    case Material::wood:
      s = {140, 92, 60};
      break;
    case Material::leaves:
      s = {78, 138, 66};
      break;
    case Material::none:
      s = {180, 180, 180};
      break;
  }
  return {srgb_to_linear(static_cast<float>(s[0]) / 255.0f),
          srgb_to_linear(static_cast<float>(s[1]) / 255.0f),
          srgb_to_linear(static_cast<float>(s[2]) / 255.0f)};
}

// How much one game tile's colour of a material may wander: value and a warm/cool shift.
struct Variation {
  float value = 0.0f;
  float warm = 0.0f;
};
Variation spread(Material m) {
  switch (m) {
    case Material::grass:
      return {0.08f, 0.05f};
    case Material::sand:
      return {0.05f, 0.03f};
    case Material::rock:
      return {0.07f, 0.04f};
    case Material::roof:
      return {0.10f, 0.08f};
    case Material::leaves:
      return {0.10f, 0.06f};
    case Material::wood:
      return {0.08f, 0.04f};
    default:
      return {0.04f, 0.02f};
  }
}

// The tile's shade of its material: seeded per (cell, material), so a cell's grass and rock
// vary independently and every cell's draw is independent of the others.
Rgb tile_colour(Material m, const Rgb& b, std::uint32_t cell, Seed seed) {
  Rng rng{seed, Stage::islands, cell, kColourStream + static_cast<std::uint64_t>(m)};
  const Variation var = spread(m);
  const auto value = static_cast<float>(1.0 + rng.uniform(-var.value, var.value));
  const auto warm = static_cast<float>(rng.uniform(-var.warm, var.warm));
  return {b[0] * value * (1.0f + warm), b[1] * value, b[2] * value * (1.0f - warm)};
}

// The paint palette (EditKind::paint), in sRGB: Townscaper-like house colours.
Rgb paint_colour(std::uint32_t k) {
  static constexpr std::array<std::array<int, 3>, kPaintColours> kPalette{{
      {226, 96, 82},    // red
      {240, 160, 72},   // orange
      {244, 212, 96},   // yellow
      {140, 190, 110},  // green
      {96, 170, 196},   // blue
      {146, 122, 190},  // violet
      {232, 150, 170},  // pink
      {244, 238, 226},  // white
  }};
  const auto& s = kPalette[k % kPaintColours];
  return {srgb_to_linear(static_cast<float>(s[0]) / 255.0f),
          srgb_to_linear(static_cast<float>(s[1]) / 255.0f),
          srgb_to_linear(static_cast<float>(s[2]) / 255.0f)};
}

// Big blotches (seeds/003, 35:55-36:30: "I just paint big brush strokes and sample the colours
// and the normals where I paint the brush strokes but then just paint it on as a big square"):
// stamps at seeded vertices take the base colour there and paint it, part opaque, over every
// triangle corner within a cube around them whose triangle has the same material and faces the
// same way, so the tiles' shades bleed into each other in square-ish patches and the borders
// between shades turn wobbly instead of following the cells. They paint the shade (a factor
// on the base colour), so a painted column keeps its paint and its neighbours theirs.
constexpr std::uint64_t kBlotchStream = 0xB107C4;
constexpr double kStampChance = 0.05;   // Share of the vertices that carry a stamp.
constexpr double kStampMinM = 0.25;     // Half the side of a stamp's square, from...
constexpr double kStampMaxM = 0.5;      // ...to.
constexpr float kStampOpacity = 0.55f;  // How much of the stamp's colour covers a corner.
constexpr double kStampFacing = 0.7;    // Cosine between the normals it still paints across.

void paint_blotches(const IslandMesh& mesh, Seed seed, std::vector<std::array<Rgb, 3>>& base) {
  const std::size_t n = mesh.positions.size();
  if (n == 0) return;
  // Every vertex's triangle corners (t * 3 + k), and the triangles' unit normals.
  const VertexCorners around = vertex_corners(mesh);
  const std::vector<std::uint32_t>& start = around.start;
  const std::vector<std::uint32_t>& corners = around.corners;
  std::vector<Vec3> unit(mesh.triangles.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    unit[t] = normalize(face_normal(mesh, t));
  // Vertices bucketed on a grid of the largest stamp's side.
  Vec3 lo = mesh.positions[0];
  Vec3 hi = lo;
  for (const Vec3& p : mesh.positions) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  constexpr double kBucket = 2.0 * kStampMaxM;
  const auto dim = [&](double a, double b) {
    return static_cast<std::uint32_t>(std::floor((b - a) / kBucket)) + 1;
  };
  const std::uint32_t bx = dim(lo.x, hi.x), by = dim(lo.y, hi.y), bz = dim(lo.z, hi.z);
  // Clamped to the grid (a stamp's cube may reach past the mesh's bounds).
  const auto bucket_of = [&](const Vec3& p) {
    const auto index = [](double d, std::uint32_t count) {
      return std::min(static_cast<std::uint32_t>(std::max(0.0, d / kBucket)), count - 1);
    };
    return std::array<std::uint32_t, 3>{index(p.x - lo.x, bx), index(p.y - lo.y, by),
                                        index(p.z - lo.z, bz)};
  };
  const std::size_t buckets = std::size_t{bx} * by * bz;
  std::vector<std::uint32_t> bstart(buckets + 1, 0);
  const auto flat = [&](const std::array<std::uint32_t, 3>& b) {
    return (std::size_t{b[2]} * by + b[1]) * bx + b[0];
  };
  for (const Vec3& p : mesh.positions)
    ++bstart[flat(bucket_of(p)) + 1];
  for (std::size_t b = 0; b < buckets; ++b)
    bstart[b + 1] += bstart[b];
  std::vector<std::uint32_t> members(n);
  {
    std::vector<std::uint32_t> fill(bstart.begin(), bstart.end() - 1);
    for (std::uint32_t v = 0; v < n; ++v)
      members[fill[flat(bucket_of(mesh.positions[v]))]++] = v;
  }
  // One stream for the pass, two draws per vertex in vertex order (the mesh is built serially).
  Rng rng{seed, Stage::islands, 0, kBlotchStream};
  for (std::uint32_t v = 0; v < n; ++v) {
    const bool stamp = rng.chance(kStampChance);
    const double half = rng.uniform(kStampMinM, kStampMaxM);
    if (!stamp || start[v] == start[v + 1]) continue;
    const std::uint32_t source = corners[start[v]];  // Its first triangle corner.
    const std::uint32_t st = source / 3;
    const Material m = st < mesh.material.size() ? mesh.material[st] : Material::none;
    const Rgb colour = base[st][source % 3];
    const Vec3 normal = unit[st];
    const Vec3 c = mesh.positions[v];
    const auto b0 = bucket_of({c.x - half, c.y - half, c.z - half});
    const auto b1 = bucket_of({c.x + half, c.y + half, c.z + half});
    for (std::uint32_t iz = b0[2]; iz <= b1[2]; ++iz) {
      for (std::uint32_t iy = b0[1]; iy <= b1[1]; ++iy) {
        for (std::uint32_t ix = b0[0]; ix <= b1[0]; ++ix) {
          const std::size_t b = flat({ix, iy, iz});
          for (std::uint32_t i = bstart[b]; i < bstart[b + 1]; ++i) {
            const std::uint32_t w = members[i];
            const Vec3 p = mesh.positions[w];
            if (std::abs(p.x - c.x) > half || std::abs(p.y - c.y) > half ||
                std::abs(p.z - c.z) > half) {
              continue;
            }
            for (std::uint32_t j = start[w]; j < start[w + 1]; ++j) {
              const std::uint32_t t = corners[j] / 3;
              if (t >= mesh.material.size() || mesh.material[t] != m) continue;
              if (dot(unit[t], normal) < kStampFacing) continue;
              Rgb& to = base[t][corners[j] % 3];
              for (int k = 0; k < 3; ++k)
                to[k] += (colour[k] - to[k]) * kStampOpacity;
            }
          }
        }
      }
    }
  }
}

}  // namespace

void colour_island(IslandMesh& mesh, Seed seed, std::span<const std::uint8_t> paint,
                   std::uint32_t plane_cells) {
  const std::size_t tris = mesh.triangles.size();
  mesh.corner_colour.assign(tris, {});
  std::array<Rgb, static_cast<std::size_t>(Material::leaves) + 1> palette{};
  for (std::size_t m = 0; m < palette.size(); ++m)
    palette[m] = base_colour(static_cast<Material>(m));
  // A painted column's walls take the colour; one without walls, its grass.
  const auto plane_of = [&](std::size_t t) -> std::uint32_t {
    const std::uint32_t cell = t < mesh.cell.size() ? mesh.cell[t] : 0U;
    return plane_cells > 0 ? cell % plane_cells : 0U;
  };
  std::vector<std::uint8_t> has_wall;
  bool painted = false;
  for (const std::uint8_t p : paint)
    painted = painted || p != 0;
  if (painted && plane_cells > 0) {
    has_wall.assign(plane_cells, 0);
    for (std::size_t t = 0; t < tris && t < mesh.material.size(); ++t)
      if (mesh.material[t] == Material::wall) has_wall[plane_of(t)] = 1;
  }
  std::vector<std::array<Rgb, 3>> corner_base(tris);  // Shade factors per corner.
  std::vector<Rgb> tri_base(tris);                    // Base colour per triangle.
  for (std::size_t t = 0; t < tris; ++t) {
    const Material m = t < mesh.material.size() ? mesh.material[t] : Material::none;
    const std::uint32_t cell = t < mesh.cell.size() ? mesh.cell[t] : 0U;
    Rgb base = palette[static_cast<std::size_t>(m)];
    if (!has_wall.empty()) {
      const std::uint32_t pc = plane_of(t);
      const std::uint8_t p = pc < paint.size() ? paint[pc] : 0;
      if (p != 0 && (has_wall[pc] != 0 ? m == Material::wall : m == Material::grass)) {
        base = paint_colour(p - 1U);
      }
    }
    tri_base[t] = base;
    // The tile's shade as a factor on its base colour: the blotches smear the factors, so a
    // painted column's paint stays in it.
    const Rgb tile = tile_colour(m, {1.0f, 1.0f, 1.0f}, cell, seed);
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t v = mesh.triangles[t][k];
      Rgb c = tile;
      // Grass yellows and lightens a little with height, rock lightens: high ground reads
      // sunnier, as in the talk's islands.
      const float z = static_cast<float>(std::clamp(mesh.positions[v].z, 0.0, 6.0));
      if (m == Material::grass) {
        c = {c[0] * (1.0f + 0.05f * z), c[1] * (1.0f + 0.025f * z), c[2]};
      } else if (m == Material::rock) {
        c = {c[0] * (1.0f + 0.03f * z), c[1] * (1.0f + 0.03f * z), c[2] * (1.0f + 0.03f * z)};
      }
      corner_base[t][k] = c;
    }
  }
  paint_blotches(mesh, seed, corner_base);
  // Then the base colours, the lines and the baked light, over the blotches.
  for (std::size_t t = 0; t < tris; ++t) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t v = mesh.triangles[t][k];
      Rgb c = corner_base[t][k];
      for (int i = 0; i < 3; ++i)
        c[i] *= tri_base[t][i];
      const std::uint8_t line = v < mesh.line.size() ? mesh.line[v] : 0;
      float dark = line == 2 ? kMaterialLine : line == 1 ? kTileLine : 1.0f;
      if (v < mesh.sky.size()) dark *= 1.0f - (1.0f - mesh.sky[v]) * (1.0f - kSkyMin);
      for (float& channel : c)
        channel = std::clamp(channel * dark, 0.0f, 1.0f);
      mesh.corner_colour[t][k] = c;
    }
  }
}

}  // namespace cityforge::islands
