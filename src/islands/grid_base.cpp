// SPDX-License-Identifier: Apache-2.0
// Base patterns of the island grid: a convex hexagon filled with a (turned, shifted) square
// lattice whose leftovers are triangulated, or squares only, or triangles only.
// Based on: O. Stalberg, talk on the island generator after Townscaper and Bad North
// (seeds/003, 6:18-9:40): "a convex shape, vertices in a mostly square pattern, then fill it
// out with triangles where it didn't fit anything".
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numbers>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/polygon.hpp"
#include "cityforge/islands/grid.hpp"

namespace cityforge::islands {
namespace {

constexpr const char* kWhere = "islands grid";

// The hexagon's corners, counter-clockwise, the first on +x.
std::array<Vec2, 6> hexagon(double circumradius_m) {
  std::array<Vec2, 6> h;
  for (std::size_t i = 0; i < 6; ++i) {
    const double a = std::numbers::pi / 3.0 * static_cast<double>(i);
    h[i] = {circumradius_m * std::cos(a), circumradius_m * std::sin(a)};
  }
  return h;
}

// Distance of p inside the hexagon (negative outside): the smallest distance to a side line.
double inside_depth(const std::array<Vec2, 6>& h, Vec2 p) {
  double depth = 1e300;
  for (std::size_t i = 0; i < 6; ++i) {
    const Vec2 a = h[i];
    const Vec2 d = normalize(h[(i + 1) % 6] - a);
    depth = std::min(depth, cross(d, p - a));
  }
  return depth;
}

using LatticeKey = std::pair<int, int>;

// Squares of a lattice (spacing cell_m, turned by `angle`, shifted by `shift`) whose corners
// are all at least `margin_m` inside the hexagon; then pinches (two squares meeting only at a
// corner) are removed and only the component holding the square nearest the centre is kept,
// so the squares' outline is one simple loop.
std::set<LatticeKey> lattice_squares(const std::array<Vec2, 6>& h, int reach, double margin_m,
                                     const std::function<Vec2(int, int)>& at) {
  std::set<LatticeKey> squares;
  for (int j = -reach; j < reach; ++j) {
    for (int i = -reach; i < reach; ++i) {
      bool inside = true;
      for (const auto& [di, dj] : {LatticeKey{0, 0}, {1, 0}, {1, 1}, {0, 1}})
        inside = inside && inside_depth(h, at(i + di, j + dj)) >= margin_m;
      if (inside) squares.insert({i, j});
    }
  }
  // Pinches: at lattice vertex (i, j) the squares (i-1, j-1) and (i, j) are kept but not
  // (i, j-1) and (i-1, j), or the other diagonal. Drop the square farther from the centre.
  for (bool changed = true; changed;) {
    changed = false;
    for (int j = -reach; j <= reach && !changed; ++j) {
      for (int i = -reach; i <= reach && !changed; ++i) {
        const bool a = squares.count({i - 1, j - 1}) > 0;
        const bool b = squares.count({i, j - 1}) > 0;
        const bool c = squares.count({i - 1, j}) > 0;
        const bool d = squares.count({i, j}) > 0;
        if ((a && d && !b && !c) || (b && c && !a && !d)) {
          const LatticeKey s0 = a ? LatticeKey{i - 1, j - 1} : LatticeKey{i, j - 1};
          const LatticeKey s1 = a ? LatticeKey{i, j} : LatticeKey{i - 1, j};
          const auto far = [&](LatticeKey s) {
            return length((at(s.first, s.second) + at(s.first + 1, s.second + 1)) * 0.5);
          };
          squares.erase(far(s0) >= far(s1) ? s0 : s1);
          changed = true;
        }
      }
    }
  }
  if (squares.empty()) return squares;
  // Keep the 4-connected component of the square nearest the centre.
  LatticeKey start = *squares.begin();
  double best = 1e300;
  for (const LatticeKey& s : squares) {
    const double r = length((at(s.first, s.second) + at(s.first + 1, s.second + 1)) * 0.5);
    if (r < best) {
      best = r;
      start = s;
    }
  }
  std::set<LatticeKey> kept{start};
  std::vector<LatticeKey> stack{start};
  while (!stack.empty()) {
    const LatticeKey s = stack.back();
    stack.pop_back();
    for (const auto& [di, dj] : {LatticeKey{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
      const LatticeKey n{s.first + di, s.second + dj};
      if (squares.count(n) > 0 && kept.insert(n).second) stack.push_back(n);
    }
  }
  return kept;
}

// The outline of a set of lattice squares, counter-clockwise, as lattice vertices. The set is
// 4-connected, hole-free (it lies in a convex shape) and has no pinches, so each outline
// vertex has one outgoing outline edge.
std::vector<LatticeKey> square_outline(const std::set<LatticeKey>& squares) {
  std::set<std::pair<LatticeKey, LatticeKey>> directed;
  for (const auto& [i, j] : squares) {
    const std::array<LatticeKey, 4> c{LatticeKey{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}};
    for (std::size_t k = 0; k < 4; ++k)
      directed.insert({c[k], c[(k + 1) % 4]});
  }
  std::map<LatticeKey, LatticeKey> next;
  for (const auto& [a, b] : directed)
    if (directed.count({b, a}) == 0) next[a] = b;
  std::vector<LatticeKey> loop;
  if (next.empty()) return loop;
  const LatticeKey first = next.begin()->first;
  LatticeKey v = first;
  do {
    loop.push_back(v);
    v = next.at(v);
  } while (v != first && loop.size() <= next.size());
  return loop;
}

// The squares to cut into two triangles: the squares are grouped into fields around seeded
// centres (about `field_squares` squares each, the centres at least sqrt(field_squares)
// apart), and where two fields meet (by a side or a corner) the squares of the lower-numbered
// field on that border are cut, so a band of triangles one square wide lies between any two
// fields and no corner is shared by two fields.
std::set<LatticeKey> field_borders(const std::set<LatticeKey>& squares, std::uint32_t field_squares,
                                   Seed seed) {
  std::set<LatticeKey> cut;
  if (field_squares == 0 || squares.size() < 2) return cut;
  const std::size_t fields = std::max<std::size_t>(1, squares.size() / field_squares);
  if (fields < 2) return cut;
  std::vector<LatticeKey> order(squares.begin(), squares.end());
  Rng rng{seed, Stage::islands, hash_string("islands.fields")};
  for (std::size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[rng.below(static_cast<std::uint32_t>(i))]);
  const double spacing2 = static_cast<double>(field_squares);
  std::vector<LatticeKey> centres;
  for (const LatticeKey& s : order) {
    if (centres.size() == fields) break;
    bool apart = true;
    for (const LatticeKey& c : centres) {
      const double di = s.first - c.first;
      const double dj = s.second - c.second;
      apart = apart && di * di + dj * dj >= spacing2;
    }
    if (apart) centres.push_back(s);
  }
  std::map<LatticeKey, std::size_t> field;
  for (const LatticeKey& s : squares) {
    std::size_t best = 0;
    double best_d = 1e300;
    for (std::size_t f = 0; f < centres.size(); ++f) {
      const double di = s.first - centres[f].first;
      const double dj = s.second - centres[f].second;
      if (di * di + dj * dj < best_d) {
        best_d = di * di + dj * dj;
        best = f;
      }
    }
    field[s] = best;
  }
  // Neighbours across a corner count too: two squares of different fields meeting at a corner
  // would have to stand at one height there, tying the fields together.
  for (const auto& [s, f] : field) {
    for (int dj = -1; dj <= 1; ++dj) {
      for (int di = -1; di <= 1; ++di) {
        const auto it = field.find({s.first + di, s.second + dj});
        if (it != field.end() && it->second > f) cut.insert(s);
      }
    }
  }
  return cut;
}

struct VertexIndex {
  std::vector<Vec2>& vertices;
  std::map<std::pair<double, double>, std::uint32_t> ids;
  std::uint32_t operator()(Vec2 p) {
    const auto [it, inserted] =
        ids.try_emplace({p.x, p.y}, static_cast<std::uint32_t>(vertices.size()));
    if (inserted) vertices.push_back(p);
    return it->second;
  }
};

Cell make_cell(std::initializer_list<std::uint32_t> vs) {
  Cell c;
  for (const std::uint32_t v : vs)
    c.vertices[c.count++] = v;
  return c;
}

// Squares in the middle of the hexagon, triangles (constrained Delaunay) in the ring between
// the squares' outline and the hexagon, or squares only.
Result<PlanarGrid> lattice_grid(const GridConfig& config, Seed seed, bool fill_triangles) {
  PlanarGrid g;
  g.kind = config.kind;
  g.cell_m = config.cell_m;
  const double cell = config.cell_m;
  const auto h = hexagon(cell * config.radius);
  // 1. Turn and shift the lattice by the seed.
  Rng rng{seed, Stage::islands, 0};
  const double angle = rng.uniform(0.0, std::numbers::pi / 2.0);
  const Vec2 shift{rng.uniform(0.0, cell), rng.uniform(0.0, cell)};
  const auto at = [&](int i, int j) { return rotate(Vec2{cell * i, cell * j} + shift, angle); };
  const int reach = static_cast<int>(config.radius) + 2;
  // Half a cell of room between squares and hexagon keeps the triangles in it well shaped.
  const double margin = fill_triangles ? 0.5 * cell : 0.0;
  const std::set<LatticeKey> squares = lattice_squares(h, reach, margin, at);
  if (squares.empty() && !fill_triangles) {
    return Error::invalid_input(kWhere, "square grid of radius " + std::to_string(config.radius) +
                                            " holds no square; use radius >= 2");
  }
  VertexIndex index{g.vertices, {}};
  // 2. The hexagon's outline, radius points per side (mixed only), first, so its vertices
  // come first.
  Ring outer;
  if (fill_triangles) {
    for (std::size_t s = 0; s < 6; ++s) {
      for (std::uint32_t t = 0; t < config.radius; ++t) {
        const Vec2 p = lerp(h[s], h[(s + 1) % 6], static_cast<double>(t) / config.radius);
        outer.push_back(p);
        index(p);
      }
    }
  }
  // 3. The squares, row by row; on the borders between fields (mixed only) two triangles,
  // cut along alternate diagonals.
  const std::set<LatticeKey> cut =
      fill_triangles ? field_borders(squares, config.field_squares, seed) : std::set<LatticeKey>{};
  for (int j = -reach; j < reach; ++j) {
    for (int i = -reach; i < reach; ++i) {
      if (squares.count({i, j}) == 0) continue;
      const std::uint32_t a = index(at(i, j));
      const std::uint32_t b = index(at(i + 1, j));
      const std::uint32_t c = index(at(i + 1, j + 1));
      const std::uint32_t d = index(at(i, j + 1));
      if (cut.count({i, j}) == 0) {
        g.cells.push_back(make_cell({a, b, c, d}));
      } else if ((i + j) % 2 == 0) {
        g.cells.push_back(make_cell({a, b, c}));
        g.cells.push_back(make_cell({a, c, d}));
      } else {
        g.cells.push_back(make_cell({a, b, d}));
        g.cells.push_back(make_cell({b, c, d}));
      }
    }
  }
  // 4. Triangles between the squares' outline and the hexagon.
  if (fill_triangles) {
    Polygon ring{outer, {}};
    const std::vector<LatticeKey> loop = square_outline(squares);
    if (!loop.empty()) {
      Ring hole;
      for (auto it = loop.rbegin(); it != loop.rend(); ++it)
        hole.push_back(at(it->first, it->second));
      ring.holes.push_back(hole);
    }
    const Triangulation tri = triangulate(ring);
    if (tri.indices.empty()) {
      return Error::internal(kWhere, "triangulating the ring around the squares failed");
    }
    for (std::size_t t = 0; t + 2 < tri.indices.size(); t += 3) {
      std::array<std::uint32_t, 3> v{};
      for (std::size_t k = 0; k < 3; ++k) {
        const Vec2 p = tri.points[tri.indices[t + k]];
        const auto it = index.ids.find({p.x, p.y});
        if (it == index.ids.end()) {
          return Error::internal(kWhere, "triangulation added a point not on the outline");
        }
        v[k] = it->second;
      }
      g.cells.push_back(make_cell({v[0], v[1], v[2]}));
    }
  }
  return g;
}

// The triangular lattice of the hexagon: 6 * radius^2 triangles with sides cell_m.
PlanarGrid triangle_grid(const GridConfig& config) {
  PlanarGrid g;
  g.kind = config.kind;
  g.cell_m = config.cell_m;
  const int r = static_cast<int>(config.radius);
  const double s3 = std::sqrt(3.0) / 2.0;
  std::map<LatticeKey, std::uint32_t> ids;
  const auto inside = [&](int q, int p) {
    return std::abs(q) <= r && std::abs(p) <= r && std::abs(q + p) <= r;
  };
  for (int p = -r; p <= r; ++p) {
    for (int q = -r; q <= r; ++q) {
      if (!inside(q, p)) continue;
      ids[{q, p}] = static_cast<std::uint32_t>(g.vertices.size());
      g.vertices.push_back({config.cell_m * (q + 0.5 * p), config.cell_m * s3 * p});
    }
  }
  for (int p = -r; p <= r; ++p) {
    for (int q = -r; q <= r; ++q) {
      if (inside(q, p) && inside(q + 1, p) && inside(q, p + 1)) {
        g.cells.push_back(make_cell({ids[{q, p}], ids[{q + 1, p}], ids[{q, p + 1}]}));
      }
      if (inside(q + 1, p) && inside(q + 1, p + 1) && inside(q, p + 1)) {
        g.cells.push_back(make_cell({ids[{q + 1, p}], ids[{q + 1, p + 1}], ids[{q, p + 1}]}));
      }
    }
  }
  return g;
}

Status check_config(const GridConfig& c) {
  const auto bad = [](const std::string& what) { return Error::invalid_input(kWhere, what); };
  if (c.radius < 1 || c.radius > 64) {
    return bad("radius must be 1..64 cells, got " + std::to_string(c.radius));
  }
  if (c.kind == GridKind::mixed && c.radius < 2) {
    return bad("a mixed grid needs radius >= 2 cells, got " + std::to_string(c.radius));
  }
  if (!(c.cell_m > 0.0) || !std::isfinite(c.cell_m)) {
    return bad("cell_m must be > 0, got " + std::to_string(c.cell_m));
  }
  if (c.layers < 1 || c.layers > 256) {
    return bad("layers must be 1..256, got " + std::to_string(c.layers));
  }
  if (!(c.layer_m > 0.0) || !std::isfinite(c.layer_m)) {
    return bad("layer_m must be > 0, got " + std::to_string(c.layer_m));
  }
  if (c.relax_iterations > 10000) {
    return bad("relax_iterations must be <= 10000, got " + std::to_string(c.relax_iterations));
  }
  if (c.field_squares > 4096) {
    return bad("field_squares must be <= 4096, got " + std::to_string(c.field_squares));
  }
  return Ok{};
}

}  // namespace

Result<PlanarGrid> base_grid(const GridConfig& config, Seed seed) {
  if (Status s = check_config(config); !s) return s.error();
  Result<PlanarGrid> g = config.kind == GridKind::triangle
                             ? Result<PlanarGrid>(triangle_grid(config))
                             : lattice_grid(config, seed, config.kind == GridKind::mixed);
  if (!g) return g;
  for (Cell& cell : g->cells)
    cell.base = cell.count;
  if (Status s = build_topology(*g, kWhere); !s) return s.error();
  return g;
}

}  // namespace cityforge::islands
