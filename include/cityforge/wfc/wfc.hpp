// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"

/// Wave function collapse / model synthesis (seeds/000, 39:15-44:07; seeds/003): a constraint
/// solver over any cell graph whose edges carry a direction label, so one engine serves 1D, 2D
/// and 3D square grids and the irregular grids of the islands.
namespace cityforge::wfc {

using TileId = std::uint32_t;  ///< Index into Model::tiles (variants after symmetry expansion).
using CellId = std::uint32_t;  ///< Index of a cell in a Grid.
using Label = std::uint8_t;    ///< Direction label of a graph edge.
inline constexpr TileId kNoTile = 0xFFFFFFFFU;
inline constexpr CellId kBoundary = 0xFFFFFFFFU;  ///< Neighbour outside the grid.
inline constexpr std::size_t kMaxTiles = 4096;
inline constexpr std::size_t kMaxLabels = 32;

// ---- Cell graphs --------------------------------------------------------------------------

/// One side of a cell: the neighbour across it (kBoundary at the grid's edge) and its label.
/// If a's side with label d leads to b, then b's side with label opposite[d] leads to a.
struct Side {
  CellId cell = kBoundary;
  Label label = 0;
};

/// A cell graph in CSR form: cell c's sides are sides[offsets[c] .. offsets[c+1]).
/// Boundary sides (cell == kBoundary) are where the Empty tile is assumed to sit.
struct Grid {
  std::uint32_t cell_count = 0;
  std::uint32_t label_count = 0;       ///< Labels are 0 .. label_count-1, <= kMaxLabels.
  std::vector<Label> opposite;         ///< opposite[opposite[d]] == d.
  std::vector<std::uint32_t> offsets;  ///< cell_count + 1 entries.
  std::vector<Side> sides;
  /// Square grids only (else all 0): dimensions; cell id = x + X*(y + Y*z).
  std::uint32_t size_x = 0, size_y = 0, size_z = 0;
};

/// Labels of square grids: 0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z (1D grids use 0 and 1, 2D 0..3).
enum SquareLabel : Label { kPosX = 0, kNegX = 1, kPosY = 2, kNegY = 3, kPosZ = 4, kNegZ = 5 };

/// An X x Y x Z square grid (Z = 1 gives 2D, Y = Z = 1 gives 1D with two labels; 2D grids have
/// four labels, 3D grids six). Every side off the grid is a boundary side.
/// `dimensions` (1..3) raises the label count, e.g. to solve one layer with a 3D model whose
/// constraints speak of +z and -z (those sides are then all boundary); 0 derives it from the size.
Grid square_grid(std::uint32_t size_x, std::uint32_t size_y, std::uint32_t size_z,
                 std::uint32_t dimensions = 0);
/// Checks a user-built graph: offsets, neighbour ids, labels in range, opposite an involution,
/// and every non-boundary side answered by its opposite side.
Status validate_grid(const Grid& grid);

// ---- Models -------------------------------------------------------------------------------

/// Symmetry classes of a base tile (as in Gumin's simple tiled model): which of the 8 square
/// symmetries (4 rotations about +z, times a reflection x -> -x) give distinct variants.
/// X: 1 variant; I: 2 (straight); backslash D: 2 (diagonal); T: 4; L: 4 (corner); F: 8 (none).
enum class Symmetry : std::uint8_t { X, I, D, T, L, F };

/// One placeable tile: a base tile under one rotation / reflection, or one cell of a tile
/// spanning several cells.
struct TileVariant {
  std::string name;                  ///< "base" or "base#r1", "base#r2m" ...; parts add "@x,y,z".
  std::uint32_t base = 0;            ///< Index into Model::base_names.
  std::uint8_t rotation = 0;         ///< Quarter turns about +z, counter-clockwise.
  bool reflected = false;            ///< Mirrored x -> -x before rotating.
  std::uint8_t part[3] = {0, 0, 0};  ///< Cell of a multi-cell tile (0,0,0 for single cells).
  double weight = 1.0;               ///< Relative frequency; > 0.
};

/// A constraint "adjacent may sit on the `label` side of key" (seeds/000, 42:00). Models store
/// both directions: (a, d, b) implies (b, opposite[d], a).
struct Constraint {
  TileId key = 0;
  Label label = 0;
  TileId adjacent = 0;
  bool operator==(const Constraint&) const = default;
};

/// A solved-for tile set: variants, their weights and allowed adjacencies.
struct Model {
  std::string name;
  std::uint32_t label_count = 0;
  std::vector<Label> opposite;          ///< Per label, as in Grid.
  std::vector<std::string> base_names;  ///< Base tiles, in definition order.
  std::vector<TileVariant> tiles;
  std::vector<Constraint> constraints;  ///< Sorted (key, label, adjacent), no duplicates.
  /// The Empty option: may border the boundary and itself; kNoTile when the model has none
  /// (boundary sides then constrain nothing).
  TileId empty = kNoTile;
  /// Per base tile, its symmetry class (expand_tiles fills it). Learning from rotated or
  /// reflected examples needs it; empty means "unknown" and such learning is refused.
  std::vector<Symmetry> base_symmetry;

  /// Finds a variant by name; kNoTile if absent.
  TileId find(std::string_view name) const;
};

/// A base tile definition for building a model from code.
struct TileDef {
  std::string name;
  Symmetry symmetry = Symmetry::X;
  double weight = 1.0;
  std::uint8_t size[3] = {1, 1, 1};  ///< Cells spanned (multi-cell tiles), square grids only.
  /// Square grids: an edge profile per side label (0..5: +x,-x,+y,-y,+z,-z) of the unrotated
  /// tile; sides with equal profile strings match; a profile ending in "'" matches its mirror
  /// (the same string without "'"), as in seeds/003's mirrored profile pairs, and a profile
  /// whose mirror is in use does not match itself (docs/wfc.md). Empty strings mean "use
  /// learned or explicit constraints only".
  std::vector<std::string> profiles;
};

/// Example layout (seeds/000, 42:21): a grid of base-tile names (with optional "#rN" / "#rNm"
/// variant suffixes) an artist painted, x fastest, then y, then z.
struct Example {
  std::uint32_t size_x = 0, size_y = 0, size_z = 0;
  std::vector<std::string> cells;
  /// Treat the example's outside as Empty (learns tile-to-Empty constraints at its border).
  bool empty_border = true;
  /// Also learn from the example turned by 1, 2 and 3 quarter turns about +z (2D/3D models).
  bool rotations = false;
  /// Also learn from the example mirrored x -> -x (and turned, with `rotations`).
  bool reflections = false;
};

/// Expands base tiles into variants by symmetry class and multi-cell size (parts of one tile
/// are forced together across their internal sides), for a square grid with `dimensions` (1, 2
/// or 3) axes. Rotations apply about +z and only when dimensions >= 2 (1D keeps the reflection
/// x -> -x). Adds Empty (symmetry X, one cell; created if not among `tiles`) bordering itself
/// on every label; "" for no Empty. Fills Model::base_symmetry.
Result<Model> expand_tiles(const std::vector<TileDef>& tiles, std::uint32_t dimensions,
                           std::string_view empty_name);
/// Adds every adjacency seen in the examples (each also turned / mirrored when its `rotations`
/// / `reflections` flag asks, the tiles becoming their transformed variants; without them
/// exactly the painted adjacencies), returning per-constraint observation counts aligned with
/// the (now sorted) Model::constraints; weights of tiles become their frequencies in the
/// examples, scaled to mean 1 over the variants seen and multiplied by their weight (tiles
/// never seen keep their weight).
Result<std::vector<std::uint32_t>> learn_from_examples(Model& model,
                                                       const std::vector<Example>& examples);
/// Adds every adjacency whose edge profiles match (square grids); `tiles` are the definitions
/// the model was expanded from (matched by name).
Status learn_from_profiles(Model& model, const std::vector<TileDef>& tiles);
/// Sorts and dedups constraints, then checks: both directions present for every constraint
/// (asymmetric lists are an error naming the missing pair), sides inside multi-cell tiles hold
/// only the neighbouring part, Empty borders itself on every label, and (models with Empty)
/// every tile placeable next to something placeable on every label (else "tile X can never be
/// placed: nothing may sit on its +y side").
Status finalize_model(Model& model, std::string_view where);

/// Reads a model JSON file (format in docs/wfc.md): tiles with symmetry, weight, size and
/// profiles; "empty"; explicit constraint lists; example layouts. `where` names the file for
/// errors (with JSON pointers).
Result<Model> parse_model(std::string_view json_text, std::string_view where);

/// The built-in models (data/wfc/*.json embedded at build time), as (file name, JSON text).
std::vector<std::pair<std::string, std::string>> builtin_model_sources();

// ---- Solving ------------------------------------------------------------------------------

class SearchView;

struct SolveOptions {
  Seed seed = 1;
  std::uint64_t object_id = 0;          ///< Rng key: Rng{seed, Stage::wfc, object_id}.
  std::uint32_t backtrack_budget = 64;  ///< Decisions undone before giving up on one attempt.
  std::uint32_t max_restarts = 0;       ///< Fresh attempts (new sub-stream) after a failed one.
  /// Square grids larger than this many cells on x or y are solved in overlapping blocks
  /// (block_size x block_size, overlapping by block_overlap) with local repair; 0 = never.
  std::uint32_t block_size = 0;
  std::uint32_t block_overlap = 4;
  bool trace = false;  ///< Record every observe / propagate step in Solution::trace.
  /// When set, cell c may hold tile t only if allow(c, t): a solve restricted per cell, e.g.
  /// the islands' second pass, which solves the reset cells again as water or air.
  std::function<bool(CellId, TileId)> allow;
  /// Empty, or one value per cell added to its entropy when picking the cell to observe
  /// (lower goes first): steers the collapse order, e.g. outward from where units stand
  /// (seeds/003). Whole-grid solves only; block solves ignore it.
  std::vector<double> order_bias;
  /// Per-cell weights (whole-grid solves): when weight_sets is not empty, tile t in cell c
  /// weighs weight_sets[weight_class[c]][t] instead of its model weight, e.g. flat land likelier
  /// low down than high up on an island. weight_class has one entry per cell; every set one
  /// finite weight > 0 per tile.
  std::vector<std::uint8_t> weight_class;
  std::vector<std::vector<double>> weight_sets;
  /// A global constraint that propagation cannot express (whole-grid solves), e.g. the
  /// islands' "every walkable tile is reachable from where units start" (seeds/003, 31:22):
  /// after each observation (or forbidden option) has propagated, when some cell lost its last
  /// option among `watch` or was decided to one of them, check(view, those cells) runs; false
  /// is a contradiction, undone and forbidden like any other. Must depend only on the view.
  std::vector<TileId> watch;
  std::function<bool(const SearchView&, std::span<const CellId>)> check;
  /// Empty, or one tile per cell (kNoTile: none) that weighs keep_factor times its weight
  /// there (whole-grid solves): a solve again of part of a solution keeps what it can, e.g.
  /// the cells around an island edit.
  std::vector<TileId> keep;
  double keep_factor = 1.0;
};

/// One step of a solve, for stepping through and visualising (seeds/000 insists on it).
struct TraceStep {
  enum class Kind : std::uint8_t { observe, propagate, backtrack, contradiction, restart, block };
  Kind kind = Kind::observe;
  CellId cell = 0;
  TileId tile = kNoTile;        ///< Observed tile (observe), or removed option (propagate).
  std::uint32_t remaining = 0;  ///< Options left in `cell` after the step.
};

struct SolveStats {
  std::uint64_t observations = 0;
  std::uint64_t propagations = 0;  ///< Options removed by propagation.
  std::uint64_t backtracks = 0;
  std::uint64_t contradictions = 0;
  std::uint32_t restarts = 0;
  std::uint32_t blocks = 0;
  std::uint32_t block_repairs = 0;
};

struct Solution {
  std::vector<TileId> tiles;  ///< Per cell.
  SolveStats stats;
  std::vector<TraceStep> trace;
};

/// A cell fixed before solving (mixed initiative: the artist places, the solver fills).
struct Fixed {
  CellId cell = 0;
  TileId tile = 0;
};

/// Solves `grid` with `model`: minimum weighted-Shannon-entropy observation with a seeded
/// tie-break, propagation with per-label support counters, bounded backtracking, restarts and
/// (square grids, options.block_size) block-wise solving with local repair. Fixed cells keep
/// their tiles. Errors: model/grid label mismatch; a fixed tile that contradicts the
/// constraints ("pre-placed tile X at cell N contradicts ..."); unsatisfiable within the
/// budget ("no solution within N backtracks and M restarts", code invalid_input).
/// Deterministic: same inputs give the same solution at any thread count.
Result<Solution> solve(const Model& model, const Grid& grid, const std::vector<Fixed>& fixed,
                       const SolveOptions& options);

namespace detail {
struct Compiled;
}  // namespace detail

/// The state of a solve as SolveOptions::check sees it: each cell's options.
class SearchView {
 public:
  SearchView(const std::uint64_t* wave, const std::uint32_t* count, std::uint32_t words)
      : m_wave(wave), m_count(count), m_words(words) {}
  /// Words of a tile bitset (tile t is bit t % 64 of word t / 64).
  std::uint32_t words() const { return m_words; }
  /// The cell's tile when one option is left, else kNoTile.
  TileId tile(CellId cell) const {
    if (m_count[cell] != 1) return kNoTile;
    const std::uint64_t* d = m_wave + std::size_t{cell} * m_words;
    for (std::uint32_t i = 0; i < m_words; ++i) {
      if (d[i] != 0) return i * 64U + static_cast<TileId>(std::countr_zero(d[i]));
    }
    return kNoTile;
  }
  /// Whether the cell still has an option in `mask` (words() words).
  bool may_hold_any(CellId cell, const std::uint64_t* mask) const {
    const std::uint64_t* d = m_wave + std::size_t{cell} * m_words;
    for (std::uint32_t i = 0; i < m_words; ++i) {
      if ((d[i] & mask[i]) != 0) return true;
    }
    return false;
  }
  /// may_hold_any for two masks in one pass over the cell: bit 0 for `a`, bit 1 for `b`.
  std::uint32_t may_hold_each(CellId cell, const std::uint64_t* a, const std::uint64_t* b) const {
    const std::uint64_t* d = m_wave + std::size_t{cell} * m_words;
    std::uint64_t in_a = 0;
    std::uint64_t in_b = 0;
    for (std::uint32_t i = 0; i < m_words; ++i) {
      in_a |= d[i] & a[i];
      in_b |= d[i] & b[i];
    }
    return (in_a != 0 ? 1U : 0U) | (in_b != 0 ? 2U : 0U);
  }

 private:
  const std::uint64_t* m_wave;
  const std::uint32_t* m_count;
  std::uint32_t m_words;
};

/// A model compiled for solving (adjacency bitsets and support tables), built once and shared
/// by many solves: a caller that solves thousands of small grids with one model (a city's
/// rooftops) compiles it once, as compiling costs about as much as solving a 150-cell grid.
/// Immutable; copies share the data, so one CompiledModel may serve solves on many threads at once.
class CompiledModel {
 public:
  CompiledModel() = default;
  explicit CompiledModel(std::shared_ptr<const detail::Compiled> data) : m_data(std::move(data)) {}
  const detail::Compiled* data() const { return m_data.get(); }

 private:
  std::shared_ptr<const detail::Compiled> m_data;
};

/// Checks and compiles `model` (tile count, weights > 0, constraint ids, Empty id). A
/// constraint counts only when listed in both directions. Labels are checked against each
/// grid at solve time.
Result<CompiledModel> compile_model(const Model& model);
/// solve() with a model compiled once; same results as solve(model, ...).
Result<Solution> solve(const CompiledModel& model, const Grid& grid,
                       const std::vector<Fixed>& fixed, const SolveOptions& options);

/// Whether each of `candidates` could still be pre-placed once the Empty boundary,
/// options.allow and `fixed` have propagated (arc consistency only: no search, no
/// options.check): 1 when its tile is still among its cell's options. Lets a caller draw a goal
/// that the constraints do not rule out at once. Errors: as solve() for the model, grid and
/// pre-placed tiles (`fixed` contradicting itself included); a candidate out of range.
Result<std::vector<std::uint8_t>> placeable(const CompiledModel& model, const Grid& grid,
                                            const std::vector<Fixed>& fixed,
                                            const SolveOptions& options,
                                            const std::vector<Fixed>& candidates);

/// One violated adjacency of a solved grid.
struct Violation {
  CellId cell = 0;
  Label label = 0;
  CellId neighbour = kBoundary;
};
/// Every side whose pair of tiles (or tile and boundary Empty) is not an allowed constraint;
/// independent of the solver.
std::vector<Violation> check_solution(const Model& model, const Grid& grid,
                                      const std::vector<TileId>& tiles);

}  // namespace cityforge::wfc
