// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/ranks.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/layout/layout.hpp"

/// Private to the export module: the triangle meshes city.glb is made of, cut into chunks.
namespace cityforge::exporter::detail {

/// The surface kinds of city.glb; one glTF material each, in this order.
enum class Part : std::uint8_t {
  terrain,
  road_artery,
  road_main,
  road_local,
  sidewalk,
  block,
  volume,
  freeway,
  marking,
  roof,
  parapet,
  // Imported places: the set dressing's ground patches, one part per dressing::GroundKind in
  // its order ("ground_grass" ... "ground_cemetery"), then the path strips.
  ground_grass,
  ground_park,
  ground_forest,
  ground_scrub,
  ground_farmland,
  ground_sand,
  ground_bare,
  ground_water,
  ground_pavement,
  ground_cemetery,
  path
};
inline constexpr std::size_t kPartCount = 22;

/// The part of a ground patch.
Part ground_part(const dressing::GroundPatch& patch);

/// Material name of a part ("terrain", "road_artery", ...).
const char* part_name(Part p);

/// The road ribbon part of a road class.
Part road_part(layout::RoadClass c);

/// Every triangle whose centroid lies in one chunk_m x chunk_m square, per part. Engine
/// coordinates (z up); positions are absolute (not relative to the chunk).
struct ChunkMeshes {
  std::int32_t cx = 0;  ///< floor(x / chunk_m)
  std::int32_t cy = 0;  ///< floor(y / chunk_m)
  std::array<Mesh, kPartCount> parts;
};

/// Whether the section carriageways are written as instanced road bricks: with
/// export.road_modules = "instanced", a road stage output of one section per edge and its
/// meshes (whose bricks are used).
bool instanced_roads(const CityGlbInputs& in);

/// Cuts the meshes of `in` into chunks: every triangle goes to the chunk of its centroid.
/// Within a chunk and part, triangles keep the order terrain chunks (terrain::mesh_chunks of
/// in.terrain), carriageways (left out when instanced: export.road_modules = "instanced" with a
/// road stage output of one section per edge), sidewalks, junctions, block surfaces, then block
/// volumes (without buildings) or the buildings' roofs, ground patches, markings, freeway decks
/// and barriers, pillars; each by item index. Chunks are sorted by (cy, cx) and only non-empty
/// chunks are returned. Degenerate triangles are dropped. Items are cut in parallel into their
/// own slots and merged in that fixed order: identical output at any thread count. Fails on a
/// bad chunk_m or terrain grid, on a vertex that is not finite (as float32) or too far from the
/// origin for chunk_m, and on meshes that do not match their items in count.
/// The chunks one item's pieces fell in (items in the merge order above); min > max: none.
struct ChunkBox {
  std::int32_t min_cy = 1;
  std::int32_t min_cx = 1;
  std::int32_t max_cy = 0;
  std::int32_t max_cx = 0;
};

/// `keep` (when set) picks the chunks to return by (cy, cx); the others are cut and dropped,
/// never held (a rank of a tileset keeps the chunks of its own tiles). With `items` too (the
/// boxes of a ChunkCensus of the same inputs), an item none of whose chunks is kept is not
/// even made or cut.
using ChunkFilter = std::function<bool(std::int32_t cy, std::int32_t cx)>;
/// Chunks in (cy, cx) order. A deque: chunks are added as the cut first reaches them and sorted
/// in place, never copied into a second list (a valley's 79 k chunks were 126 MB of headers,
/// held twice at the tile step's peak).
using ChunkList = std::deque<ChunkMeshes>;
Result<ChunkList> chunk_city_meshes(const CityGlbInputs& in, const ChunkFilter& keep = {},
                                    const std::vector<ChunkBox>* items = nullptr);

/// What a tileset's ranks need of the city's meshes before the tiles are dealt, without
/// holding them: what chunk_city_meshes would hold per chunk, (cy, cx) -> 24 bytes per vertex
/// and 4 per index, and each item's ChunkBox. Collective over `ranks`: each rank cuts every
/// size()-th item and the ranks exchange what they counted, so no rank makes and cuts the
/// whole city here; the same figures for any rank count.
struct ChunkCensus {
  std::map<std::pair<std::int32_t, std::int32_t>, double> bytes;
  std::vector<ChunkBox> items;
};
Result<ChunkCensus> chunk_census(const CityGlbInputs& in, const Ranks& ranks);

}  // namespace cityforge::exporter::detail
