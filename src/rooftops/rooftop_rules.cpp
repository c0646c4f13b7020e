// SPDX-License-Identifier: Apache-2.0
// Post-solve neighbour rules for rooftops (seeds/000, 43:31-43:52): "swapping wall materials,
// roof materials ... to create color variation" per rooftop structure, and "neighbor rules to
// place props on walls": an AC box, a pipe, a sign or a lamp on a structure wall that faces
// open deck.

#include <algorithm>
#include <array>
#include <numeric>

#include "rooftops/detail/rooftop_internal.hpp"

namespace cityforge::rooftops::detail {
namespace {

using wfc::CellId;
using wfc::Grid;
using wfc::kBoundary;
using wfc::kNegX;
using wfc::kNegY;
using wfc::kNegZ;
using wfc::kPosX;
using wfc::kPosY;
using wfc::kPosZ;
using wfc::Label;
using wfc::Model;
using wfc::Side;
using wfc::TileId;
using wfc::TileVariant;

constexpr SideMask bit(Label l) { return static_cast<SideMask>(1U << l); }

// One quarter turn counter-clockwise: +x -> +y -> -x -> -y -> +x; z sides stay.
SideMask turn(SideMask m) {
  SideMask out = m & (bit(kPosZ) | bit(kNegZ));
  if ((m & bit(kPosX)) != 0) out |= bit(kPosY);
  if ((m & bit(kPosY)) != 0) out |= bit(kNegX);
  if ((m & bit(kNegX)) != 0) out |= bit(kNegY);
  if ((m & bit(kNegY)) != 0) out |= bit(kPosX);
  return out;
}

SideMask mirror_x(SideMask m) {
  SideMask out = m & ~(bit(kPosX) | bit(kNegX));
  if ((m & bit(kPosX)) != 0) out |= bit(kNegX);
  if ((m & bit(kNegX)) != 0) out |= bit(kPosX);
  return static_cast<SideMask>(out);
}

// Walls of the unturned structure tiles (rooftop_kit.cpp builds them on these sides).
SideMask base_walls(const std::string& name) {
  if (name == "struct_wall" || name == "struct_window" || name == "struct_door") {
    return bit(kNegY);
  }
  if (name == "struct_corner") return bit(kNegX) | bit(kNegY);
  if (name == "struct_end") return bit(kNegX) | bit(kPosX) | bit(kNegY);
  if (name == "struct_corridor") return bit(kNegY) | bit(kPosY);
  return 0;
}

// `object`: a free-standing thing (tank and legs, antenna, bulkhead, shed) with its own colour;
// `other`: the roof's surface and its fittings (railings, vents, pipes, ...), one colour per
// roof so the paving does not turn into a patchwork.
enum class Kind : std::uint8_t { other, object, structure, structure_roof, door, deck };

Kind kind_of(const std::string& name) {
  if (name == "struct_door") return Kind::door;
  if (name.rfind("struct_", 0) == 0) return Kind::structure;
  if (name.rfind("roof_", 0) == 0) return Kind::structure_roof;
  if (name == "deck") return Kind::deck;
  if (name.rfind("tank", 0) == 0 || name.rfind("antenna", 0) == 0 || name == "bulkhead" ||
      name == "shed") {
    return Kind::object;
  }
  return Kind::other;
}

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t a) {
  while (parent[a] != a) {
    parent[a] = parent[parent[a]];
    a = parent[a];
  }
  return a;
}

}  // namespace

SideMask structure_walls(const Model& model, TileId tile) {
  if (tile >= model.tiles.size()) {
    return 0;
  }
  const TileVariant& v = model.tiles[tile];
  SideMask m = base_walls(model.base_names[v.base]);
  if (v.reflected) {
    m = mirror_x(m);
  }
  for (std::uint32_t r = 0; r < v.rotation % 4U; ++r) {
    m = turn(m);
  }
  return m;
}

RoofRules apply_rooftop_rules(const SolvedRoof& roof) {
  const Model& model = *roof.model;
  const Grid& grid = *roof.grid;
  const std::vector<TileId>& tiles = *roof.tiles;
  const std::uint32_t n = grid.cell_count;
  std::vector<Kind> base_kind(model.base_names.size());
  for (std::size_t i = 0; i < base_kind.size(); ++i) {
    base_kind[i] = kind_of(model.base_names[i]);
  }
  const auto kind = [&](CellId c) {
    return tiles[c] < model.tiles.size() ? base_kind[model.tiles[tiles[c]].base] : Kind::other;
  };
  std::vector<SideMask> walls(n);
  for (CellId c = 0; c < n; ++c) {
    walls[c] = structure_walls(model, tiles[c]);
  }
  // 1. Structures: level-0 structure cells joined across sides without a wall, and the
  //    structure roofs on them.
  std::vector<std::uint32_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0U);
  const auto is_structure = [&](CellId c) {
    const Kind k = kind(c);
    return k == Kind::structure || k == Kind::door || k == Kind::structure_roof;
  };
  for (CellId c = 0; c < n; ++c) {
    if (!is_structure(c)) {
      continue;
    }
    for (std::uint32_t s = grid.offsets[c]; s < grid.offsets[c + 1]; ++s) {
      const Side side = grid.sides[s];
      if (side.cell == kBoundary || side.cell < c || !is_structure(side.cell)) {
        continue;
      }
      const bool vertical = side.label == kPosZ || side.label == kNegZ;
      const bool open = (walls[c] & bit(side.label)) == 0 &&
                        (walls[side.cell] & bit(grid.opposite[side.label])) == 0;
      if (vertical || open) {
        const std::uint32_t a = find_root(parent, c);
        const std::uint32_t b = find_root(parent, side.cell);
        parent[std::max(a, b)] = std::min(a, b);
      }
    }
  }
  // 2. Colours: per structure (keyed by its lowest cell), per column for free-standing objects
  //    (a tank matches its legs), one for the roof's surface and fittings.
  RoofRules out;
  out.colour.resize(n);
  for (CellId c = 0; c < n; ++c) {
    std::uint64_t h = hash_combine(roof.seed, roof.object_id);
    if (is_structure(c)) {
      h = hash_combine(hash_combine(h, 0x5752U), find_root(parent, c));
    } else if (kind(c) == Kind::object) {
      h = hash_combine(hash_combine(hash_combine(h, 0xC01U), roof.cell_x[c]), roof.cell_y[c]);
    } else {
      h = hash_combine(h, 0xDEC);
    }
    out.colour[c] = static_cast<std::uint16_t>(h % kRooftopColours);
  }
  // 3. Wall props: an open deck cell beside a structure wall facing it (not a door) gets a
  //    prop on that wall with some chance; never in front of a door.
  Rng rng{roof.seed, Stage::wfc, roof.object_id, 0x400};
  static constexpr std::array<Label, 4> kOrder = {kNegY, kPosX, kPosY, kNegX};
  // Turns that bring -y to kOrder[i].
  static constexpr std::array<std::uint8_t, 4> kTurns = {0, 1, 2, 3};
  const auto prop_count = static_cast<std::uint32_t>(rooftop_prop_names().size());
  for (CellId c = 0; c < n; ++c) {
    if (roof.cell_z[c] != 0 || kind(c) != Kind::deck) {
      continue;
    }
    std::int32_t wall_side = -1;
    CellId wall_cell = kBoundary;
    bool by_door = false;
    for (int k = 0; k < 4; ++k) {
      for (std::uint32_t s = grid.offsets[c]; s < grid.offsets[c + 1]; ++s) {
        const Side side = grid.sides[s];
        if (side.label != kOrder[k] || side.cell == kBoundary) {
          continue;
        }
        const bool faces = (walls[side.cell] & bit(grid.opposite[side.label])) != 0;
        if (faces && kind(side.cell) == Kind::door) {
          by_door = true;
        } else if (faces && wall_side < 0) {
          wall_side = k;
          wall_cell = side.cell;
        }
      }
    }
    if (wall_side < 0 || by_door) {
      continue;
    }
    const double roll = rng.uniform01();
    const std::uint32_t which = rng.below(prop_count);
    if (roll < 0.35) {
      out.props.push_back({c, kTurns[wall_side], which, out.colour[wall_cell]});
    }
  }
  return out;
}

}  // namespace cityforge::rooftops::detail
