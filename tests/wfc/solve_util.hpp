// SPDX-License-Identifier: Apache-2.0
// Hand-built models and an adjacency check of the tests' own for the solver tests (not
// check_solution, so the solver and the model code cannot agree on a mistake).
#pragma once

#include <algorithm>
#include <bit>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc::test {

// ---- Hand-built models ---------------------------------------------------------------------

inline Model make_model(const std::vector<std::string>& names, std::uint32_t label_count) {
  Model m;
  m.name = "test";
  m.label_count = label_count;
  for (std::uint32_t d = 0; d < label_count; ++d) {
    m.opposite.push_back(static_cast<Label>(d ^ 1U));
  }
  for (const std::string& n : names) {
    TileVariant v;
    v.name = n;
    v.base = static_cast<std::uint32_t>(m.base_names.size());
    m.base_names.push_back(n);
    m.tiles.push_back(v);
  }
  return m;
}

// Allows b on a's side d, and a on b's opposite side.
inline void allow(Model& m, TileId a, Label d, TileId b) {
  m.constraints.push_back({a, d, b});
  m.constraints.push_back({b, m.opposite[d], a});
}

inline void finish(Model& m) {
  std::sort(m.constraints.begin(), m.constraints.end(),
            [](const Constraint& a, const Constraint& b) {
              return std::tie(a.key, a.label, a.adjacent) < std::tie(b.key, b.label, b.adjacent);
            });
  m.constraints.erase(std::unique(m.constraints.begin(), m.constraints.end()), m.constraints.end());
}

// Square-grid tiles named by a connector per side (+x, -x, +y, -y, +z, -z): every pattern of
// `kinds` connector kinds; neighbours' facing connectors must match. Pattern 0 is Empty.
inline Model connector_model(std::uint32_t dims, std::uint32_t kinds) {
  const std::uint32_t labels = 2 * dims;
  std::uint32_t count = 1;
  for (std::uint32_t d = 0; d < labels; ++d) {
    count *= kinds;
  }
  std::vector<std::string> names;
  std::vector<std::vector<std::uint32_t>> conn(count);
  for (std::uint32_t t = 0; t < count; ++t) {
    std::string n = "c";
    for (std::uint32_t d = 0, v = t; d < labels; ++d, v /= kinds) {
      conn[t].push_back(v % kinds);
      n += std::to_string(v % kinds);
    }
    names.push_back(n);
  }
  Model m = make_model(names, labels);
  m.empty = 0;
  for (TileId a = 0; a < count; ++a) {
    // Fewer connectors are likelier, so the solutions are neither empty nor a tangle.
    std::uint32_t used = 0;
    for (std::uint32_t c : conn[a]) {
      used += c != 0 ? 1U : 0U;
    }
    m.tiles[a].weight = 1.0 + 3.0 / (1.0 + used) + 0.01 * a;
    for (TileId b = 0; b < count; ++b) {
      for (Label d = 0; d < labels; ++d) {
        if (conn[a][d] == conn[b][d ^ 1U]) m.constraints.push_back({a, d, b});
      }
    }
  }
  finish(m);
  return m;
}

// ---- The test's own adjacency check ---------------------------------------------------------

// Every side whose pair (tile, label, neighbour tile) is not listed; boundary sides count as
// Empty when the model has one.
inline std::vector<std::string> violations(const Model& m, const Grid& g,
                                           const std::vector<TileId>& tiles) {
  std::set<std::tuple<TileId, Label, TileId>> allowed;
  for (const Constraint& c : m.constraints) {
    allowed.insert({c.key, c.label, c.adjacent});
  }
  std::vector<std::string> out;
  if (tiles.size() != g.cell_count) {
    out.push_back("wrong tile count");
    return out;
  }
  for (CellId c = 0; c < g.cell_count; ++c) {
    if (tiles[c] >= m.tiles.size()) {
      out.push_back("cell " + std::to_string(c) + " has no tile");
      continue;
    }
    for (std::uint32_t s = g.offsets[c]; s < g.offsets[c + 1]; ++s) {
      const Side side = g.sides[s];
      TileId other = kNoTile;
      if (side.cell == kBoundary) {
        if (m.empty == kNoTile) continue;
        other = m.empty;
      } else {
        other = tiles[side.cell];
      }
      if (allowed.count({tiles[c], side.label, other}) == 0) {
        out.push_back("cell " + std::to_string(c) + " label " + std::to_string(side.label));
      }
    }
  }
  return out;
}

// Tiles with a bit on each of the 4 sides (+x, -x, +y, -y), neighbours' facing bits equal,
// every tile with an even number of ones; tile 0 (no ones) is Empty, weighing `empty_weight`.
// Cells' ones then sum to an even count over any region closed by zeros, a global rule no
// single cell sees: a hole whose border carries an odd count cannot be filled, and such a
// hole is only found when it is almost full.
inline Model parity_model(double empty_weight) {
  std::vector<std::string> names;
  std::vector<TileId> bits;
  for (TileId t = 0; t < 16; ++t) {
    if (std::popcount(t) % 2 == 0) {
      names.push_back(std::string("p").append(std::to_string(t)));
      bits.push_back(t);
    }
  }
  Model m = make_model(names, 4);
  m.empty = 0;
  m.tiles[0].weight = empty_weight;
  for (TileId a = 0; a < bits.size(); ++a) {
    for (TileId b = 0; b < bits.size(); ++b) {
      for (Label d = 0; d < 4; ++d) {
        if (((bits[a] >> d) & 1U) == ((bits[b] >> (d ^ 1U)) & 1U)) {
          m.constraints.push_back({a, d, b});
        }
      }
    }
  }
  finish(m);
  return m;
}

// Empty dominates the weights, so the solver scatters Empty first and leaves many small holes
// between structures; some get an odd border and contradict. On 200 x 200 cells a single
// solve meets far more of them than 64 backtracks can undo, every attempt.
inline constexpr double kEmptyWeight = 100.0;

}  // namespace cityforge::wfc::test
