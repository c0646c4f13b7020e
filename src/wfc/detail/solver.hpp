// SPDX-License-Identifier: Apache-2.0
// The solver's internals, shared by the whole-grid solve (solve.cpp) and the block-wise solve
// (solve_blocks.cpp): the model compiled into adjacency bitsets, and one backtracking search
// over a cell graph whose starting options per cell are given.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cityforge/core/rng.hpp"
#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc::detail {

/// A model as the search uses it. Tile sets are bitsets of `words` uint64 words.
struct Compiled {
  std::uint32_t tile_count = 0;
  std::uint32_t label_count = 0;
  std::uint32_t words = 0;
  std::vector<Label> opposite;
  /// compat[(t * label_count + d) * words ..]: tiles that may sit on t's side d. A constraint
  /// counts only when the model lists both directions (a, d, b) and (b, opposite[d], a), so a
  /// solution always passes a check made from either side.
  std::vector<std::uint64_t> compat;
  /// Support tables, when small enough: nibble[((d * nibbles + k) * 16 + v) * words ..] is the
  /// union of compat[t][d] over the tiles t = 4k + bit of v. The union of compat over a cell's
  /// options is then one OR per non-zero nibble instead of one per option.
  std::uint32_t nibbles = 0;
  std::vector<std::uint64_t> nibble;
  std::vector<double> weight;      ///< Per tile.
  std::vector<double> wlogw;       ///< weight * log(weight), per tile.
  std::vector<std::uint64_t> all;  ///< Every tile.
  TileId empty = kNoTile;
  std::vector<std::string> names;  ///< Per tile, for messages.
  std::string where;               ///< "wfc model 'name'", for messages.
};

/// Checks the model and compiles it.
Result<Compiled> compile(const Model& model);
/// Checks that the grid's labels are the model's.
Status check_grid(const Compiled& m, const Grid& grid);

/// The union over `options` (`count` of them) of the tiles allowed on their side `label`.
void support(const Compiled& m, const std::uint64_t* options, std::uint32_t count, Label label,
             std::uint64_t* out);

/// Options per cell before any placement: every tile, less those that may not border the
/// Empty tile on a boundary side (when the model has one).
std::vector<std::uint64_t> boundary_domains(const Compiled& m, const Grid& grid);
/// Removes from `domains` the tiles options.allow rules out (no-op without it).
void restrict_domains(const Compiled& m, const Grid& grid, const SolveOptions& options,
                      std::vector<std::uint64_t>& domains);

/// "cell 17 (x 5, y 2, z 0)" (coordinates on square grids only).
std::string cell_name(const Grid& grid, CellId cell);

/// Solves a square grid in overlapping blocks with local repair (solve_blocks.cpp). `fixed`
/// has been checked against the model and grid.
Result<Solution> solve_blocks(const Compiled& m, const Grid& grid, const std::vector<Fixed>& fixed,
                              const SolveOptions& options);

/// One backtracking search over one cell graph. Buffers are kept between problems, so one
/// Search solves many blocks (or many restarts) without allocating in the hot loop.
class Search {
 public:
  explicit Search(const Compiled& m) : m_m(m) {}

  enum class Fix : std::uint8_t { ok, ruled_out, contradiction };
  enum class Outcome : std::uint8_t { solved, unsatisfiable, budget };

  /// Starts a problem: `domains` (cell_count * words) are the starting options; propagates
  /// them. False on a contradiction (conflict_cell() says where).
  bool reset(const Grid& grid, const std::uint64_t* domains, std::vector<TraceStep>* trace);
  /// Places `tile` in `cell` and propagates (before set_root()).
  Fix fix(CellId cell, TileId tile);
  /// Marks the current state as the root that restarts return to.
  void set_root();
  /// Observes and propagates until every cell has one option, undoing at most `budget`
  /// decisions. Draws only from `rng`.
  Outcome run(Rng& rng, std::uint32_t budget, SolveStats& stats);
  /// Undoes everything since set_root().
  void restore_root();
  /// Per-cell additions to the entropy key (SolveOptions::order_bias); null or empty for none.
  /// The vector must outlive run().
  void set_order_bias(const std::vector<double>* bias) { m_bias = bias; }
  /// Per-cell weight sets (SolveOptions::weight_class / weight_sets, already checked); call
  /// before reset(). Without sets every cell uses the model's weights.
  void set_weights(const SolveOptions& options);
  /// SolveOptions::check and its watched tiles (the options must outlive run()).
  void set_check(const SolveOptions& options);

  TileId tile(CellId cell) const;
  std::uint32_t count(CellId cell) const { return m_count[cell]; }
  const std::uint64_t* options(CellId cell) const { return &m_wave[std::size_t(cell) * m_w]; }
  CellId conflict_cell() const { return m_conflict; }

 private:
  struct Saved {
    CellId cell;
    std::uint32_t count;
    std::uint64_t saved_at;
    double sum_w;
    double sum_wlogw;
  };
  struct Decision {
    CellId cell;
    TileId tile;
    std::size_t trail_mark;
    std::uint64_t level;
  };

  TileId choose(CellId cell, double r) const;
  bool narrow(CellId cell, const std::uint64_t* mask, bool by_propagation);
  bool propagate();
  /// Runs the check when a watched cell changed since the last call; false: a contradiction.
  bool check_state();
  void undo_to(std::size_t mark);
  /// The undecided cells by (entropy + noise, cell), lowest first: a binary heap that knows
  /// each cell's place, so a cell whose options change moves (or leaves) at once. (A heap of
  /// entries pushed at every change held mostly stale ones, popped and skipped.)
  bool heap_before(CellId a, CellId b) const {
    return m_key[a] < m_key[b] || (m_key[a] == m_key[b] && a < b);
  }
  void heap_place(std::uint32_t at, CellId cell) {
    m_heap[at] = cell;
    m_heap_at[cell] = at;
  }
  void heap_up(std::uint32_t at);
  void heap_down(std::uint32_t at);
  /// After a change of the cell's options: its key again, in the heap while undecided.
  void heap_update(CellId cell);
  /// The undecided cell of least key, taken out of the heap; kBoundary when none is left.
  CellId heap_pop();
  void trace(TraceStep::Kind kind, CellId cell, TileId tile);
  double entropy(CellId cell) const;

  const Compiled& m_m;
  const Grid* m_grid = nullptr;
  std::uint32_t m_w = 0;
  std::vector<std::uint64_t> m_wave;
  std::vector<std::uint32_t> m_count;
  std::vector<double> m_sum_w, m_sum_wlogw, m_noise;
  const std::vector<double>* m_bias = nullptr;
  // Per-cell weights: m_class[cell] picks a row of m_wset / m_wlogwset (tile_count each).
  const std::uint8_t* m_class = nullptr;
  std::vector<double> m_wset, m_wlogwset;
  double base_weight(CellId cell, TileId t) const {
    return m_class == nullptr ? m_m.weight[t]
                              : m_wset[std::size_t{m_class[cell]} * m_m.tile_count + t];
  }
  double weight(CellId cell, TileId t) const {
    const double w = base_weight(cell, t);
    return m_keep != nullptr && (*m_keep)[cell] == t ? w * m_keep_factor : w;
  }
  double wlogw(CellId cell, TileId t) const {
    if (m_keep != nullptr && (*m_keep)[cell] == t) {
      const double w = weight(cell, t);
      return w * std::log(w);
    }
    return m_class == nullptr ? m_m.wlogw[t]
                              : m_wlogwset[std::size_t{m_class[cell]} * m_m.tile_count + t];
  }
  const std::vector<TileId>* m_keep = nullptr;  ///< SolveOptions::keep, or null.
  double m_keep_factor = 1.0;
  std::vector<std::uint64_t> m_saved_at;  ///< Level at which the cell was last trailed.
  std::uint64_t m_level = 0;              ///< Unique id of the current decision level.
  std::uint64_t m_levels = 0;             ///< Level ids handed out so far.
  std::uint64_t m_root_level = 0;         ///< Level id of the root (no decision on the stack).
  std::vector<Saved> m_trail;
  std::vector<std::uint64_t> m_trail_words;
  std::vector<Decision> m_decisions;
  static constexpr std::uint32_t kNotInHeap = 0xFFFFFFFFU;
  std::vector<CellId> m_heap;
  std::vector<std::uint32_t> m_heap_at;  ///< Per cell: its place in m_heap, or kNotInHeap.
  std::vector<double> m_key;             ///< Per cell: its key while in m_heap.
  /// Inside run(), which makes the heap anew with its noise: changes move cells in it. Outside
  /// (reset, fixing, restoring the root) they do not; run() starts from the cells as they are.
  bool m_heap_live = false;
  std::vector<CellId> m_queue;
  std::vector<std::uint8_t> m_queued;
  std::vector<std::uint64_t> m_tmp;
  std::size_t m_root = 0;
  CellId m_conflict = kBoundary;
  SolveStats m_scratch_stats;
  SolveStats* m_stats = &m_scratch_stats;
  std::vector<TraceStep>* m_trace = nullptr;
  const SolveOptions* m_check = nullptr;  ///< With a check: its options; else null.
  std::vector<std::uint64_t> m_watch;     ///< Watched tiles (m_w words).
  std::vector<CellId> m_changed;          ///< Watched cells changed since the last check.
};

/// Starts `search` on the whole `grid`: propagates `domains`, then places `fixed` one by one;
/// errors name the first pre-placed tile that contradicts.
Status start(Search& search, const Compiled& m, const Grid& grid, const std::uint64_t* domains,
             const std::vector<Fixed>& fixed, std::vector<TraceStep>* trace);

}  // namespace cityforge::wfc::detail
