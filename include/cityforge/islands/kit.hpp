// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/islands/island.hpp"

/// Island tile kits (docs/islands.md "Tile kits"): the base tiles of a tile set as meshes with
/// a few declared facts, read from and written to one glTF binary file, as an artist exports
/// them from Blender (seeds/003, 10:42-10:57: tiles built in a modelling tool, one file, an
/// import script that finds the tiles and samples their edges into profiles, 12:19-16:11).
/// The built-in kit goes through the same glb reader as any other (build_tile_set).
namespace cityforge::islands {

/// One base tile, before turning, in its own frame (slot k = side k).
struct KitTile {
  std::string name;
  TileKind kind = TileKind::ground;       ///< Never empty: Empty is implied by every kit.
  bool ground_level = false;              ///< A layer-0 tile (beaches; the sea bed below it).
  std::array<std::uint8_t, 4> corners{};  ///< kCornerEmpty / kCornerFloor / kCornerSolid.
  std::uint8_t exits = 0;                 ///< Bit k: a path exit or house join on side k.
  /// The floor above a flight of stairs: the stairs' steps arrive through side 0.
  bool landing = false;
  double weight = 1.0;  ///< Relative frequency of each of its turns, > 0.
  UnitMesh mesh;        ///< (u, v, w) unit frame; stairs climb towards side 0.
};

/// The built-in kit made by code (docs/islands.md "Tiles"), Empty left out.
std::vector<KitTile> builtin_kit();

/// The kit as a glTF binary: one node per tile (its name the tile's name, its extras the
/// declared facts), the tile's triangles as one primitive per material (named after the
/// material), its hard edges as a LINES primitive; unit coordinates (u, v, w) written as glTF
/// (u, w, -v), i.e. Blender's (x, y, z). Nodes are spread out on a grid for viewing; the reader
/// ignores node transforms. Byte-identical for identical kits.
Result<std::vector<std::uint8_t>> write_kit_glb(const std::vector<KitTile>& kit);

/// Reads a kit. `file` names the kit in errors, each with the JSON pointer of what is wrong
/// ("kit.glb: /nodes/4/extras/corners: expected ..."). Coordinates are snapped to a 1e-6
/// lattice. Errors: invalid_input for anything the kit must be and is not.
Result<std::vector<KitTile>> read_kit_glb(std::span<const std::uint8_t> bytes,
                                          const std::string& file);

/// The tile set of a kit: every tile in its distinct turns (turns that change nothing, by the
/// declared facts and the mesh's vertices, are dropped), edge profiles sampled from the
/// meshes' cross-sections on the cell faces, and the constraints of equal profiles. Checks the
/// kit first and reports every tile that is unclear or inconsistent, by name, with the side or
/// corner and what was sampled there: a side whose profile no tile's side can face, a
/// declared corner state the mesh contradicts, a vertex outside the cell, a missing water or
/// air tile. Errors are invalid_input naming `file`.
Result<TileSet> tile_set_from_kit(const std::vector<KitTile>& kit, const std::string& file);

/// Material names as kits use them ("grass", "sand", ...); parse returns false for others.
const char* material_name(Material m);
bool parse_material(const std::string& name, Material& out);

}  // namespace cityforge::islands
