// SPDX-License-Identifier: Apache-2.0
// The WFC solver: observe the minimum weighted-Shannon-entropy cell (seeded tie-break noise),
// pick one of its options by weight, propagate until nothing changes, and on a contradiction
// undo the latest decision and forbid it (bounded backtracking), restarting on a new
// sub-stream when the budget runs out.
// Based on: M. Gumin, WaveFunctionCollapse (2016), the observe / propagate loop and entropy;
// P. Merrell, Model Synthesis (2009), the arc-consistency view and backtracking.
// Propagation keeps, per cell and side label, the union of the tiles its options allow there
// (the "support" of the neighbour's options): a neighbour option survives iff its support
// count is non-zero, which is the bit of the union. The union is computed from nibble tables,
// one OR per non-zero group of four options, which beats per-option counters (AC-4) when a
// cell has dozens of options and thousands of constraints, as 3D models learned from example
// layouts have.

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "cityforge/wfc/wfc.hpp"
#include "wfc/detail/solver.hpp"

namespace cityforge::wfc {

namespace detail {

namespace {

// Nibble tables are built only up to this size; larger tile sets OR per option.
constexpr std::size_t kMaxNibbleTableBytes = std::size_t{8} << 20U;
// Tie-break noise on the entropy: far below any entropy difference of real weights.
constexpr double kNoiseScale = 1e-6;

bool has_bit(const std::uint64_t* set, TileId t) { return ((set[t >> 6U] >> (t & 63U)) & 1U) != 0; }

}  // namespace

std::string cell_name(const Grid& grid, CellId cell) {
  std::string s = "cell " + std::to_string(cell);
  if (grid.size_x > 0 && grid.size_y > 0 &&
      std::uint64_t{grid.size_x} * grid.size_y * std::max(grid.size_z, 1U) == grid.cell_count) {
    const std::uint32_t x = cell % grid.size_x;
    const std::uint32_t y = (cell / grid.size_x) % grid.size_y;
    const std::uint32_t z = cell / (grid.size_x * grid.size_y);
    s += " (x " + std::to_string(x) + ", y " + std::to_string(y) + ", z " + std::to_string(z) + ")";
  }
  return s;
}

Result<Compiled> compile(const Model& model) {
  Compiled m;
  m.where = "wfc model '" + model.name + "'";
  const std::size_t tiles = model.tiles.size();
  if (tiles == 0 || tiles > kMaxTiles) {
    return Error::invalid_input(
        m.where, "needs 1.." + std::to_string(kMaxTiles) + " tiles, got " + std::to_string(tiles));
  }
  if (model.label_count == 0 || model.label_count > kMaxLabels) {
    return Error::invalid_input(m.where, "label_count must be 1.." + std::to_string(kMaxLabels) +
                                             ", got " + std::to_string(model.label_count));
  }
  m.opposite = model.opposite;
  if (m.opposite.empty()) {
    // Square-grid labels pair up as 0/1, 2/3, 4/5.
    for (Label d = 0; d < model.label_count; ++d) {
      m.opposite.push_back(static_cast<Label>(d ^ 1U));
    }
  }
  if (m.opposite.size() != model.label_count) {
    return Error::invalid_input(m.where, "opposite needs " + std::to_string(model.label_count) +
                                             " entries, got " + std::to_string(m.opposite.size()));
  }
  for (Label d = 0; d < model.label_count; ++d) {
    if (m.opposite[d] >= model.label_count || m.opposite[m.opposite[d]] != d) {
      return Error::invalid_input(m.where,
                                  "opposite[" + std::to_string(d) + "] is not an involution");
    }
  }
  if (model.empty != kNoTile && model.empty >= tiles) {
    return Error::invalid_input(m.where,
                                "empty tile id " + std::to_string(model.empty) + " out of range");
  }
  m.tile_count = static_cast<std::uint32_t>(tiles);
  m.label_count = model.label_count;
  m.words = (m.tile_count + 63U) / 64U;
  m.empty = model.empty;
  const std::uint32_t w = m.words;
  const std::uint32_t labels = m.label_count;
  m.weight.resize(tiles);
  m.wlogw.resize(tiles);
  m.names.resize(tiles);
  m.all.assign(w, 0);
  for (TileId t = 0; t < tiles; ++t) {
    const double wt = model.tiles[t].weight;
    if (!(wt > 0.0) || !std::isfinite(wt)) {
      return Error::invalid_input(m.where, "tile '" + model.tiles[t].name +
                                               "' needs a weight > 0, got " + std::to_string(wt));
    }
    m.weight[t] = wt;
    m.wlogw[t] = wt * std::log(wt);
    m.names[t] = model.tiles[t].name;
    m.all[t >> 6U] |= std::uint64_t{1} << (t & 63U);
  }

  // 1. Listed constraints, then keep those listed in both directions.
  std::vector<std::uint64_t> raw(tiles * labels * w, 0);
  for (const Constraint& c : model.constraints) {
    if (c.key >= tiles || c.adjacent >= tiles || c.label >= labels) {
      return Error::invalid_input(m.where, "constraint (" + std::to_string(c.key) + ", " +
                                               std::to_string(c.label) + ", " +
                                               std::to_string(c.adjacent) + ") out of range");
    }
    raw[(c.key * labels + c.label) * w + (c.adjacent >> 6U)] |= std::uint64_t{1}
                                                                << (c.adjacent & 63U);
  }
  m.compat.assign(raw.size(), 0);
  for (TileId a = 0; a < tiles; ++a) {
    for (Label d = 0; d < labels; ++d) {
      const std::uint64_t* row = &raw[(a * labels + d) * w];
      for (std::uint32_t i = 0; i < w; ++i) {
        for (std::uint64_t bits = row[i]; bits != 0; bits &= bits - 1) {
          const TileId b = i * 64U + static_cast<TileId>(std::countr_zero(bits));
          if (has_bit(&raw[(b * labels + m.opposite[d]) * w], a)) {
            m.compat[(a * labels + d) * w + i] |= std::uint64_t{1} << (b & 63U);
          }
        }
      }
    }
  }

  // 2. Nibble tables: entry v of nibble k is entry (v without its lowest bit) plus the
  // lowest bit's tile, so each entry costs one OR.
  const std::uint32_t nibbles = (m.tile_count + 3U) / 4U;
  const std::size_t table_words = std::size_t{labels} * nibbles * 16U * w;
  if (table_words * sizeof(std::uint64_t) <= kMaxNibbleTableBytes) {
    m.nibbles = nibbles;
    m.nibble.assign(table_words, 0);
    for (Label d = 0; d < labels; ++d) {
      for (std::uint32_t k = 0; k < nibbles; ++k) {
        std::uint64_t* base = &m.nibble[(std::size_t{d} * nibbles + k) * 16U * w];
        for (std::uint32_t v = 1; v < 16; ++v) {
          const TileId t = 4U * k + static_cast<TileId>(std::countr_zero(v));
          const std::uint64_t* prev = base + std::size_t{v & (v - 1U)} * w;
          std::uint64_t* out = base + std::size_t{v} * w;
          for (std::uint32_t i = 0; i < w; ++i) {
            out[i] = prev[i] | (t < tiles ? m.compat[(t * labels + d) * w + i] : 0);
          }
        }
      }
    }
  }
  return m;
}

Status check_grid(const Compiled& m, const Grid& grid) {
  if (m.label_count != grid.label_count) {
    return Error::invalid_input(m.where, "model has " + std::to_string(m.label_count) +
                                             " side labels but the grid has " +
                                             std::to_string(grid.label_count));
  }
  if (m.opposite != grid.opposite) {
    return Error::invalid_input(m.where,
                                "model's opposite labels differ from the grid's (a model for "
                                "another kind of grid?)");
  }
  return Ok{};
}

namespace {

// W > 0: a compile-time word count (the loops unroll); W == 0: m.words at run time.
template <std::uint32_t W>
void support_words(const Compiled& m, const std::uint64_t* options, std::uint32_t count,
                   Label label, std::uint64_t* out) {
  const std::uint32_t w = W > 0 ? W : m.words;
  std::uint64_t acc[W > 0 ? W : 1] = {};
  std::uint64_t* dst = W > 0 ? acc : out;
  if (W == 0) std::fill(out, out + w, 0);
  if (m.nibbles == 0 || count * 4U <= m.nibbles) {
    for (std::uint32_t i = 0; i < w; ++i) {
      for (std::uint64_t bits = options[i]; bits != 0; bits &= bits - 1) {
        const TileId t = i * 64U + static_cast<TileId>(std::countr_zero(bits));
        const std::uint64_t* row = &m.compat[(std::size_t{t} * m.label_count + label) * w];
        for (std::uint32_t j = 0; j < w; ++j) {
          dst[j] |= row[j];
        }
      }
    }
  } else {
    const std::uint64_t* table = &m.nibble[std::size_t{label} * m.nibbles * 16U * w];
    for (std::uint32_t i = 0; i < w; ++i) {
      const std::uint32_t k_end = std::min(m.nibbles, (i + 1) * 16U);
      std::uint64_t word = options[i];
      for (std::uint32_t k = i * 16U; k < k_end && word != 0; ++k, word >>= 4U) {
        const auto v = static_cast<std::uint32_t>(word & 15U);
        if (v == 0) continue;
        const std::uint64_t* row = table + (std::size_t{k} * 16U + v) * w;
        for (std::uint32_t j = 0; j < w; ++j) {
          dst[j] |= row[j];
        }
      }
    }
  }
  if (W > 0) std::copy(acc, acc + w, out);
}

}  // namespace

void support(const Compiled& m, const std::uint64_t* options, std::uint32_t count, Label label,
             std::uint64_t* out) {
  switch (m.words) {
    case 1:
      return support_words<1>(m, options, count, label, out);
    case 2:
      return support_words<2>(m, options, count, label, out);
    case 3:
      return support_words<3>(m, options, count, label, out);
    case 4:
      return support_words<4>(m, options, count, label, out);
    default:
      return support_words<0>(m, options, count, label, out);
  }
}

void restrict_domains(const Compiled& m, const Grid& grid, const SolveOptions& options,
                      std::vector<std::uint64_t>& domains) {
  if (!options.allow) return;
  const std::uint32_t w = m.words;
  for (CellId c = 0; c < grid.cell_count; ++c) {
    std::uint64_t* d = &domains[std::size_t{c} * w];
    for (std::uint32_t i = 0; i < w; ++i) {
      for (std::uint64_t bits = d[i]; bits != 0; bits &= bits - 1) {
        const TileId t = i * 64U + static_cast<TileId>(std::countr_zero(bits));
        if (!options.allow(c, t)) d[i] &= ~(std::uint64_t{1} << (t & 63U));
      }
    }
  }
}

std::vector<std::uint64_t> boundary_domains(const Compiled& m, const Grid& grid) {
  const std::uint32_t w = m.words;
  std::vector<std::uint64_t> domains(std::size_t{grid.cell_count} * w);
  for (CellId c = 0; c < grid.cell_count; ++c) {
    std::uint64_t* d = &domains[std::size_t{c} * w];
    std::copy(m.all.begin(), m.all.end(), d);
    if (m.empty == kNoTile) continue;
    for (std::uint32_t s = grid.offsets[c]; s < grid.offsets[c + 1]; ++s) {
      if (grid.sides[s].cell != kBoundary) continue;
      // Tiles that may have Empty on their side `label` are those Empty allows on its
      // opposite side (compat is symmetric).
      const Label back = m.opposite[grid.sides[s].label];
      const std::uint64_t* row = &m.compat[(std::size_t{m.empty} * m.label_count + back) * w];
      for (std::uint32_t i = 0; i < w; ++i) {
        d[i] &= row[i];
      }
    }
  }
  return domains;
}

Status start(Search& search, const Compiled& m, const Grid& grid, const std::uint64_t* domains,
             const std::vector<Fixed>& fixed, std::vector<TraceStep>* trace) {
  // 1. The Empty boundary alone.
  if (!search.reset(grid, domains, trace)) {
    return Error::invalid_input(m.where,
                                "no solution: the constraints and the Empty boundary "
                                "leave " +
                                    cell_name(grid, search.conflict_cell()) + " with no option");
  }
  // 2. Pre-placed tiles, each propagated before the next, so the message names the first
  // that cannot stand with the ones before it.
  for (const Fixed& f : fixed) {
    const Search::Fix r = search.fix(f.cell, f.tile);
    if (r == Search::Fix::ok) continue;
    std::string msg = "pre-placed tile '" + m.names[f.tile] + "' at " + cell_name(grid, f.cell) +
                      " contradicts the constraints: ";
    msg += r == Search::Fix::ruled_out
               ? "it may not sit there (ruled out by the Empty boundary or the pre-placed "
                 "tiles before it)"
               : "propagating it leaves " + cell_name(grid, search.conflict_cell()) +
                     " with no option";
    return Error::invalid_input(m.where, msg);
  }
  return Ok{};
}

// ---- Search -------------------------------------------------------------------------------

void Search::trace(TraceStep::Kind kind, CellId cell, TileId tile) {
  if (m_trace == nullptr) return;
  // A contradiction the global check found names no cell (kBoundary).
  m_trace->push_back({kind, cell, tile, cell < m_count.size() ? m_count[cell] : 0U});
}

void Search::set_weights(const SolveOptions& options) {
  m_keep = options.keep.empty() ? nullptr : &options.keep;
  m_keep_factor = options.keep_factor;
  if (options.weight_sets.empty()) {
    m_class = nullptr;
    return;
  }
  m_wset.clear();
  m_wlogwset.clear();
  for (const std::vector<double>& set : options.weight_sets) {
    for (double w : set) {
      m_wset.push_back(w);
      m_wlogwset.push_back(w * std::log(w));
    }
  }
  m_class = options.weight_class.data();
}

double Search::entropy(CellId cell) const {
  const double sw = m_sum_w[cell];
  return std::log(sw) - m_sum_wlogw[cell] / sw;
}

void Search::heap_up(std::uint32_t at) {
  const CellId cell = m_heap[at];
  while (at > 0) {
    const std::uint32_t parent = (at - 1) / 2;
    if (!heap_before(cell, m_heap[parent])) break;
    heap_place(at, m_heap[parent]);
    at = parent;
  }
  heap_place(at, cell);
}

void Search::heap_down(std::uint32_t at) {
  const CellId cell = m_heap[at];
  const auto size = static_cast<std::uint32_t>(m_heap.size());
  for (;;) {
    std::uint32_t child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size && heap_before(m_heap[child + 1], m_heap[child])) ++child;
    if (!heap_before(m_heap[child], cell)) break;
    heap_place(at, m_heap[child]);
    at = child;
  }
  heap_place(at, cell);
}

void Search::heap_update(CellId cell) {
  if (!m_heap_live) return;
  const std::uint32_t at = m_heap_at[cell];
  if (m_count[cell] <= 1) {
    if (at == kNotInHeap) return;
    // Out: the last cell takes its place and moves up or down from there.
    const CellId last = m_heap.back();
    m_heap.pop_back();
    m_heap_at[cell] = kNotInHeap;
    if (last == cell) return;
    heap_place(at, last);
    heap_up(at);
    heap_down(m_heap_at[last]);
    return;
  }
  m_key[cell] = entropy(cell) + m_noise[cell];
  if (at == kNotInHeap) {
    m_heap.push_back(cell);
    heap_up(static_cast<std::uint32_t>(m_heap.size() - 1));
    return;
  }
  heap_up(at);
  heap_down(m_heap_at[cell]);
}

CellId Search::heap_pop() {
  if (m_heap.empty()) return kBoundary;
  const CellId top = m_heap.front();
  const CellId last = m_heap.back();
  m_heap.pop_back();
  m_heap_at[top] = kNotInHeap;
  if (last != top) {
    heap_place(0, last);
    heap_down(0);
  }
  return top;
}

bool Search::reset(const Grid& grid, const std::uint64_t* domains,
                   std::vector<TraceStep>* trace_out) {
  m_grid = &grid;
  m_trace = trace_out;
  m_w = m_m.words;
  const std::uint32_t n = grid.cell_count;
  m_wave.assign(domains, domains + std::size_t{n} * m_w);
  m_count.assign(n, 0);
  m_sum_w.assign(n, 0.0);
  m_sum_wlogw.assign(n, 0.0);
  m_noise.assign(n, 0.0);
  m_heap_at.assign(n, kNotInHeap);
  m_key.assign(n, 0.0);
  m_saved_at.assign(n, 0);
  m_queued.assign(n, 0);
  m_tmp.assign(m_w, 0);
  m_trail.clear();
  m_trail_words.clear();
  m_decisions.clear();
  m_heap.clear();
  m_heap_live = false;
  m_queue.clear();
  m_levels = 1;
  m_level = 1;
  m_root_level = 1;
  m_root = 0;
  m_conflict = kBoundary;
  m_stats = &m_scratch_stats;
  for (CellId c = 0; c < n; ++c) {
    const std::uint64_t* d = options(c);
    for (std::uint32_t i = 0; i < m_w; ++i) {
      for (std::uint64_t bits = d[i]; bits != 0; bits &= bits - 1) {
        const TileId t = i * 64U + static_cast<TileId>(std::countr_zero(bits));
        ++m_count[c];
        m_sum_w[c] += weight(c, t);
        m_sum_wlogw[c] += wlogw(c, t);
      }
    }
    if (m_count[c] == 0) {
      m_conflict = c;
      return false;
    }
  }
  // Every cell's starting options restrict its neighbours.
  m_queue.reserve(n);
  for (CellId c = n; c-- > 0;) {
    m_queue.push_back(c);
    m_queued[c] = 1;
  }
  return propagate();
}

Search::Fix Search::fix(CellId cell, TileId tile) {
  if (!has_bit(options(cell), tile)) return Fix::ruled_out;
  // narrow() reads m_tmp before propagate() reuses it.
  std::fill(m_tmp.begin(), m_tmp.end(), 0);
  m_tmp[tile >> 6U] = std::uint64_t{1} << (tile & 63U);
  return narrow(cell, m_tmp.data(), false) && propagate() ? Fix::ok : Fix::contradiction;
}

void Search::set_root() {
  m_root = m_trail.size();
  m_root_level = ++m_levels;
  m_level = m_root_level;
}

void Search::restore_root() {
  m_decisions.clear();
  m_level = m_root_level;
  undo_to(m_root);
}

TileId Search::tile(CellId cell) const {
  if (m_count[cell] != 1) return kNoTile;
  const std::uint64_t* d = options(cell);
  for (std::uint32_t i = 0; i < m_w; ++i) {
    if (d[i] != 0) return i * 64U + static_cast<TileId>(std::countr_zero(d[i]));
  }
  return kNoTile;
}

TileId Search::choose(CellId cell, double r) const {
  const std::uint64_t* d = options(cell);
  double acc = 0.0;
  TileId last = kNoTile;
  for (std::uint32_t i = 0; i < m_w; ++i) {
    for (std::uint64_t bits = d[i]; bits != 0; bits &= bits - 1) {
      last = i * 64U + static_cast<TileId>(std::countr_zero(bits));
      acc += weight(cell, last);
      if (r < acc) return last;
    }
  }
  return last;  // Rounding left r at the very top.
}

bool Search::narrow(CellId cell, const std::uint64_t* mask, bool by_propagation) {
  std::uint64_t* d = &m_wave[std::size_t{cell} * m_w];
  bool changed = false;
  bool any = false;
  for (std::uint32_t i = 0; i < m_w; ++i) {
    const std::uint64_t nv = d[i] & mask[i];
    changed |= nv != d[i];
    any |= nv != 0;
  }
  if (!changed) return true;
  if (!any) {
    m_conflict = cell;
    return false;
  }
  const auto watched = [&](const std::uint64_t* w) {
    for (std::uint32_t i = 0; i < m_w; ++i) {
      if ((w[i] & m_watch[i]) != 0) return true;
    }
    return false;
  };
  const bool had_watched = m_check != nullptr && watched(d);
  // 1. Trail the cell once per decision level, so undo restores it exactly.
  if (m_saved_at[cell] != m_level) {
    m_trail.push_back({cell, m_count[cell], m_saved_at[cell], m_sum_w[cell], m_sum_wlogw[cell]});
    m_trail_words.insert(m_trail_words.end(), d, d + m_w);
    m_saved_at[cell] = m_level;
  }
  // 2. Remove the options, keeping the entropy sums incremental.
  std::uint32_t removed = 0;
  for (std::uint32_t i = 0; i < m_w; ++i) {
    for (std::uint64_t bits = d[i] & ~mask[i]; bits != 0; bits &= bits - 1) {
      const TileId t = i * 64U + static_cast<TileId>(std::countr_zero(bits));
      m_sum_w[cell] -= weight(cell, t);
      m_sum_wlogw[cell] -= wlogw(cell, t);
      --m_count[cell];
      ++removed;
      if (by_propagation && m_trace != nullptr) trace(TraceStep::Kind::propagate, cell, t);
    }
    d[i] &= mask[i];
  }
  if (by_propagation) m_stats->propagations += removed;
  if (had_watched && (!watched(d) || m_count[cell] == 1)) m_changed.push_back(cell);
  heap_update(cell);
  if (m_queued[cell] == 0) {
    m_queued[cell] = 1;
    m_queue.push_back(cell);
  }
  return true;
}

bool Search::propagate() {
  const Grid& g = *m_grid;
  std::uint64_t* sup = m_tmp.data();
  while (!m_queue.empty()) {
    const CellId n = m_queue.back();
    m_queue.pop_back();
    m_queued[n] = 0;
    for (std::uint32_t s = g.offsets[n]; s < g.offsets[n + 1]; ++s) {
      const Side side = g.sides[s];
      if (side.cell == kBoundary) continue;
      bool ok = true;
      if (m_count[side.cell] == 1) {
        // A decided neighbour keeps its tile or is left with none: it keeps it when one of this
        // cell's options allows it on this side, that is (compat is symmetric) when the tile
        // allows one of them on the opposite side. One AND of words instead of the support.
        const TileId t = tile(side.cell);
        const std::uint64_t* back =
            &m_m.compat[(std::size_t{t} * m_m.label_count + m_m.opposite[side.label]) * m_w];
        const std::uint64_t* mine = options(n);
        bool allowed = false;
        for (std::uint32_t i = 0; i < m_w; ++i)
          allowed |= (back[i] & mine[i]) != 0;
        if (!allowed) {
          m_conflict = side.cell;
          ok = false;
        }
      } else {
        support(m_m, options(n), m_count[n], side.label, sup);
        ok = narrow(side.cell, sup, true);
      }
      if (!ok) {
        for (const CellId q : m_queue) {
          m_queued[q] = 0;
        }
        m_queue.clear();
        return false;
      }
    }
  }
  return true;
}

void Search::set_check(const SolveOptions& options) {
  m_check = options.check ? &options : nullptr;
  m_watch.assign(m_m.words, 0);
  for (const TileId t : options.watch) {
    if (t < m_m.tile_count) m_watch[t >> 6U] |= std::uint64_t{1} << (t & 63U);
  }
}

bool Search::check_state() {
  if (m_check == nullptr || m_changed.empty()) return true;
  const bool ok = m_check->check(SearchView(m_wave.data(), m_count.data(), m_w), m_changed);
  m_changed.clear();
  if (!ok) m_conflict = kBoundary;  // The global check, not a cell, refused the state.
  return ok;
}

void Search::undo_to(std::size_t mark) {
  while (m_trail.size() > mark) {
    const Saved e = m_trail.back();
    m_trail.pop_back();
    const std::size_t at = m_trail_words.size() - m_w;
    std::copy(m_trail_words.begin() + static_cast<std::ptrdiff_t>(at), m_trail_words.end(),
              m_wave.begin() + static_cast<std::ptrdiff_t>(std::size_t{e.cell} * m_w));
    m_trail_words.resize(at);
    m_count[e.cell] = e.count;
    m_saved_at[e.cell] = e.saved_at;
    m_sum_w[e.cell] = e.sum_w;
    m_sum_wlogw[e.cell] = e.sum_wlogw;
    heap_update(e.cell);
  }
}

Search::Outcome Search::run(Rng& rng, std::uint32_t budget, SolveStats& stats) {
  m_stats = &stats;
  const std::uint32_t n = m_grid->cell_count;
  for (CellId c = 0; c < n; ++c) {
    m_noise[c] = kNoiseScale * rng.uniform01();
  }
  if (m_bias != nullptr && m_bias->size() == n) {
    for (CellId c = 0; c < n; ++c) {
      m_noise[c] += (*m_bias)[c];
    }
  }
  // The heap anew: every undecided cell with this run's noise.
  for (const CellId c : m_heap)
    m_heap_at[c] = kNotInHeap;
  m_heap.clear();
  for (CellId c = 0; c < n; ++c) {
    if (m_count[c] <= 1) continue;
    m_key[c] = entropy(c) + m_noise[c];
    m_heap_at[c] = static_cast<std::uint32_t>(m_heap.size());
    m_heap.push_back(c);
  }
  for (auto at = static_cast<std::uint32_t>(m_heap.size() / 2); at-- > 0;)
    heap_down(at);
  m_heap_live = true;
  struct Leave {
    bool& live;
    ~Leave() { live = false; }
  } leave{m_heap_live};
  std::uint32_t undone = 0;
  std::vector<std::uint64_t>& mask = m_tmp;
  for (;;) {
    // 1. Observe: the undecided cell of least entropy.
    const CellId cell = heap_pop();
    bool ok = true;
    if (cell == kBoundary) {
      // Every cell is decided: the check has the last word on the whole solution.
      ok = m_check == nullptr || m_check->check(SearchView(m_wave.data(), m_count.data(), m_w), {});
      if (ok) {
        m_stats = &m_scratch_stats;
        return Outcome::solved;
      }
    } else {
      // 2. Pick one option by weight.
      const TileId pick = choose(cell, rng.uniform01() * m_sum_w[cell]);
      ++stats.observations;
      m_decisions.push_back({cell, pick, m_trail.size(), ++m_levels});
      m_level = m_levels;
      std::fill(mask.begin(), mask.end(), 0);
      mask[pick >> 6U] = std::uint64_t{1} << (pick & 63U);
      m_changed.clear();
      ok = narrow(cell, mask.data(), false);
      trace(TraceStep::Kind::observe, cell, pick);
      ok = ok && propagate() && check_state();
    }
    // 3. On a contradiction undo the latest decision and forbid it, as often as needed.
    while (!ok) {
      ++stats.contradictions;
      trace(TraceStep::Kind::contradiction, m_conflict, kNoTile);
      if (m_decisions.empty()) {
        m_stats = &m_scratch_stats;
        return Outcome::unsatisfiable;
      }
      if (undone >= budget) {
        m_stats = &m_scratch_stats;
        return Outcome::budget;
      }
      const Decision last = m_decisions.back();
      m_decisions.pop_back();
      m_level = m_decisions.empty() ? m_root_level : m_decisions.back().level;
      undo_to(last.trail_mark);
      ++undone;
      ++stats.backtracks;
      trace(TraceStep::Kind::backtrack, last.cell, last.tile);
      std::copy(m_m.all.begin(), m_m.all.end(), mask.begin());
      mask[last.tile >> 6U] &= ~(std::uint64_t{1} << (last.tile & 63U));
      m_changed.clear();
      ok = narrow(last.cell, mask.data(), false) && propagate() && check_state();
    }
  }
}

}  // namespace detail

namespace {

Result<Solution> solve_whole(const detail::Compiled& m, const Grid& grid,
                             const std::vector<Fixed>& fixed, const SolveOptions& options) {
  Solution sol;
  std::vector<TraceStep>* trace = options.trace ? &sol.trace : nullptr;
  std::vector<std::uint64_t> domains = detail::boundary_domains(m, grid);
  detail::restrict_domains(m, grid, options, domains);
  detail::Search search(m);
  search.set_order_bias(&options.order_bias);
  search.set_weights(options);
  search.set_check(options);
  if (Status st = detail::start(search, m, grid, domains.data(), fixed, trace); !st) {
    return st.error();
  }
  search.set_root();
  // 3. Attempts on sub-streams 0, 1, ... each with the full backtrack budget.
  for (std::uint32_t attempt = 0; attempt <= options.max_restarts; ++attempt) {
    if (attempt > 0) {
      ++sol.stats.restarts;
      if (trace != nullptr) trace->push_back({TraceStep::Kind::restart, 0, kNoTile, 0});
      search.restore_root();
    }
    Rng rng{options.seed, Stage::wfc, options.object_id, attempt};
    const detail::Search::Outcome out = search.run(rng, options.backtrack_budget, sol.stats);
    if (out == detail::Search::Outcome::solved) {
      sol.tiles.resize(grid.cell_count);
      for (CellId c = 0; c < grid.cell_count; ++c) {
        sol.tiles[c] = search.tile(c);
      }
      return sol;
    }
    if (out == detail::Search::Outcome::unsatisfiable) {
      return Error::invalid_input(
          m.where, "no solution: every choice leads to a contradiction (search exhausted after " +
                       std::to_string(sol.stats.backtracks) +
                       " backtracks); the tile set cannot fill this grid");
    }
  }
  return Error::invalid_input(
      m.where, "no solution within " + std::to_string(options.backtrack_budget) +
                   " backtracks and " + std::to_string(options.max_restarts) + " restarts (" +
                   std::to_string(sol.stats.contradictions) + " contradictions met)");
}

}  // namespace

Result<CompiledModel> compile_model(const Model& model) {
  Result<detail::Compiled> compiled = detail::compile(model);
  if (!compiled) return compiled.error();
  return CompiledModel{std::make_shared<const detail::Compiled>(std::move(*compiled))};
}

namespace {

// The checks every entry point on a compiled model makes: compiled, and a valid grid the
// model's labels fit.
Result<const detail::Compiled*> compiled_for(const CompiledModel& model, const Grid& grid,
                                             const char* who) {
  if (model.data() == nullptr) {
    return Error::invalid_input(who, "the model was never compiled");
  }
  if (grid.cell_count == 0) {
    return Error::invalid_input("wfc grid", "has no cells (a size of zero?)");
  }
  if (Status st = validate_grid(grid); !st) return st.error();
  if (Status st = detail::check_grid(*model.data(), grid); !st) return st.error();
  return model.data();
}

}  // namespace

Result<Solution> solve(const CompiledModel& model, const Grid& grid,
                       const std::vector<Fixed>& fixed, const SolveOptions& options) {
  Result<const detail::Compiled*> compiled = compiled_for(model, grid, "wfc solve");
  if (!compiled) return compiled.error();
  const detail::Compiled& m = **compiled;
  if (!options.keep.empty() &&
      (options.keep.size() != grid.cell_count || !(options.keep_factor > 0.0) ||
       !std::isfinite(options.keep_factor))) {
    return Error::invalid_input(m.where, "keep needs one tile per cell (" +
                                             std::to_string(grid.cell_count) +
                                             ") and a finite keep_factor > 0");
  }
  if (!options.order_bias.empty() && options.order_bias.size() != grid.cell_count) {
    return Error::invalid_input(
        m.where, "order_bias has " + std::to_string(options.order_bias.size()) + " values for " +
                     std::to_string(grid.cell_count) + " cells");
  }
  if (!options.weight_sets.empty()) {
    if (options.weight_class.size() != grid.cell_count) {
      return Error::invalid_input(
          m.where, "weight_class has " + std::to_string(options.weight_class.size()) +
                       " values for " + std::to_string(grid.cell_count) + " cells");
    }
    for (std::uint8_t c : options.weight_class) {
      if (c >= options.weight_sets.size()) {
        return Error::invalid_input(m.where,
                                    "weight_class " + std::to_string(c) + " names no weight set");
      }
    }
    for (const std::vector<double>& set : options.weight_sets) {
      if (set.size() != m.tile_count) {
        return Error::invalid_input(m.where, "a weight set has " + std::to_string(set.size()) +
                                                 " weights for " + std::to_string(m.tile_count) +
                                                 " tiles");
      }
      for (double w : set) {
        if (!(w > 0.0) || !std::isfinite(w)) {
          return Error::invalid_input(m.where, "weight set weights must be finite and > 0");
        }
      }
    }
  }
  for (const Fixed& f : fixed) {
    if (f.cell >= grid.cell_count || f.tile >= m.tile_count) {
      return Error::invalid_input(m.where, "pre-placed tile " + std::to_string(f.tile) +
                                               " at cell " + std::to_string(f.cell) +
                                               " is out of range (" +
                                               std::to_string(grid.cell_count) + " cells, " +
                                               std::to_string(m.tile_count) + " tiles)");
    }
  }
  const bool square =
      grid.size_x > 0 && grid.size_y > 0 &&
      std::uint64_t{grid.size_x} * grid.size_y * std::max(grid.size_z, 1U) == grid.cell_count;
  if (options.block_size > 0 && square &&
      (grid.size_x > options.block_size || grid.size_y > options.block_size)) {
    return detail::solve_blocks(m, grid, fixed, options);
  }
  return solve_whole(m, grid, fixed, options);
}

Result<std::vector<std::uint8_t>> placeable(const CompiledModel& model, const Grid& grid,
                                            const std::vector<Fixed>& fixed,
                                            const SolveOptions& options,
                                            const std::vector<Fixed>& candidates) {
  Result<const detail::Compiled*> compiled = compiled_for(model, grid, "wfc placeable");
  if (!compiled) return compiled.error();
  const detail::Compiled& m = **compiled;
  for (const std::vector<Fixed>* list : {&fixed, &candidates}) {
    for (const Fixed& f : *list) {
      if (f.cell >= grid.cell_count || f.tile >= m.tile_count) {
        return Error::invalid_input(m.where, "tile " + std::to_string(f.tile) + " at cell " +
                                                 std::to_string(f.cell) + " is out of range (" +
                                                 std::to_string(grid.cell_count) + " cells, " +
                                                 std::to_string(m.tile_count) + " tiles)");
      }
    }
  }
  std::vector<std::uint64_t> domains = detail::boundary_domains(m, grid);
  detail::restrict_domains(m, grid, options, domains);
  detail::Search search(m);
  if (Status st = detail::start(search, m, grid, domains.data(), fixed, nullptr); !st) {
    return st.error();
  }
  std::vector<std::uint8_t> out;
  out.reserve(candidates.size());
  for (const Fixed& f : candidates) {
    const std::uint64_t word = search.options(f.cell)[f.tile >> 6U];
    out.push_back(((word >> (f.tile & 63U)) & 1U) != 0 ? 1 : 0);
  }
  return out;
}

Result<Solution> solve(const Model& model, const Grid& grid, const std::vector<Fixed>& fixed,
                       const SolveOptions& options) {
  Result<detail::Compiled> compiled = detail::compile(model);
  if (!compiled) return compiled.error();
  if (Status st = detail::check_grid(*compiled, grid); !st) return st.error();
  // Shares no ownership: the compiled model lives for this call only.
  const CompiledModel view{std::shared_ptr<const detail::Compiled>(
      std::shared_ptr<const detail::Compiled>{}, &*compiled)};
  return solve(view, grid, fixed, options);
}

}  // namespace cityforge::wfc
