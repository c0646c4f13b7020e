// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/islands/island.hpp"

/// `cityforge island` (docs/islands.md): one island level from a seed, its files written all
/// or none (io.hpp).
namespace cityforge::islands {

/// The options as typed: numbers are checked here, so every bad value is an invalid_input
/// error naming its option.
struct IslandRequest {
  std::string seed = "1";      ///< Decimal, 0 .. 2^64-1.
  std::string size = "6";      ///< Hexagon radius in base cells, 2..24.
  std::string grid = "mixed";  ///< mixed, square or triangle.
  std::string layers = "5";    ///< Layers of cells, 2..12.
  std::string out;             ///< Output folder (created if missing); required.
  /// A tile kit (.glb, docs/islands.md "Tile kits") instead of the built-in one; "" for that.
  std::string kit;
  /// Write the built-in kit's glb here (then -o may be left out); "" for none.
  std::string write_kit;
  /// Edits applied in order after generating, each "CELL:raise", "CELL:lower" or "CELL:paint:K"
  /// (edit_island, serial = its position from 1).
  std::vector<std::string> edits;
  /// Keep every solve's steps and write island_trace.json (IslandConfig::trace).
  bool trace = false;
};

/// The generator's config from the request (grid, size, layers), or an error naming the option
/// (--grid, --size, --layers) with what was expected and what was given.
Result<IslandConfig> island_config(const IslandRequest& request);

/// What make_island_files wrote.
struct IslandFilesReport {
  std::string summary;  ///< Console lines, each ending in '\n'.
};

/// An edit as `--edit` takes it: "CELL:raise", "CELL:lower" or "CELL:paint:K" (K below
/// kPaintColours); invalid_input naming --edit.
Result<IslandEdit> parse_edit(const std::string& text);

/// Reads a kit file and makes its tile set. Errors: invalid_input naming the file (and the
/// JSON pointer or the tile), io when it cannot be read.
Result<TileSet> read_kit_file(const std::string& path);

/// Checks every option before any work, builds the tile set and the island, and writes
/// island.glb, island_nav.json, island_tiles.json, island_light.png and stats.json into request.out
/// (all or none, write_island). With request.write_kit, first writes the built-in kit there, and
/// stops when no output folder is given. `progress` (optional) is told the phase that starts ("tile
/// set", "island") and "" when the work is done. Errors: invalid_input naming the option, or when
/// there is no island within the solver's budget; io when a file cannot be written.
Result<IslandFilesReport> make_island_files(
    const IslandRequest& request, const std::function<void(const std::string&)>& progress = {});

/// An island kept in memory to be edited and written again (`cityforge serve ISLAND_DIR`):
/// made again from the folder's stats.json (seed, grid, kit and the edits so far, replayed),
/// then edited one edit at a time, each time writing the five files again (all or none) with
/// the edit added to stats.json, so the folder always holds an island that `cityforge island`
/// makes again from its stats.json. Not thread-safe: one edit at a time.
class IslandSession {
 public:
  /// Errors: invalid_input naming `dir`/stats.json when it is not an island's, or the kit or
  /// an edit of it fails.
  static Result<IslandSession> open(const std::string& dir);
  /// Applies the edit, writes the files; on an error the island and the files are unchanged.
  Result<EditReport> edit(const IslandEdit& edit);
  std::size_t edits() const { return m_request.edits.size(); }

 private:
  IslandSession() = default;
  IslandRequest m_request;
  IslandConfig m_config;
  Seed m_seed = 0;
  TileSet m_tiles;
  Island m_island;
};

}  // namespace cityforge::islands
