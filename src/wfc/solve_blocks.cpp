// SPDX-License-Identifier: Apache-2.0
// Block-wise solving of large square grids with local repair. A single search over a big grid
// is fragile: one contradiction the bounded backtracking cannot undo (its cause lies many
// decisions back) sinks the whole grid, and a restart throws away everything. Here the grid
// is cut into overlapping blocks solved one after another in a fixed order (rows of blocks
// along +x, then +y). A block sees the committed cells around it as fixed borders; it commits
// only its core and leaves the overlap towards unsolved blocks to be solved again, so each
// core was chosen knowing that its surroundings can still be filled. A block that fails is
// repaired locally: a neighbourhood around it, committed cells included, is reset and solved
// again on new sub-streams, growing until it succeeds.
// Based on: P. Merrell, Model Synthesis (2009), modifying in blocks.
// The order is sequential and fixed, so the result does not depend on the thread count.

#include <algorithm>
#include <bit>
#include <string>

#include "cityforge/wfc/wfc.hpp"
#include "wfc/detail/solver.hpp"

namespace cityforge::wfc::detail {

namespace {

// Repair rounds per block. Each radius gets two rounds (new sub-streams) before it grows:
// a bigger region frees more of the border but is itself harder to solve.
constexpr std::uint32_t kRepairRounds = 10;

struct Box {
  std::uint32_t x0, x1, y0, y1;  // [x0, x1) x [y0, y1), all z.
};

class BlockSolver {
 public:
  BlockSolver(const Compiled& m, const Grid& grid, const SolveOptions& options, Solution& sol)
      : m_m(m), m_grid(grid), m_options(options), m_sol(sol), m_search(m) {
    m_local_of.assign(grid.cell_count, kBoundary);
    m_z = std::max(grid.size_z, 1U);
  }

  std::vector<std::uint64_t> base;   ///< Options per cell after boundary and fixed propagation.
  std::vector<TileId> committed;     ///< Per cell, kNoTile until a block commits it.
  std::vector<std::uint8_t> pinned;  ///< Pre-placed cells: never reset.

  /// Solves the cells of `region`; on success commits those in `core` and those of the region
  /// committed before (their new tiles). Cells outside keep their commitments as borders.
  bool solve_region(const Box& region, const Box& core, std::uint64_t key);

 private:
  bool inside(const Box& b, CellId c) const {
    const std::uint32_t x = c % m_grid.size_x;
    const std::uint32_t y = (c / m_grid.size_x) % m_grid.size_y;
    return x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1;
  }
  void build_local(const Box& region);

  const Compiled& m_m;
  const Grid& m_grid;
  const SolveOptions& m_options;
  Solution& m_sol;
  Search m_search;
  std::uint32_t m_z = 1;
  std::vector<CellId> m_local_of;  ///< Global cell -> local id while a region is built.
  std::vector<CellId> m_cells;     ///< Local id -> global cell.
  Grid m_local;
  std::vector<std::uint64_t> m_domains;
  std::vector<Fixed> m_fixed;
  std::vector<std::uint64_t> m_one, m_sup;
  std::vector<TraceStep> m_trace;
};

void BlockSolver::build_local(const Box& region) {
  const std::uint32_t w = m_m.words;
  m_cells.clear();
  for (std::uint32_t z = 0; z < m_z; ++z) {
    for (std::uint32_t y = region.y0; y < region.y1; ++y) {
      for (std::uint32_t x = region.x0; x < region.x1; ++x) {
        const CellId c = x + m_grid.size_x * (y + m_grid.size_y * z);
        m_local_of[c] = static_cast<CellId>(m_cells.size());
        m_cells.push_back(c);
      }
    }
  }
  const auto n = static_cast<std::uint32_t>(m_cells.size());
  m_local.cell_count = n;
  m_local.label_count = m_grid.label_count;
  m_local.opposite = m_grid.opposite;
  m_local.size_x = region.x1 - region.x0;
  m_local.size_y = region.y1 - region.y0;
  m_local.size_z = m_z;
  m_local.offsets.clear();
  m_local.sides.clear();
  m_domains.resize(std::size_t{n} * w);
  m_fixed.clear();
  m_one.assign(w, 0);
  m_sup.assign(w, 0);
  for (CellId l = 0; l < n; ++l) {
    const CellId c = m_cells[l];
    m_local.offsets.push_back(static_cast<std::uint32_t>(m_local.sides.size()));
    std::uint64_t* d = &m_domains[std::size_t{l} * w];
    std::copy_n(&base[std::size_t{c} * w], w, d);
    if (pinned[c] != 0) m_fixed.push_back({l, committed[c]});
    for (std::uint32_t s = m_grid.offsets[c]; s < m_grid.offsets[c + 1]; ++s) {
      const Side side = m_grid.sides[s];
      if (side.cell != kBoundary && m_local_of[side.cell] != kBoundary) {
        m_local.sides.push_back({m_local_of[side.cell], side.label});
        continue;
      }
      m_local.sides.push_back({kBoundary, side.label});
      if (side.cell == kBoundary) continue;  // The Empty boundary is already in `base`.
      // A border cell outside the region: its committed tile, or else its options, limit ours.
      const std::uint64_t* outside = &base[std::size_t{side.cell} * w];
      std::uint32_t count = 0;
      if (committed[side.cell] != kNoTile) {
        std::fill(m_one.begin(), m_one.end(), 0);
        m_one[committed[side.cell] >> 6U] = std::uint64_t{1} << (committed[side.cell] & 63U);
        outside = m_one.data();
        count = 1;
      } else {
        for (std::uint32_t i = 0; i < w; ++i) {
          count += static_cast<std::uint32_t>(std::popcount(outside[i]));
        }
      }
      support(m_m, outside, count, m_m.opposite[side.label], m_sup.data());
      for (std::uint32_t i = 0; i < w; ++i) {
        d[i] &= m_sup[i];
      }
    }
  }
  m_local.offsets.push_back(static_cast<std::uint32_t>(m_local.sides.size()));
  for (const CellId c : m_cells) {
    m_local_of[c] = kBoundary;
  }
}

bool BlockSolver::solve_region(const Box& region, const Box& core, std::uint64_t key) {
  build_local(region);
  std::vector<TraceStep>* trace = m_options.trace ? &m_trace : nullptr;
  m_trace.clear();
  bool solved = false;
  // A reset that fails means the borders leave no way to fill the region.
  if (start(m_search, m_m, m_local, m_domains.data(), m_fixed, trace)) {
    m_search.set_root();
    for (std::uint32_t attempt = 0; attempt <= m_options.max_restarts && !solved; ++attempt) {
      if (attempt > 0) {
        ++m_sol.stats.restarts;
        if (trace != nullptr) trace->push_back({TraceStep::Kind::restart, 0, kNoTile, 0});
        m_search.restore_root();
      }
      Rng rng{m_options.seed, Stage::wfc, m_options.object_id, hash_combine(key, attempt)};
      const Search::Outcome out = m_search.run(rng, m_options.backtrack_budget, m_sol.stats);
      solved = out == Search::Outcome::solved;
      if (out == Search::Outcome::unsatisfiable) break;
    }
  }
  if (trace != nullptr) {
    for (TraceStep step : m_trace) {
      if (step.cell < m_cells.size()) step.cell = m_cells[step.cell];
      m_sol.trace.push_back(step);
    }
  }
  if (!solved) return false;
  for (CellId l = 0; l < m_cells.size(); ++l) {
    const CellId c = m_cells[l];
    if (committed[c] != kNoTile || inside(core, c)) committed[c] = m_search.tile(l);
  }
  return true;
}

// Blocks along one axis: starts every `step` cells, the last one reaching the end.
std::uint32_t block_count(std::uint32_t size, std::uint32_t block, std::uint32_t step) {
  if (size <= block) return 1;
  return (size - block + step - 1) / step + 1;
}

}  // namespace

Result<Solution> solve_blocks(const Compiled& m, const Grid& grid, const std::vector<Fixed>& fixed,
                              const SolveOptions& options) {
  Solution sol;
  const std::uint32_t w = m.words;
  BlockSolver solver(m, grid, options, sol);
  // 1. Boundary and pre-placed tiles over the whole grid: the same checks and messages as a
  // single solve, and every block starts from these arc-consistent options.
  {
    Search global(m);
    std::vector<std::uint64_t> domains = boundary_domains(m, grid);
    restrict_domains(m, grid, options, domains);
    if (Status st = start(global, m, grid, domains.data(), fixed, nullptr); !st) {
      return st.error();
    }
    solver.base.resize(std::size_t{grid.cell_count} * w);
    for (CellId c = 0; c < grid.cell_count; ++c) {
      std::copy_n(global.options(c), w, &solver.base[std::size_t{c} * w]);
    }
  }
  solver.committed.assign(grid.cell_count, kNoTile);
  solver.pinned.assign(grid.cell_count, 0);
  for (const Fixed& f : fixed) {
    solver.committed[f.cell] = f.tile;
    solver.pinned[f.cell] = 1;
  }

  // 2. Blocks in rows along +x, then +y; each commits its core.
  const std::uint32_t block = std::max(options.block_size, 2U);
  const std::uint32_t overlap = std::min(options.block_overlap, block / 2);
  const std::uint32_t step = block - overlap;
  const std::uint32_t nx = block_count(grid.size_x, block, step);
  const std::uint32_t ny = block_count(grid.size_y, block, step);
  const std::uint32_t grow = std::max(overlap, 2U);
  for (std::uint32_t by = 0; by < ny; ++by) {
    for (std::uint32_t bx = 0; bx < nx; ++bx) {
      const std::uint32_t id = by * nx + bx;
      const Box box{bx * step, std::min(bx * step + block, grid.size_x), by * step,
                    std::min(by * step + block, grid.size_y)};
      const Box core{box.x0, bx + 1 == nx ? grid.size_x : box.x0 + step, box.y0,
                     by + 1 == ny ? grid.size_y : box.y0 + step};
      ++sol.stats.blocks;
      if (options.trace) {
        sol.trace.push_back({TraceStep::Kind::block, box.x0 + grid.size_x * box.y0, kNoTile, id});
      }
      const std::uint64_t key = hash_combine(0x626c6f636bULL, id);
      if (solver.solve_region(box, core, hash_combine(key, 0))) continue;
      // 3. Local repair: reset a growing neighbourhood, committed cells included.
      bool repaired = false;
      for (std::uint32_t round = 1; round <= kRepairRounds && !repaired; ++round) {
        ++sol.stats.block_repairs;
        const std::uint32_t r = grow * ((round + 1) / 2);
        const Box region{box.x0 > r ? box.x0 - r : 0, std::min(box.x1 + r, grid.size_x),
                         box.y0 > r ? box.y0 - r : 0, std::min(box.y1 + r, grid.size_y)};
        repaired = solver.solve_region(region, core, hash_combine(key, round));
        const bool whole = region.x0 == 0 && region.y0 == 0 && region.x1 == grid.size_x &&
                           region.y1 == grid.size_y;
        if (!repaired && whole) break;
      }
      if (!repaired) {
        return Error::invalid_input(
            m.where, "no solution: block " + std::to_string(id) + " at " +
                         cell_name(grid, box.x0 + grid.size_x * box.y0) +
                         " failed and local repair up to the whole grid failed too, within " +
                         std::to_string(options.backtrack_budget) + " backtracks and " +
                         std::to_string(options.max_restarts) + " restarts per region");
      }
    }
  }
  sol.tiles = std::move(solver.committed);
  for (CellId c = 0; c < grid.cell_count; ++c) {
    if (sol.tiles[c] == kNoTile) {
      return Error::internal(m.where, "block-wise solve left " + cell_name(grid, c) + " unset");
    }
  }
  return sol;
}

}  // namespace cityforge::wfc::detail
