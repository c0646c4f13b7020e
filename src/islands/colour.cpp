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

#include "cityforge/islands/island.hpp"

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
    const Rgb tile = tile_colour(m, base, cell, seed);
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
