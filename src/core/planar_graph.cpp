// SPDX-License-Identifier: Apache-2.0
// Planar graph construction from tagged segments: noding (splitting at crossings and at nodes
// lying on edges) alternating with snapping (merging nodes closer than the tolerance) until a
// noding pass changes nothing. Candidate pairs come from a uniform spatial hash, so the cost is
// about O((n + k) log n) for n segments and k crossings on evenly spread input.
// Based on: the classic "snap rounding"-free noding loop used in GIS overlay (see e.g.
// M. de Berg et al., Computational Geometry, ch. 2), with union-find node merging.
#include "cityforge/core/planar_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>

#include "cityforge/core/polyline.hpp"
#include "cityforge/core/spatial_hash.hpp"

namespace cityforge {
namespace {

/// Noding passes per tolerance; each pass fixes what the previous snap disturbed.
constexpr int kMaxPasses = 6;
/// Smallest tolerance used, so exact-touch cases are found despite rounding (metres).
constexpr double kMinTolerance = 1e-9;

using Edge = PlanarGraph::Edge;

struct Work {
  std::vector<Vec2> points;
  std::vector<Edge> edges;
};

bool finite(Vec2 p) { return std::isfinite(p.x) && std::isfinite(p.y); }

int sign(double v) { return (v > 0.0) - (v < 0.0); }

Aabb2 edge_box(Vec2 a, Vec2 b, double grow) {
  Aabb2 box;
  box.add(a);
  box.add(b);
  box.min -= Vec2{grow, grow};
  box.max += Vec2{grow, grow};
  return box;
}

/// A hash cell about the mean edge length (long edges would otherwise cover many small
/// cells), but never so small that the whole extent needs more than ~1024 cells a side.
double choose_cell(const std::vector<Vec2>& points, const std::vector<Edge>& edges, double tol) {
  if (edges.empty()) {
    return 1.0;
  }
  double sum = 0.0;
  Aabb2 extent;
  for (const Edge& e : edges) {
    sum += distance(points[e.a], points[e.b]);
    extent.add(points[e.a]);
    extent.add(points[e.b]);
  }
  const double mean = sum / static_cast<double>(edges.size());
  const Vec2 size = extent.size();
  return std::max({mean, std::max(size.x, size.y) / 1024.0, 4.0 * tol, 1e-6});
}

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/// Sorts edges as (min, max) pairs, drops zero-length edges and keeps the lowest tag of
/// duplicates.
void normalize_edges(std::vector<Edge>& edges) {
  std::vector<Edge> out;
  out.reserve(edges.size());
  for (Edge e : edges) {
    if (e.a == e.b) {
      continue;
    }
    if (e.a > e.b) {
      std::swap(e.a, e.b);
    }
    out.push_back(e);
  }
  std::sort(out.begin(), out.end(), [](const Edge& x, const Edge& y) {
    return std::tie(x.a, x.b, x.tag) < std::tie(y.a, y.b, y.tag);
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Edge& x, const Edge& y) { return x.a == y.a && x.b == y.b; }),
            out.end());
  edges = std::move(out);
}

/// Point ids used by some edge, ascending.
std::vector<std::uint32_t> used_points(const Work& w) {
  std::vector<char> used(w.points.size(), 0);
  for (const Edge& e : w.edges) {
    used[e.a] = 1;
    used[e.b] = 1;
  }
  std::vector<std::uint32_t> ids;
  for (std::uint32_t i = 0; i < used.size(); ++i) {
    if (used[i] != 0) {
      ids.push_back(i);
    }
  }
  return ids;
}

/// Merges points within tol of each other (transitively) into their lowest-index member.
/// Returns whether any point was merged. Uses a grid of cells with a diagonal shorter than tol,
/// so all points in one cell merge without pairwise tests and dense clusters stay cheap.
bool snap(Work& w, double tol) {
  const std::vector<std::uint32_t> ids = used_points(w);
  const double cell = tol * 0.7;
  struct Item {
    std::int64_t cx;
    std::int64_t cy;
    std::uint32_t id;
  };
  std::vector<Item> items;
  items.reserve(ids.size());
  for (const std::uint32_t i : ids) {
    const Vec2 p = w.points[i];
    items.push_back({static_cast<std::int64_t>(std::floor(p.x / cell)),
                     static_cast<std::int64_t>(std::floor(p.y / cell)), i});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(a.cx, a.cy, a.id) < std::tie(b.cx, b.cy, b.id);
  });
  // Cells as ranges of items: [begin, end), and whether all members merged with the first.
  struct Cell {
    std::size_t begin;
    std::size_t end;
    bool whole;
  };
  std::vector<Cell> cells;
  for (std::size_t k = 0; k < items.size();) {
    std::size_t e = k + 1;
    while (e < items.size() && items[e].cx == items[k].cx && items[e].cy == items[k].cy) {
      ++e;
    }
    cells.push_back({k, e, true});
    k = e;
  }

  std::vector<std::uint32_t> parent(w.points.size());
  std::iota(parent.begin(), parent.end(), 0U);
  bool merged = false;
  const auto unite = [&](std::uint32_t a, std::uint32_t b) {
    const std::uint32_t ra = find_root(parent, a);
    const std::uint32_t rb = find_root(parent, b);
    if (ra != rb) {
      parent[std::max(ra, rb)] = std::min(ra, rb);
      merged = true;
    }
  };
  const auto close = [&](std::uint32_t a, std::uint32_t b) {
    return distance(w.points[a], w.points[b]) <= tol;
  };
  const auto merge_pairs = [&](const Cell& c, const Cell& d) {
    for (std::size_t i = c.begin; i < c.end; ++i) {
      for (std::size_t j = d.begin; j < d.end; ++j) {
        const std::uint32_t a = items[i].id;
        const std::uint32_t b = items[j].id;
        if (a != b && find_root(parent, a) != find_root(parent, b) && close(a, b)) {
          unite(a, b);
        }
      }
    }
  };

  // 1. Within a cell: everything is within tol of the first member (rounding aside).
  for (Cell& c : cells) {
    const std::uint32_t first = items[c.begin].id;
    for (std::size_t k = c.begin + 1; k < c.end; ++k) {
      if (close(first, items[k].id)) {
        unite(first, items[k].id);
      } else {
        c.whole = false;
      }
    }
    if (!c.whole) {
      merge_pairs(c, c);
    }
  }
  // 2. Between cells up to two apart (tol < 2 cells); each pair of cells once.
  const auto find_cell = [&](std::int64_t cx, std::int64_t cy) {
    const auto it =
        std::lower_bound(cells.begin(), cells.end(), std::pair{cx, cy},
                         [&](const Cell& c, const std::pair<std::int64_t, std::int64_t>& key) {
                           const Item& f = items[c.begin];
                           return std::pair{f.cx, f.cy} < key;
                         });
    if (it == cells.end() || items[it->begin].cx != cx || items[it->begin].cy != cy) {
      return cells.size();
    }
    return static_cast<std::size_t>(it - cells.begin());
  };
  for (std::size_t ci = 0; ci < cells.size(); ++ci) {
    const Item& f = items[cells[ci].begin];
    for (std::int64_t dx = -2; dx <= 2; ++dx) {
      for (std::int64_t dy = -2; dy <= 2; ++dy) {
        const std::size_t di = find_cell(f.cx + dx, f.cy + dy);
        if (di >= cells.size() || di <= ci) {
          continue;
        }
        const Cell& c = cells[ci];
        const Cell& d = cells[di];
        if (c.whole && d.whole &&
            find_root(parent, items[c.begin].id) == find_root(parent, items[d.begin].id)) {
          continue;  // Already one cluster.
        }
        merge_pairs(c, d);
      }
    }
  }

  for (Edge& e : w.edges) {
    e.a = find_root(parent, e.a);
    e.b = find_root(parent, e.b);
  }
  normalize_edges(w.edges);
  return merged;
}

/// A split of an edge at parameter t by point id.
struct Split {
  double t = 0.0;
  std::uint32_t id = 0;
};

/// Splits edges at nodes lying within tol of their interior and at proper crossings (adding
/// crossing points). Returns whether any edge was split.
bool node(Work& w, double tol) {
  const std::size_t m = w.edges.size();
  SpatialHash hash(choose_cell(w.points, w.edges, tol));
  for (std::uint32_t e = 0; e < m; ++e) {
    hash.insert(e, edge_box(w.points[w.edges[e].a], w.points[w.edges[e].b], tol));
  }
  std::vector<std::vector<Split>> splits(m);
  std::vector<std::uint32_t> cands;

  // 1. Nodes on (or within tol of) the interior of an edge: T-junctions and overlaps.
  for (const std::uint32_t v : used_points(w)) {
    const Vec2 p = w.points[v];
    hash.query_radius(p, tol, cands);
    for (const std::uint32_t e : cands) {
      const Edge& edge = w.edges[e];
      if (edge.a == v || edge.b == v) {
        continue;
      }
      const Vec2 a = w.points[edge.a];
      const Vec2 ab = w.points[edge.b] - a;
      const double t = dot(p - a, ab) / dot(ab, ab);
      if (t > 0.0 && t < 1.0 && distance(a + ab * t, p) <= tol) {
        splits[e].push_back({t, v});
      }
    }
  }

  // 2. Proper crossings between edges without a common node.
  for (std::uint32_t i = 0; i < m; ++i) {
    const Edge ei = w.edges[i];
    const Vec2 a = w.points[ei.a];
    const Vec2 b = w.points[ei.b];
    hash.query(edge_box(a, b, tol), cands);
    for (const std::uint32_t j : cands) {
      const Edge ej = w.edges[j];
      if (j <= i || ei.a == ej.a || ei.a == ej.b || ei.b == ej.a || ei.b == ej.b) {
        continue;
      }
      const Vec2 c = w.points[ej.a];
      const Vec2 d = w.points[ej.b];
      const double o1 = cross(b - a, c - a);
      const double o2 = cross(b - a, d - a);
      const double o3 = cross(d - c, a - c);
      const double o4 = cross(d - c, b - c);
      if (sign(o1) * sign(o2) >= 0 || sign(o3) * sign(o4) >= 0) {
        continue;  // No proper crossing; touching cases are found in step 1.
      }
      const double ti = o3 / (o3 - o4);
      const double tj = o1 / (o1 - o2);
      const Vec2 x = lerp(a, b, ti);
      // A crossing next to an end point splits the other edge at that end point instead, so
      // no near-duplicate node is made.
      const std::uint32_t ends[4] = {ei.a, ei.b, ej.a, ej.b};
      std::uint32_t nearest = 4;
      double best = tol;
      for (std::uint32_t k = 0; k < 4; ++k) {
        const double dist = distance(x, w.points[ends[k]]);
        if (dist <= best) {
          best = dist;
          nearest = k;
        }
      }
      if (nearest < 2) {
        splits[j].push_back({tj, ends[nearest]});
      } else if (nearest < 4) {
        splits[i].push_back({ti, ends[nearest]});
      } else {
        const auto id = static_cast<std::uint32_t>(w.points.size());
        w.points.push_back(x);
        splits[i].push_back({ti, id});
        splits[j].push_back({tj, id});
      }
    }
  }

  // 3. Replace each split edge by its pieces in order along it.
  bool changed = false;
  std::vector<Edge> out;
  out.reserve(m);
  for (std::uint32_t e = 0; e < m; ++e) {
    std::vector<Split>& s = splits[e];
    if (s.empty()) {
      out.push_back(w.edges[e]);
      continue;
    }
    changed = true;
    std::sort(s.begin(), s.end(), [](const Split& x, const Split& y) {
      return x.id != y.id ? x.id < y.id : x.t < y.t;
    });
    s.erase(std::unique(s.begin(), s.end(),
                        [](const Split& x, const Split& y) { return x.id == y.id; }),
            s.end());
    std::sort(s.begin(), s.end(),
              [](const Split& x, const Split& y) { return x.t != y.t ? x.t < y.t : x.id < y.id; });
    std::uint32_t prev = w.edges[e].a;
    for (const Split& sp : s) {
      out.push_back({prev, sp.id, w.edges[e].tag});
      prev = sp.id;
    }
    out.push_back({prev, w.edges[e].b, w.edges[e].tag});
  }
  w.edges = std::move(out);
  return changed;
}

}  // namespace

PlanarGraph build_planar_graph(const std::vector<TaggedSegment>& segments, double snap_m) {
  const double tol = std::isfinite(snap_m) ? std::max(snap_m, kMinTolerance) : kMinTolerance;

  // 1. Every finite segment becomes an edge between two fresh points.
  Work w;
  w.points.reserve(segments.size() * 2);
  w.edges.reserve(segments.size());
  for (const TaggedSegment& s : segments) {
    if (!finite(s.a) || !finite(s.b)) {
      continue;
    }
    const auto id = static_cast<std::uint32_t>(w.points.size());
    w.points.push_back(s.a);
    w.points.push_back(s.b);
    w.edges.push_back({id, id + 1, s.tag});
  }

  // 2. Merge shared end points, then alternate noding and snapping until stable. Snapping can
  // move edges onto new crossings; if that keeps happening (dense clusters), finish with the
  // minimum tolerance, which only merges what rounding separated, so the result is planar.
  snap(w, tol);
  bool stable = false;
  for (int pass = 0; pass < kMaxPasses && !stable; ++pass) {
    stable = !node(w, tol);
    if (!stable) {
      snap(w, tol);
    }
  }
  for (int pass = 0; pass < kMaxPasses && !stable; ++pass) {
    stable = !node(w, kMinTolerance);
    if (!stable) {
      snap(w, kMinTolerance);
    }
  }

  // 3. Number the used points by (x, y) and sort the edges by (a, b).
  std::vector<std::uint32_t> ids = used_points(w);
  std::sort(ids.begin(), ids.end(), [&](std::uint32_t i, std::uint32_t j) {
    const Vec2 p = w.points[i];
    const Vec2 q = w.points[j];
    return std::tie(p.x, p.y, i) < std::tie(q.x, q.y, j);
  });
  std::vector<std::uint32_t> new_id(w.points.size(), 0);
  PlanarGraph g;
  g.nodes.reserve(ids.size());
  for (std::uint32_t k = 0; k < ids.size(); ++k) {
    new_id[ids[k]] = k;
    g.nodes.push_back(w.points[ids[k]]);
  }
  g.edges = std::move(w.edges);
  for (Edge& e : g.edges) {
    e.a = new_id[e.a];
    e.b = new_id[e.b];
  }
  normalize_edges(g.edges);
  return g;
}

bool planar_graph_has_crossings(const PlanarGraph& g, std::uint32_t* ea, std::uint32_t* eb) {
  const std::size_t m = g.edges.size();
  const std::size_t n = g.nodes.size();
  const auto valid = [&](const Edge& e) { return e.a < n && e.b < n && e.a != e.b; };
  std::vector<Edge> usable;
  for (const Edge& e : g.edges) {
    if (valid(e)) {
      usable.push_back(e);
    }
  }
  SpatialHash hash(choose_cell(g.nodes, usable, 0.0));
  for (std::uint32_t e = 0; e < m; ++e) {
    if (valid(g.edges[e])) {
      hash.insert(e, edge_box(g.nodes[g.edges[e].a], g.nodes[g.edges[e].b], 0.0));
    }
  }
  std::vector<std::uint32_t> cands;
  for (std::uint32_t i = 0; i < m; ++i) {
    const Edge ei = g.edges[i];
    if (!valid(ei)) {
      continue;
    }
    hash.query(edge_box(g.nodes[ei.a], g.nodes[ei.b], 0.0), cands);
    for (const std::uint32_t j : cands) {
      if (j <= i) {
        continue;
      }
      const Edge ej = g.edges[j];
      const int shared = (ei.a == ej.a) + (ei.a == ej.b) + (ei.b == ej.a) + (ei.b == ej.b);
      bool bad = false;
      if (shared >= 2) {
        bad = true;  // Duplicate edge.
      } else if (shared == 1) {
        // Edges from a common node overlap when they leave it in the same direction.
        const std::uint32_t common = (ei.a == ej.a || ei.a == ej.b) ? ei.a : ei.b;
        const Vec2 c = g.nodes[common];
        const Vec2 u = g.nodes[ei.a == common ? ei.b : ei.a] - c;
        const Vec2 v = g.nodes[ej.a == common ? ej.b : ej.a] - c;
        bad = cross(u, v) == 0.0 && dot(u, v) > 0.0;
      } else {
        bad = segment_intersection(g.nodes[ei.a], g.nodes[ei.b], g.nodes[ej.a], g.nodes[ej.b],
                                   nullptr);
      }
      if (bad) {
        if (ea != nullptr) {
          *ea = i;
        }
        if (eb != nullptr) {
          *eb = j;
        }
        return true;
      }
    }
  }
  return false;
}

std::vector<std::vector<std::uint32_t>> PlanarGraph::incidence() const {
  std::vector<std::vector<std::uint32_t>> inc(nodes.size());
  for (std::uint32_t e = 0; e < edges.size(); ++e) {
    inc[edges[e].a].push_back(e);
    if (edges[e].b != edges[e].a) {
      inc[edges[e].b].push_back(e);
    }
  }
  for (std::uint32_t v = 0; v < inc.size(); ++v) {
    const auto dir = [&](std::uint32_t e) {
      const std::uint32_t other = edges[e].a == v ? edges[e].b : edges[e].a;
      return nodes[other] - nodes[v];
    };
    // Exact angular order without atan2: angles [0, pi) first, then [pi, 2 pi), each by cross
    // product; a zero direction (coincident nodes) goes last.
    const auto half = [](Vec2 d) {
      if (d.x == 0.0 && d.y == 0.0) {
        return 2;
      }
      return (d.y < 0.0 || (d.y == 0.0 && d.x < 0.0)) ? 1 : 0;
    };
    std::sort(inc[v].begin(), inc[v].end(), [&](std::uint32_t e, std::uint32_t f) {
      const Vec2 de = dir(e);
      const Vec2 df = dir(f);
      const int he = half(de);
      const int hf = half(df);
      if (he != hf) {
        return he < hf;
      }
      const double c = cross(de, df);
      if (c != 0.0) {
        return c > 0.0;
      }
      return e < f;
    });
  }
  return inc;
}

}  // namespace cityforge
