// SPDX-License-Identifier: Apache-2.0
// Building a WFC model: base tiles expanded into variants by symmetry class (as in Gumin's
// simple tiled model) and multi-cell size (seeds/003), and the checks every model passes before
// a solve: both directions of every constraint, sides inside multi-cell tiles, Empty bordering
// itself, every tile placeable. Format and rules: docs/wfc.md.

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "cityforge/wfc/wfc.hpp"
#include "wfc/detail/symmetry.hpp"

namespace cityforge::wfc {
namespace {

using detail::label_name;
using detail::Transform;

constexpr const char* kSymmetryNames[] = {"X", "I", "D", "T", "L", "F"};

using detail::in_quotes;

std::string mirror_profile(const std::string& p) {
  if (!p.empty() && p.back() == '\'') return p.substr(0, p.size() - 1);
  return p + "'";
}

/// A profile is asymmetric when it is primed or its primed form is in use (docs/wfc.md).
bool asymmetric(const std::string& p, const std::vector<TileDef>& tiles) {
  if (p.empty()) return false;
  if (p.back() == '\'') return true;
  const std::string primed = p + "'";
  for (const TileDef& t : tiles) {
    if (std::find(t.profiles.begin(), t.profiles.end(), primed) != t.profiles.end()) return true;
  }
  return false;
}

Status check_def(const TileDef& def, std::uint32_t dimensions, const std::vector<TileDef>& all) {
  const std::string where = "tile " + in_quotes(def.name);
  if (def.name.empty() || def.name.find_first_of("#@ \t'\"") != std::string::npos) {
    return Error::invalid_input(where,
                                "a tile name must be non-empty without '#', '@', quotes or spaces");
  }
  if (!std::isfinite(def.weight) || def.weight <= 0.0) {
    return Error::invalid_input(where, "weight must be > 0, got " + std::to_string(def.weight));
  }
  for (std::uint32_t a = 0; a < 3; ++a) {
    if (def.size[a] < 1 || def.size[a] > 8) {
      return Error::invalid_input(
          where, "size must be 1..8 cells on each axis, got " + std::to_string(def.size[a]));
    }
    if (a >= dimensions && def.size[a] != 1) {
      return Error::invalid_input(where, "a " + std::to_string(dimensions) +
                                             "D model cannot span cells on axis " +
                                             std::string(1, static_cast<char>('x' + a)));
    }
  }
  const std::uint8_t stab = detail::stabilizer(def.symmetry) & detail::group(dimensions);
  const bool square = def.size[0] == def.size[1];
  if (!square && (stab & 0xAAU) != 0) {  // a quarter turn (odd r) among its symmetries
    return Error::invalid_input(
        where, std::string("symmetry ") + kSymmetryNames[static_cast<int>(def.symmetry)] +
                   " needs a square footprint, got " + std::to_string(def.size[0]) + "x" +
                   std::to_string(def.size[1]) + " (use I, T or F)");
  }
  const std::uint32_t labels = 2 * dimensions;
  for (std::size_t d = labels; d < def.profiles.size(); ++d) {
    if (!def.profiles[d].empty()) {
      return Error::invalid_input(where, "a " + std::to_string(dimensions) + "D model has no " +
                                             label_name(static_cast<Label>(d), 6) + " side");
    }
  }
  // The class must agree with the profiles: each symmetry maps every side's profile (mirrored
  // by a reflection) onto the side it lands on.
  const std::uint32_t horizontal = std::min(labels, 4U);
  if (def.size[0] != 1 || def.size[1] != 1 || def.profiles.size() < horizontal) return Ok{};
  for (std::uint32_t d = 0; d < horizontal; ++d) {
    if (def.profiles[d].empty()) return Ok{};
  }
  for (int e = 1; e < 8; ++e) {
    if (((stab >> e) & 1U) == 0) continue;
    const Transform s = Transform::of(e);
    for (Label d = 0; d < horizontal; ++d) {
      const std::string& p = def.profiles[d];
      const std::string want = s.m && asymmetric(p, all) ? mirror_profile(p) : p;
      const Label to = detail::apply(s, d);
      if (def.profiles[to] != want) {
        return Error::invalid_input(
            where, std::string("symmetry ") + kSymmetryNames[static_cast<int>(def.symmetry)] +
                       " needs its " + label_name(to, 6) + " profile to be " + in_quotes(want) +
                       " (its " + label_name(d, 6) + " profile" + (s.m ? ", mirrored" : "") +
                       "), got " + in_quotes(def.profiles[to]));
      }
    }
  }
  return Ok{};
}

}  // namespace

TileId Model::find(std::string_view n) const {
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    if (tiles[i].name == n) return static_cast<TileId>(i);
  }
  return kNoTile;
}

Result<Model> expand_tiles(const std::vector<TileDef>& tiles, std::uint32_t dimensions,
                           std::string_view empty_name) {
  const std::string where = "wfc model";
  if (dimensions < 1 || dimensions > 3) {
    return Error::invalid_input(where,
                                "dimensions must be 1, 2 or 3, got " + std::to_string(dimensions));
  }
  std::vector<TileDef> defs = tiles;
  // 1. The Empty tile: listed, or added as a plain X tile.
  if (!empty_name.empty()) {
    auto it = std::find_if(defs.begin(), defs.end(),
                           [&](const TileDef& d) { return d.name == empty_name; });
    if (it == defs.end()) {
      TileDef e;
      e.name = std::string(empty_name);
      defs.push_back(e);
    } else if (it->symmetry != Symmetry::X || it->size[0] != 1 || it->size[1] != 1 ||
               it->size[2] != 1) {
      return Error::invalid_input("tile " + in_quotes(empty_name),
                                  "the Empty tile must have symmetry X and span one cell");
    }
  }
  if (defs.empty()) return Error::invalid_input(where, "a model needs at least one tile");
  // 2. Each definition on its own, and unique names.
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < defs.size(); ++i) {
    if (auto s = check_def(defs[i], dimensions, defs); !s) return s.error();
    if (!seen.emplace(defs[i].name, i).second) {
      return Error::invalid_input("tile " + in_quotes(defs[i].name), "tile name defined twice");
    }
  }
  Model model;
  model.label_count = 2 * dimensions;
  for (std::uint32_t d = 0; d < model.label_count; ++d)
    model.opposite.push_back(static_cast<Label>(d ^ 1U));
  // 3. Variants: one per class of transforms, one per cell of the turned footprint.
  std::map<std::tuple<std::uint32_t, int, std::array<std::uint32_t, 3>>, TileId> index;
  for (std::size_t b = 0; b < defs.size(); ++b) {
    const TileDef& def = defs[b];
    model.base_names.push_back(def.name);
    model.base_symmetry.push_back(def.symmetry);
    const bool multi = def.size[0] * def.size[1] * def.size[2] > 1;
    std::uint8_t done = 0;
    for (int e = 0; e < 8; ++e) {
      const Transform t = Transform::of(e);
      if (((detail::group(dimensions) >> e) & 1U) == 0) continue;
      const int c = detail::canonical(def.symmetry, dimensions, t).index();
      if ((done >> c) & 1U) continue;
      done = static_cast<std::uint8_t>(done | (1U << c));
      const auto fp = detail::turned_size(def.size, t);
      for (std::uint32_t z = 0; z < fp[2]; ++z) {
        for (std::uint32_t y = 0; y < fp[1]; ++y) {
          for (std::uint32_t x = 0; x < fp[0]; ++x) {
            TileVariant v;
            v.name = def.name + detail::transform_suffix(t);
            if (multi) {
              // Appended piecewise: g++ 12 flags "@" + std::to_string(x) with a false -Wrestrict.
              v.name += '@';
              v.name += std::to_string(x);
              v.name += ',';
              v.name += std::to_string(y);
              v.name += ',';
              v.name += std::to_string(z);
            }
            v.base = static_cast<std::uint32_t>(b);
            v.rotation = t.r;
            v.reflected = t.m;
            v.part[0] = static_cast<std::uint8_t>(x);
            v.part[1] = static_cast<std::uint8_t>(y);
            v.part[2] = static_cast<std::uint8_t>(z);
            v.weight = def.weight;
            index[{static_cast<std::uint32_t>(b), e, {x, y, z}}] =
                static_cast<TileId>(model.tiles.size());
            model.tiles.push_back(std::move(v));
          }
        }
      }
    }
    if (model.tiles.size() > kMaxTiles) {
      return Error::invalid_input(where, "more than " + std::to_string(kMaxTiles) +
                                             " tile variants (at tile " + in_quotes(def.name) +
                                             ")");
    }
  }
  // 4. Parts of one multi-cell variant are forced together across their inner sides.
  for (TileId t = 0; t < model.tiles.size(); ++t) {
    const TileVariant& v = model.tiles[t];
    const TileDef& def = defs[v.base];
    const Transform tr{v.rotation, v.reflected};
    const auto fp = detail::turned_size(def.size, tr);
    for (Label d = 0; d < model.label_count; ++d) {
      std::array<std::uint32_t, 3> q{};
      if (!detail::inside_footprint(fp, v.part, d, q)) continue;
      model.constraints.push_back({t, d, index.at({v.base, tr.index(), q})});
    }
  }
  if (!empty_name.empty()) {
    model.empty = model.find(empty_name);
    for (Label d = 0; d < model.label_count; ++d)
      model.constraints.push_back({model.empty, d, model.empty});
  }
  std::sort(model.constraints.begin(), model.constraints.end(),
            [](const Constraint& a, const Constraint& b) {
              return std::tie(a.key, a.label, a.adjacent) < std::tie(b.key, b.label, b.adjacent);
            });
  return model;
}

Status finalize_model(Model& model, std::string_view where_view) {
  const std::string where(where_view);
  const auto name = [&](TileId t) { return in_quotes(model.tiles[t].name); };
  const auto side = [&](Label d) { return label_name(d, model.label_count); };
  const auto triple = [&](TileId a, Label d, TileId b) {
    return "(" + model.tiles[a].name + ", " + side(d) + ", " + model.tiles[b].name + ")";
  };
  // 1. Shape: labels, tiles, ids in range.
  if (model.label_count == 0 || model.label_count > kMaxLabels) {
    return Error::invalid_input(where, "label_count must be 1.." + std::to_string(kMaxLabels) +
                                           ", got " + std::to_string(model.label_count));
  }
  if (model.opposite.size() != model.label_count) {
    return Error::invalid_input(where, "opposite needs " + std::to_string(model.label_count) +
                                           " entries, got " +
                                           std::to_string(model.opposite.size()));
  }
  for (Label d = 0; d < model.label_count; ++d) {
    const Label o = model.opposite[d];
    if (o >= model.label_count || model.opposite[o] != d) {
      return Error::invalid_input(where,
                                  "opposite is not an involution at label " + std::to_string(d));
    }
  }
  if (model.tiles.empty() || model.tiles.size() > kMaxTiles) {
    return Error::invalid_input(where, "a model needs 1.." + std::to_string(kMaxTiles) +
                                           " tiles, got " + std::to_string(model.tiles.size()));
  }
  for (const TileVariant& v : model.tiles) {
    if (!std::isfinite(v.weight) || v.weight <= 0.0) {
      return Error::invalid_input(
          where,
          "tile " + in_quotes(v.name) + ": weight must be > 0, got " + std::to_string(v.weight));
    }
  }
  if (model.empty != kNoTile && model.empty >= model.tiles.size()) {
    return Error::invalid_input(where,
                                "empty tile id " + std::to_string(model.empty) + " out of range");
  }
  for (const Constraint& c : model.constraints) {
    if (c.key >= model.tiles.size() || c.adjacent >= model.tiles.size() ||
        c.label >= model.label_count) {
      return Error::invalid_input(where, "constraint (" + std::to_string(c.key) + ", " +
                                             std::to_string(c.label) + ", " +
                                             std::to_string(c.adjacent) + ") out of range");
    }
  }
  // 2. Sorted, no duplicates: the solver and check_solution binary-search this list.
  auto& cs = model.constraints;
  const auto less = [](const Constraint& a, const Constraint& b) {
    return std::tie(a.key, a.label, a.adjacent) < std::tie(b.key, b.label, b.adjacent);
  };
  std::sort(cs.begin(), cs.end(), less);
  cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
  const auto has = [&](TileId a, Label d, TileId b) {
    return std::binary_search(cs.begin(), cs.end(), Constraint{a, d, b}, less);
  };
  const auto range = [&](TileId a, Label d) {
    const auto lo = std::lower_bound(cs.begin(), cs.end(), Constraint{a, d, 0}, less);
    auto hi = lo;
    while (hi != cs.end() && hi->key == a && hi->label == d)
      ++hi;
    return std::make_pair(lo, hi);
  };
  // 3. Both directions of every constraint.
  for (const Constraint& c : cs) {
    const Label o = model.opposite[c.label];
    if (!has(c.adjacent, o, c.key)) {
      return Error::invalid_input(where, "constraint " + triple(c.key, c.label, c.adjacent) +
                                             " has no reverse " + triple(c.adjacent, o, c.key) +
                                             "; constraint lists must hold both directions");
    }
  }
  // 4. Inside a multi-cell tile only the neighbouring part of the same variant may sit.
  if (detail::is_square_model(model)) {
    std::map<std::tuple<std::uint32_t, int, std::array<std::uint32_t, 3>>, TileId> part_of;
    std::map<std::pair<std::uint32_t, int>, std::array<std::uint32_t, 3>> footprint;
    for (TileId t = 0; t < model.tiles.size(); ++t) {
      const TileVariant& v = model.tiles[t];
      const int e = Transform{v.rotation, v.reflected}.index();
      part_of[{v.base, e, {v.part[0], v.part[1], v.part[2]}}] = t;
      auto& fp = footprint[{v.base, e}];
      for (int a = 0; a < 3; ++a)
        fp[static_cast<std::size_t>(a)] =
            std::max<std::uint32_t>(fp[static_cast<std::size_t>(a)], v.part[a] + 1U);
    }
    for (TileId t = 0; t < model.tiles.size(); ++t) {
      const TileVariant& v = model.tiles[t];
      const int e = Transform{v.rotation, v.reflected}.index();
      const auto& fp = footprint.at({v.base, e});
      for (Label d = 0; d < model.label_count; ++d) {
        std::array<std::uint32_t, 3> q{};
        if (!detail::inside_footprint(fp, v.part, d, q)) continue;
        const auto it = part_of.find({v.base, e, q});
        if (it == part_of.end()) {
          return Error::invalid_input(where, "tile " + name(t) +
                                                 ": its multi-cell tile has no "
                                                 "part across its " +
                                                 side(d) + " side");
        }
        const auto [lo, hi] = range(t, d);
        for (auto c = lo; c != hi; ++c) {
          if (c->adjacent != it->second) {
            return Error::invalid_input(
                where, "constraint " + triple(t, d, c->adjacent) + " crosses the inside of a " +
                           "multi-cell tile: only " + name(it->second) + " may sit on the " +
                           side(d) + " side of " + name(t));
          }
        }
        if (lo == hi) {
          return Error::invalid_input(where, "tile " + name(t) + " needs its part " +
                                                 name(it->second) + " on its " + side(d) +
                                                 " side (inside its multi-cell tile)");
        }
      }
    }
  }
  // 5. Empty borders itself on every label (seeds/000, 40:22).
  if (model.empty != kNoTile) {
    for (Label d = 0; d < model.label_count; ++d) {
      if (!has(model.empty, d, model.empty)) {
        return Error::invalid_input(where, "the Empty tile " + name(model.empty) +
                                               " must border itself on its " + side(d) + " side");
      }
    }
  }
  // 6. Every tile placeable: with Empty every side of a placed tile faces a tile or the
  // boundary's Empty, so a tile with a side on which no placeable tile may sit can never be
  // placed; and on a square grid every row from a tile along a label is finite and ends at the
  // Empty border, so some chain of placeable neighbours along that label must reach Empty.
  // Iterated to a fixed point; the first tile found is reported with its reason.
  if (model.empty == kNoTile) return Ok{};
  const std::size_t n = model.tiles.size();
  std::vector<char> alive(n, 1);
  TileId first = kNoTile;
  std::string reason;
  std::vector<std::string> others;
  const auto kill = [&](TileId t, std::string why) {
    alive[t] = 0;
    if (first == kNoTile) {
      first = t;
      reason = std::move(why);
    } else {
      others.push_back(model.tiles[t].name);
    }
  };
  // before[d][u]: the tiles t with (t, d, u).
  std::vector<std::vector<std::vector<TileId>>> before;
  const bool rows_end = detail::is_square_model(model);
  if (rows_end) {
    before.assign(model.label_count, std::vector<std::vector<TileId>>(n));
    for (const Constraint& c : cs)
      before[c.label][c.adjacent].push_back(c.key);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (TileId t = 0; t < n; ++t) {
      for (Label d = 0; d < model.label_count && alive[t]; ++d) {
        const auto [lo, hi] = range(t, d);
        const bool any =
            std::any_of(lo, hi, [&](const Constraint& c) { return alive[c.adjacent]; });
        if (any) continue;
        changed = true;
        kill(t, lo == hi
                    ? "nothing may sit on its " + side(d) + " side"
                    : "only tiles that can never be placed may sit on its " + side(d) + " side");
      }
    }
    if (changed || !rows_end) continue;
    for (Label d = 0; d < model.label_count && !changed; ++d) {
      std::vector<char> reach(n, 0);
      std::vector<TileId> queue = {model.empty};
      reach[model.empty] = 1;
      for (std::size_t q = 0; q < queue.size(); ++q) {
        for (const TileId t : before[d][queue[q]]) {
          if (alive[t] && !reach[t]) {
            reach[t] = 1;
            queue.push_back(t);
          }
        }
      }
      for (TileId t = 0; t < n; ++t) {
        if (!alive[t] || reach[t]) continue;
        changed = true;
        kill(t, "no chain of placeable neighbours on its " + side(d) +
                    " side ever reaches the grid's Empty border, where every row ends");
      }
    }
  }
  if (first == kNoTile) return Ok{};
  std::string msg = "tile " + name(first) + " can never be placed: " + reason;
  if (!others.empty()) {
    msg += " (" + std::to_string(others.size()) + " more can never be placed because of it:";
    for (std::size_t i = 0; i < others.size() && i < 8; ++i)
      msg += " " + others[i];
    msg += others.size() > 8 ? " ...)" : ")";
  }
  return Error::invalid_input(where, msg);
}

}  // namespace cityforge::wfc
