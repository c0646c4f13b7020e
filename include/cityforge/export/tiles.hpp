// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "cityforge/core/ranks.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/export/export.hpp"

/// The city as an OGC 3D Tiles 1.1 tileset: an explicit quadtree over the export chunks whose
/// leaves hold the city's full detail (a small city.glb each) and whose parents hold merged,
/// simplified stand-ins (HLOD). See docs/tiles.md.
namespace cityforge {
class StagedFiles;
}  // namespace cityforge

namespace cityforge::exporter {

/// Where the tileset's local frame (x east, y north, z up, metres) sits on the WGS84 ellipsoid.
struct GeoAnchor {
  double lon_deg = 0.0;
  double lat_deg = 0.0;
  double height_m = 0.0;  ///< Ellipsoidal height of the local frame's z = 0.
};

/// The column-major 4x4 matrix taking the local east-north-up frame at `anchor` to
/// Earth-centred, Earth-fixed (ECEF, WGS84) metres: the tileset root's `transform`.
std::array<double, 16> enu_to_ecef(const GeoAnchor& anchor);

/// How the tileset is cut and written.
struct TilesetOptions {
  /// Leaves are split until their estimated content is at most this many bytes (or they are
  /// one chunk). [64 KiB .. 1 GiB]
  double tile_bytes = 4.0e6;
  GeoAnchor anchor;
  /// Content compressed with EXT_meshopt_compression where it pays (a required extension:
  /// clients need meshoptimizer's decoder); false writes plain buffers.
  bool meshopt = true;
  /// Progress: called after each written tile with (tiles written, tiles in all). Optional and
  /// called from the writing threads, one call at a time.
  std::function<void(std::size_t, std::size_t)> progress;
  /// The processes sharing the work (nullptr: this one alone). Every rank calls write_tileset
  /// with the same city and options; each builds the subtrees it is given, rank 0 the levels
  /// above them, tileset.json and the rename. The folder must be one every rank can write (a
  /// shared file system on a cluster). The files are the same for any rank count.
  const Ranks* ranks = nullptr;
  /// Called before each tile this rank builds, with its path ("tiles/<level>/<x>/<y>.glb"),
  /// from the writing threads; an error stops the tileset with it. For fault-injection tests
  /// (cityforge's CITYFORGE_FAULT); empty: nothing.
  std::function<Status(const std::string&)> before_tile;
  /// When set (on rank 0), the finished tileset's folder is staged here instead of renamed into
  /// place: it goes in with the rest of a city's files, at their commit.
  StagedFiles* staged = nullptr;
};

/// Counts and timings of one tileset (stats.json "tiles").
struct TilesetStats {
  std::size_t tiles = 0;    ///< Tiles in tileset.json (with or without content).
  std::size_t leaves = 0;   ///< Tiles with full-detail content.
  std::size_t parents = 0;  ///< Tiles with HLOD content.
  std::size_t depth = 0;    ///< Deepest level (the root is level 0).
  std::size_t bytes = 0;    ///< All content files together.
  std::size_t max_leaf_bytes = 0;
  std::size_t root_bytes = 0;     ///< Content of the root tile.
  std::size_t textures = 0;       ///< Image files in textures/ (0: export.textures "none").
  std::size_t texture_bytes = 0;  ///< Their bytes together (not in `bytes`).
  std::size_t buildings = 0;      ///< Buildings written (each in exactly one leaf).
  double root_geometric_error_m = 0.0;
  double seconds = 0.0;  ///< Wall time of write_tileset.
  // Where the time goes, in thread-seconds summed over the tile tasks (wall time for chunking):
  double chunking_s = 0.0;    ///< Cutting the city into chunks once.
  double leaves_s = 0.0;      ///< Building the leaves' glbs.
  double standins_s = 0.0;    ///< Merging, dropping and simplifying the HLOD stand-ins.
  double parents_s = 0.0;     ///< Building the parents' glbs.
  double write_s = 0.0;       ///< Writing the files.
  double rank_seconds = 0.0;  ///< Wall time this rank spent building its share of the tiles.
};

/// Whether `dir` can take a tileset: missing, or a folder holding a tileset.json (which
/// write_tileset replaces). Anything else (a file, a folder of other things) is refused, naming
/// `dir`, so a run can fail before it starts.
Status check_tileset_folder(const std::string& dir);

/// Writes `dir`/tileset.json and `dir`/<level>/<x>/<y>.glb for the city of `in` (the same
/// inputs as city_glb) and, unless in.settings.textures is none, the procedural textures as
/// `dir`/textures/<surface>.<map>.png (and the decals' decal_<kind>.<map>.png), which the leaves
/// refer to. The folder is first built next to
/// `dir` under a temporary name and renamed into place at the end, replacing an older tileset; on
/// failure nothing is left behind. Tiles are built by independent oneTBB tasks; output is
/// byte-identical at any thread count. Fails, naming the file, on what city_glb fails on and on I/O
/// errors.
Result<TilesetStats> write_tileset(const CityGlbInputs& in, const std::string& dir,
                                   const TilesetOptions& options);

}  // namespace cityforge::exporter
