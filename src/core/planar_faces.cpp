// SPDX-License-Identifier: Apache-2.0
// Face extraction by half-edge traversal, and pruning of dangling chains.
// Based on: the doubly connected edge list face walk (M. de Berg et al., Computational
// Geometry, 3rd ed., ch. 2.2).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>

#include "cityforge/core/planar_graph.hpp"

namespace cityforge {

std::vector<Face> extract_faces(const PlanarGraph& g) {
  const std::size_t m = g.edges.size();
  const std::size_t n = g.nodes.size();
  for (const PlanarGraph::Edge& e : g.edges) {
    if (e.a >= n || e.b >= n || e.a == e.b) {
      return {};  // Not a valid graph; nothing sensible to walk.
    }
  }
  const std::vector<std::vector<std::uint32_t>> inc = g.incidence();

  // 1. Position of each half-edge's edge in the incidence list of its tail node. Half-edge 2e
  // runs a -> b, 2e + 1 runs b -> a.
  std::vector<std::uint32_t> pos_at_a(m, 0);
  std::vector<std::uint32_t> pos_at_b(m, 0);
  for (std::uint32_t v = 0; v < n; ++v) {
    for (std::uint32_t k = 0; k < inc[v].size(); ++k) {
      const std::uint32_t e = inc[v][k];
      (g.edges[e].a == v ? pos_at_a : pos_at_b)[e] = k;
    }
  }
  const auto tail = [&](std::uint32_t h) {
    return h % 2 == 0 ? g.edges[h / 2].a : g.edges[h / 2].b;
  };
  const auto head = [&](std::uint32_t h) {
    return h % 2 == 0 ? g.edges[h / 2].b : g.edges[h / 2].a;
  };
  // The next half-edge leaves the head along the edge clockwise-next from the twin, which keeps
  // the face on the left: inner faces come out counter-clockwise.
  const auto next = [&](std::uint32_t h) {
    const std::uint32_t v = head(h);
    const std::uint32_t e = h / 2;
    const std::uint32_t k = h % 2 == 0 ? pos_at_b[e] : pos_at_a[e];
    const std::size_t deg = inc[v].size();
    const std::uint32_t f = inc[v][(k + deg - 1) % deg];
    return g.edges[f].a == v ? 2 * f : 2 * f + 1;
  };

  // 2. Walk every half-edge once; each walk is one face, started at its smallest half-edge.
  std::vector<char> seen(2 * m, 0);
  std::vector<Face> faces;
  std::vector<std::uint32_t> component_of_face;
  for (std::uint32_t start = 0; start < 2 * m; ++start) {
    if (seen[start] != 0) {
      continue;
    }
    Face face;
    double twice = 0.0;
    const Vec2 origin = g.nodes[tail(start)];
    std::uint32_t h = start;
    do {
      seen[h] = 1;
      face.nodes.push_back(tail(h));
      face.edges.push_back(h / 2);
      twice += cross(g.nodes[tail(h)] - origin, g.nodes[head(h)] - origin);
      h = next(h);
    } while (h != start);
    face.signed_area = 0.5 * twice;
    faces.push_back(std::move(face));
  }

  // 3. Connected components of the edges, to find each one's unbounded face.
  std::vector<std::uint32_t> comp(n, std::numeric_limits<std::uint32_t>::max());
  std::uint32_t components = 0;
  std::vector<std::uint32_t> stack;
  for (std::uint32_t s = 0; s < n; ++s) {
    if (comp[s] != std::numeric_limits<std::uint32_t>::max() || inc[s].empty()) {
      continue;
    }
    comp[s] = components;
    stack.push_back(s);
    while (!stack.empty()) {
      const std::uint32_t v = stack.back();
      stack.pop_back();
      for (const std::uint32_t e : inc[v]) {
        const std::uint32_t w = g.edges[e].a == v ? g.edges[e].b : g.edges[e].a;
        if (comp[w] == std::numeric_limits<std::uint32_t>::max()) {
          comp[w] = components;
          stack.push_back(w);
        }
      }
    }
    ++components;
  }

  // 4. Drop the most negative face of each component (its outside), and any face that is not
  // positive (numerically degenerate).
  std::vector<std::size_t> outer(components, std::numeric_limits<std::size_t>::max());
  for (std::size_t f = 0; f < faces.size(); ++f) {
    const std::uint32_t c = comp[faces[f].nodes.front()];
    if (outer[c] == std::numeric_limits<std::size_t>::max() ||
        faces[f].signed_area < faces[outer[c]].signed_area) {
      outer[c] = f;
    }
  }
  std::vector<Face> bounded;
  for (std::size_t f = 0; f < faces.size(); ++f) {
    if (faces[f].signed_area > 0.0 && outer[comp[faces[f].nodes.front()]] != f) {
      bounded.push_back(std::move(faces[f]));
    }
  }
  return bounded;
}

std::size_t prune_dangling(PlanarGraph& g, double min_length_m,
                           const std::vector<std::uint32_t>& keep_tags) {
  const std::size_t n = g.nodes.size();
  const std::size_t m = g.edges.size();
  for (const PlanarGraph::Edge& e : g.edges) {
    if (e.a >= n || e.b >= n) {
      return 0;  // Not a valid graph; leave it alone.
    }
  }
  std::vector<std::uint32_t> keep = keep_tags;
  std::sort(keep.begin(), keep.end());
  const auto kept = [&](std::uint32_t e) {
    return std::binary_search(keep.begin(), keep.end(), g.edges[e].tag);
  };
  std::vector<std::vector<std::uint32_t>> inc(n);
  for (std::uint32_t e = 0; e < m; ++e) {
    inc[g.edges[e].a].push_back(e);
    inc[g.edges[e].b].push_back(e);
  }
  std::vector<char> removed(m, 0);
  std::vector<std::uint32_t> degree(n, 0);
  for (std::uint32_t v = 0; v < n; ++v) {
    degree[v] = static_cast<std::uint32_t>(inc[v].size());
  }
  const auto live_edge_at = [&](std::uint32_t v, std::uint32_t not_e) {
    for (const std::uint32_t e : inc[v]) {
      if (removed[e] == 0 && e != not_e) {
        return e;
      }
    }
    return std::numeric_limits<std::uint32_t>::max();
  };

  // Rounds: find every dead-end chain (from a degree-1 node through degree-2 nodes) against
  // the degrees at the start of the round, remove the short ones, repeat until none goes.
  // Deciding a whole round before removing keeps the result independent of the visit order.
  std::size_t total = 0;
  for (;;) {
    std::vector<std::uint32_t> doomed;
    std::vector<std::uint32_t> chain;
    for (std::uint32_t leaf = 0; leaf < n; ++leaf) {
      if (degree[leaf] != 1) {
        continue;
      }
      chain.clear();
      double len = 0.0;
      bool protect = false;
      std::uint32_t v = leaf;
      std::uint32_t e = live_edge_at(v, std::numeric_limits<std::uint32_t>::max());
      for (;;) {
        chain.push_back(e);
        protect = protect || kept(e);
        len += distance(g.nodes[g.edges[e].a], g.nodes[g.edges[e].b]);
        v = g.edges[e].a == v ? g.edges[e].b : g.edges[e].a;
        if (degree[v] != 2 || v == leaf || len >= min_length_m) {
          break;
        }
        e = live_edge_at(v, e);
      }
      if (!protect && len < min_length_m) {
        doomed.insert(doomed.end(), chain.begin(), chain.end());
      }
    }
    std::sort(doomed.begin(), doomed.end());
    doomed.erase(std::unique(doomed.begin(), doomed.end()), doomed.end());
    if (doomed.empty()) {
      break;
    }
    for (const std::uint32_t e : doomed) {
      removed[e] = 1;
      --degree[g.edges[e].a];
      --degree[g.edges[e].b];
    }
    total += doomed.size();
  }

  // Compact: keep surviving edges in order and nodes that still have an edge.
  std::vector<std::uint32_t> new_id(n, std::numeric_limits<std::uint32_t>::max());
  std::vector<Vec2> nodes;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (degree[v] > 0) {
      new_id[v] = static_cast<std::uint32_t>(nodes.size());
      nodes.push_back(g.nodes[v]);
    }
  }
  std::vector<PlanarGraph::Edge> edges;
  for (std::uint32_t e = 0; e < m; ++e) {
    if (removed[e] == 0) {
      edges.push_back({new_id[g.edges[e].a], new_id[g.edges[e].b], g.edges[e].tag});
    }
  }
  g.nodes = std::move(nodes);
  g.edges = std::move(edges);
  return total;
}

}  // namespace cityforge
