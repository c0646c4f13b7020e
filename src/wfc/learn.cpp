// SPDX-License-Identifier: Apache-2.0
// Learning constraints: from example layouts an artist painted (seeds/000, 42:00-42:40: "our
// implementation derives constraints from arbitrary layouts"), counting every adjacency and
// every tile for weights; and from edge profiles (seeds/003: sides with matching profiles fit,
// an asymmetric profile fits its mirror). Rules: docs/wfc.md.

#include "wfc/detail/learn.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>

#include "cityforge/wfc/wfc.hpp"
#include "wfc/detail/symmetry.hpp"

namespace cityforge::wfc {
namespace {

using detail::Transform;
using Cell3 = std::array<std::uint32_t, 3>;

using detail::in_quotes;

std::string cell_name(std::size_t k, const Cell3& p) {
  return "cell " + std::to_string(k) + " (" + std::to_string(p[0]) + "," + std::to_string(p[1]) +
         "," + std::to_string(p[2]) + ")";
}

/// Variants of a model by (base, transform index, part), and each variant's footprint.
struct VariantIndex {
  std::map<std::tuple<std::uint32_t, int, Cell3>, TileId> by_key;
  std::map<std::pair<std::uint32_t, int>, Cell3> footprint;

  explicit VariantIndex(const Model& model) {
    for (TileId t = 0; t < model.tiles.size(); ++t) {
      const TileVariant& v = model.tiles[t];
      const int e = Transform{v.rotation, v.reflected}.index();
      by_key[{v.base, e, {v.part[0], v.part[1], v.part[2]}}] = t;
      Cell3& fp = footprint[{v.base, e}];
      for (std::size_t a = 0; a < 3; ++a)
        fp[a] = std::max<std::uint32_t>(fp[a], v.part[a] + 1U);
    }
  }
  const Cell3& size_of(const TileVariant& v) const {
    return footprint.at({v.base, Transform{v.rotation, v.reflected}.index()});
  }
};

/// The variant tile t becomes when the whole layout is transformed by g.
TileId transform_tile(const Model& model, const VariantIndex& index, std::uint32_t dimensions,
                      TileId t, Transform g) {
  const TileVariant& v = model.tiles[t];
  const Transform tv{v.rotation, v.reflected};
  const Transform h =
      detail::canonical(model.base_symmetry[v.base], dimensions, detail::compose(g, tv));
  const Cell3 p = detail::turned_cell(index.size_of(v), {v.part[0], v.part[1], v.part[2]}, g);
  const auto it = index.by_key.find({v.base, h.index(), p});
  return it == index.by_key.end() ? kNoTile : it->second;
}

/// Parts of a multi-cell tile painted in an example must sit together as in the tile.
Status check_parts(const Model& model, const VariantIndex& index, const Example& ex,
                   const std::vector<TileId>& ids, const std::string& where) {
  const Cell3 size{ex.size_x, ex.size_y, ex.size_z};
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const TileVariant& v = model.tiles[ids[k]];
    const Cell3 p{
        static_cast<std::uint32_t>(k % ex.size_x),
        static_cast<std::uint32_t>((k / ex.size_x) % ex.size_y),
        static_cast<std::uint32_t>(k / (static_cast<std::size_t>(ex.size_x) * ex.size_y))};
    for (Label d = 0; d < model.label_count; ++d) {
      Cell3 q{};
      if (!detail::inside_footprint(index.size_of(v), v.part, d, q)) continue;
      const auto found = index.by_key.find({v.base, Transform{v.rotation, v.reflected}.index(), q});
      if (found == index.by_key.end()) {
        return Error::invalid_input(where, "the model's multi-cell tile " + in_quotes(v.name) +
                                               " has no part across its " +
                                               detail::label_name(d, model.label_count) + " side");
      }
      const TileId partner = found->second;
      const auto s = detail::step(d);
      Cell3 n{};
      bool inside = true;
      for (std::size_t a = 0; a < 3; ++a) {
        const auto c = static_cast<std::int64_t>(p[a]) + s[a];
        inside = inside && c >= 0 && c < static_cast<std::int64_t>(size[a]);
        n[a] = static_cast<std::uint32_t>(c);
      }
      const std::size_t nk =
          inside ? n[0] + static_cast<std::size_t>(ex.size_x) * (n[1] + ex.size_y * n[2]) : 0;
      if (!inside || ids[nk] != partner) {
        return Error::invalid_input(
            where, cell_name(k, p) + ": the multi-cell part " + in_quotes(v.name) + " needs " +
                       in_quotes(model.tiles[partner].name) + " on its " +
                       detail::label_name(d, model.label_count) + " side, found " +
                       (inside ? in_quotes(model.tiles[ids[nk]].name) : "the example's edge"));
      }
    }
  }
  return Ok{};
}

std::uint64_t pack(TileId a, Label d, TileId b) {
  return (static_cast<std::uint64_t>(a) << 32) | (static_cast<std::uint64_t>(d) << 24) | b;
}

void sort_unique(std::vector<Constraint>& cs) {
  std::sort(cs.begin(), cs.end(), [](const Constraint& a, const Constraint& b) {
    return std::tie(a.key, a.label, a.adjacent) < std::tie(b.key, b.label, b.adjacent);
  });
  cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
}

}  // namespace

Result<std::vector<std::uint32_t>> detail::learn_examples(
    Model& model, const std::vector<Example>& examples,
    const std::function<std::string(std::size_t)>& where_of) {
  if (!detail::is_square_model(model)) {
    return Error::invalid_input(where_of(0),
                                "learning from examples needs a square-grid model "
                                "(2, 4 or 6 labels, opposite d ^ 1)");
  }
  const std::uint32_t dims = model.label_count / 2;
  for (const TileVariant& v : model.tiles) {
    if (v.base >= model.base_names.size()) {
      return Error::invalid_input(where_of(0), "tile " + in_quotes(v.name) + " has base " +
                                                   std::to_string(v.base) + ", out of range");
    }
  }
  const VariantIndex index(model);
  std::map<std::string, TileId> by_name;
  for (TileId t = 0; t < model.tiles.size(); ++t)
    by_name.emplace(model.tiles[t].name, t);
  std::map<std::uint64_t, std::uint32_t> seen;  // ordered: counts come out sorted
  std::vector<std::uint64_t> tile_count(model.tiles.size(), 0);
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const Example& ex = examples[i];
    const std::string where = where_of(i);
    // 1. Shape and names.
    if (ex.size_x < 1 || ex.size_y < 1 || ex.size_z < 1 || (dims < 2 && ex.size_y != 1) ||
        (dims < 3 && ex.size_z != 1)) {
      return Error::invalid_input(where, "example size " + std::to_string(ex.size_x) + "x" +
                                             std::to_string(ex.size_y) + "x" +
                                             std::to_string(ex.size_z) + " does not fit a " +
                                             std::to_string(dims) + "D model");
    }
    const std::size_t n = static_cast<std::size_t>(ex.size_x) * ex.size_y * ex.size_z;
    if (ex.cells.size() != n) {
      return Error::invalid_input(where, "expected " + std::to_string(n) + " cells, got " +
                                             std::to_string(ex.cells.size()));
    }
    std::vector<TileId> ids(n);
    for (std::size_t k = 0; k < n; ++k) {
      const auto it = by_name.find(ex.cells[k]);
      if (it == by_name.end()) {
        return Error::invalid_input(
            where, "cell " + std::to_string(k) + ": unknown tile " + in_quotes(ex.cells[k]));
      }
      ids[k] = it->second;
    }
    if (auto s = check_parts(model, index, ex, ids, where); !s) return s.error();
    // 2. The layouts learned from: the example, turned and mirrored when asked.
    std::vector<Transform> transforms;
    for (int e = 0; e < 8; ++e) {
      const Transform g = Transform::of(e);
      if (((detail::group(dims) >> e) & 1U) == 0) continue;
      if (g.r != 0 && !ex.rotations) continue;
      if (g.m && !ex.reflections) continue;
      transforms.push_back(g);
    }
    if (transforms.size() > 1 && model.base_symmetry.size() != model.base_names.size()) {
      return Error::invalid_input(where,
                                  "turned or mirrored examples need the model's symmetry "
                                  "classes (Model::base_symmetry)");
    }
    const Cell3 size{ex.size_x, ex.size_y, ex.size_z};
    for (const Transform g : transforms) {
      const Cell3 ts = (g.r & 1U) ? Cell3{size[1], size[0], size[2]} : size;
      std::vector<TileId> layout(n, kNoTile);
      for (std::size_t k = 0; k < n; ++k) {
        const Cell3 p{
            static_cast<std::uint32_t>(k % size[0]),
            static_cast<std::uint32_t>((k / size[0]) % size[1]),
            static_cast<std::uint32_t>(k / (static_cast<std::size_t>(size[0]) * size[1]))};
        const Cell3 q = detail::turned_cell(size, p, g);
        const TileId t = g.index() == 0 ? ids[k] : transform_tile(model, index, dims, ids[k], g);
        if (t == kNoTile) {
          return Error::internal(where, "no variant for " + in_quotes(model.tiles[ids[k]].name) +
                                            " transformed by " + detail::transform_suffix(g));
        }
        layout[q[0] + static_cast<std::size_t>(ts[0]) * (q[1] + ts[1] * q[2])] = t;
      }
      // 3. Every face-adjacent pair, both ways; the border against Empty.
      for (std::size_t k = 0; k < n; ++k) {
        const TileId t = layout[k];
        ++tile_count[t];
        const Cell3 p{static_cast<std::uint32_t>(k % ts[0]),
                      static_cast<std::uint32_t>((k / ts[0]) % ts[1]),
                      static_cast<std::uint32_t>(k / (static_cast<std::size_t>(ts[0]) * ts[1]))};
        for (Label d = 0; d < model.label_count; d = static_cast<Label>(d + 2)) {
          const std::size_t axis = d / 2;
          const Label back = static_cast<Label>(d + 1);
          if (p[axis] + 1 < ts[axis]) {
            std::size_t stride = 1;
            for (std::size_t a = 0; a < axis; ++a)
              stride *= ts[a];
            const TileId u = layout[k + stride];
            ++seen[pack(t, d, u)];
            ++seen[pack(u, back, t)];
          } else if (ex.empty_border && model.empty != kNoTile) {
            ++seen[pack(t, d, model.empty)];
            ++seen[pack(model.empty, back, t)];
          }
          if (p[axis] == 0 && ex.empty_border && model.empty != kNoTile) {
            ++seen[pack(t, back, model.empty)];
            ++seen[pack(model.empty, d, t)];
          }
        }
      }
    }
  }
  // 4. Merge with the model's constraints; counts line up with the sorted list.
  for (const Constraint& c : model.constraints)
    seen.emplace(pack(c.key, c.label, c.adjacent), 0);
  model.constraints.clear();
  std::vector<std::uint32_t> counts;
  for (const auto& [key, count] : seen) {
    model.constraints.push_back({static_cast<TileId>(key >> 32),
                                 static_cast<Label>((key >> 24) & 0xFFU),
                                 static_cast<TileId>(key & 0xFFFFFFU)});
    counts.push_back(count);
  }
  // 5. Weights: frequencies, scaled so the variants seen average 1, times their own weight.
  std::uint64_t total = 0;
  std::uint64_t kinds = 0;
  for (const std::uint64_t c : tile_count) {
    total += c;
    kinds += c > 0 ? 1 : 0;
  }
  for (TileId t = 0; t < model.tiles.size(); ++t) {
    if (tile_count[t] == 0) continue;
    model.tiles[t].weight *= static_cast<double>(tile_count[t]) * static_cast<double>(kinds) /
                             static_cast<double>(total);
  }
  return counts;
}

Result<std::vector<std::uint32_t>> learn_from_examples(Model& model,
                                                       const std::vector<Example>& examples) {
  return detail::learn_examples(model, examples,
                                [](std::size_t i) { return "example " + std::to_string(i); });
}

Status learn_from_profiles(Model& model, const std::vector<TileDef>& tiles) {
  const std::string where = "wfc profiles";
  if (!detail::is_square_model(model)) {
    return Error::invalid_input(where, "edge profiles need a square-grid model (2, 4 or 6 labels)");
  }
  // 1. Which profiles are asymmetric: primed, or with their primed form in use.
  std::map<std::string, bool> asym;
  for (const TileDef& def : tiles) {
    for (const std::string& p : def.profiles) {
      if (p.empty()) continue;
      asym[p] = asym[p] || p.back() == '\'';
      if (p.back() == '\'') asym[p.substr(0, p.size() - 1)] = true;
    }
  }
  const auto is_asym = [&](const std::string& p) {
    const auto it = asym.find(p);
    return it != asym.end() && it->second;
  };
  const auto mirror = [](const std::string& p) {
    return p.back() == '\'' ? p.substr(0, p.size() - 1) : p + "'";
  };
  std::vector<const TileDef*> def_of(model.base_names.size(), nullptr);
  for (const TileDef& def : tiles) {
    const auto it = std::find(model.base_names.begin(), model.base_names.end(), def.name);
    if (it == model.base_names.end()) {
      return Error::invalid_input(where, "tile " + in_quotes(def.name) + " is not in the model");
    }
    def_of[static_cast<std::size_t>(it - model.base_names.begin())] = &def;
  }
  // 2. Each variant's profile per world side: the base side it came from, mirrored with it.
  const VariantIndex index(model);
  const std::uint32_t labels = model.label_count;
  std::vector<std::string> side(model.tiles.size() * labels);
  for (TileId t = 0; t < model.tiles.size(); ++t) {
    const TileVariant& v = model.tiles[t];
    const TileDef* def = v.base < def_of.size() ? def_of[v.base] : nullptr;
    if (def == nullptr) continue;
    const Transform inv = detail::inverse(Transform{v.rotation, v.reflected});
    for (Label d = 0; d < labels; ++d) {
      Cell3 q{};
      if (detail::inside_footprint(index.size_of(v), v.part, d, q)) continue;
      const Label base_side = detail::apply(inv, d);
      if (base_side >= def->profiles.size()) continue;
      std::string p = def->profiles[base_side];
      if (!p.empty() && d < 4 && v.reflected && is_asym(p)) p = mirror(p);
      side[t * labels + d] = std::move(p);
    }
  }
  // 3. Facing sides match: equal symmetric profiles, or an asymmetric one and its mirror.
  std::map<std::pair<Label, std::string>, std::vector<TileId>> with;
  for (TileId t = 0; t < model.tiles.size(); ++t) {
    for (Label d = 0; d < labels; ++d) {
      if (!side[t * labels + d].empty()) with[{d, side[t * labels + d]}].push_back(t);
    }
  }
  for (TileId t = 0; t < model.tiles.size(); ++t) {
    for (Label d = 0; d < labels; ++d) {
      const std::string& p = side[t * labels + d];
      if (p.empty()) continue;
      const std::string want = d < 4 && is_asym(p) ? mirror(p) : p;
      const auto it = with.find({model.opposite[d], want});
      if (it == with.end()) continue;
      for (const TileId u : it->second)
        model.constraints.push_back({t, d, u});
    }
  }
  sort_unique(model.constraints);
  return Ok{};
}

}  // namespace cityforge::wfc
