// SPDX-License-Identifier: Apache-2.0
// The straight skeleton of a footprint, for hipped roofs (roof_shapes.cpp).
//
// The skeleton comes from a wavefront simulation (Aichholzer and Aurenhammer's construction):
// every ring edge moves inwards at unit speed, vertices along the bisectors; edge events (an
// edge shrinks to nothing) and split events (a reflex vertex runs into an edge, splitting or,
// with holes, joining wavefront rings) are processed in time order. Between events every
// wavefront edge sweeps a planar trapezoid of its roof face, which is what is emitted, so
// adjacent faces share their skeleton arcs exactly. Simultaneous and degenerate events are
// taken one at a time; a run that does not settle returns false.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {
namespace {

// ---- Straight skeleton --------------------------------------------------------------------

struct SkelEdge {
  Vec2 a;  // A point of the original line.
  Vec2 u;  // Direction.
  Vec2 n;  // Inward normal (the solid lies left of every canonical ring edge).
};

struct SkelVertex {
  Vec2 o;  // Position at time t0.
  double t0 = 0.0;
  Vec2 w;                   // Velocity.
  std::uint32_t left = 0;   // Original edge arriving here.
  std::uint32_t right = 0;  // Original edge leaving here.
  std::uint32_t prev = 0;
  std::uint32_t next = 0;
  bool alive = true;
  bool reflex = false;
  bool spike = false;  // Antiparallel edges: a collapsed wing's ridge tip, retracted at once.
  Vec2 at(double t) const { return o + w * (t - t0); }
};

Vec2 bisector_velocity(const SkelEdge& l, const SkelEdge& r) {
  const double det = cross(l.n, r.n);
  if (std::abs(det) < 1e-9) {
    return dot(l.n, r.n) > 0.0 ? l.n : Vec2{};
  }
  return {(r.n.y - l.n.y) / det, (l.n.x - r.n.x) / det};
}

}  // namespace

bool skeleton_quads(const Polygon& footprint, std::vector<SkeletonQuad>* quads) {
  quads->clear();
  std::vector<SkelEdge> edges;
  std::vector<SkelVertex> verts;
  auto add_ring = [&](const Ring& raw) {
    const Ring r = ring_remove_degenerate(raw, 1e-3, 1e-3);
    if (r.size() < 3) {
      return;
    }
    const auto e0 = static_cast<std::uint32_t>(edges.size());
    const auto v0 = static_cast<std::uint32_t>(verts.size());
    const auto n = static_cast<std::uint32_t>(r.size());
    for (std::uint32_t i = 0; i < n; ++i) {
      const Vec2 u = normalize(r[(i + 1) % n] - r[i]);
      edges.push_back(SkelEdge{r[i], u, perp(u)});
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      SkelVertex v;
      v.o = r[i];
      v.left = e0 + (i + n - 1) % n;
      v.right = e0 + i;
      v.prev = v0 + (i + n - 1) % n;
      v.next = v0 + (i + 1) % n;
      verts.push_back(v);
    }
  };
  add_ring(footprint.outer);
  if (verts.empty()) {
    return false;
  }
  for (const Ring& h : footprint.holes) {
    add_ring(h);
  }
  auto setup = [&](SkelVertex& v) {
    const SkelEdge& l = edges[v.left];
    const SkelEdge& r = edges[v.right];
    v.w = bisector_velocity(l, r);
    v.reflex = cross(l.u, r.u) < -1e-9;
    v.spike = std::abs(cross(l.n, r.n)) < 1e-9 && dot(l.n, r.n) < 0.0;
  };
  for (SkelVertex& v : verts) {
    setup(v);
  }

  double now = 0.0;
  // Ends the wavefront edge p -> p.next at `now`: the trapezoid it swept since both ends exist.
  auto emit = [&](std::uint32_t p) {
    const SkelVertex& a = verts[p];
    const SkelVertex& b = verts[a.next];
    const double t = std::max(a.t0, b.t0);
    if (now > t + 1e-12) {
      quads->push_back(SkeletonQuad{a.right, a.at(t), b.at(t), b.at(now), a.at(now), t, now});
    }
  };
  auto ring_size = [&](std::uint32_t start) {
    std::size_t k = 1;
    for (std::uint32_t v = verts[start].next; v != start && k < verts.size() + 2;
         v = verts[v].next) {
      ++k;
    }
    return k;
  };
  auto collapse_ring = [&](std::uint32_t start) {
    std::vector<std::uint32_t> ring{start};
    for (std::uint32_t v = verts[start].next; v != start; v = verts[v].next) {
      ring.push_back(v);
    }
    for (std::uint32_t v : ring) {
      emit(v);
    }
    for (std::uint32_t v : ring) {
      verts[v].alive = false;
    }
  };

  // Area of a wavefront ring at `now` (0 once it has collapsed onto its ridges).
  auto ring_area = [&](std::uint32_t start) {
    double a = 0.0;
    std::uint32_t v = start;
    do {
      const Vec2 p = verts[v].at(now);
      const Vec2 q = verts[verts[v].next].at(now);
      a += cross(p, q);
      v = verts[v].next;
    } while (v != start);
    return 0.5 * a;
  };
  Aabb2 extent;
  for (const SkelVertex& v : verts) {
    extent.add(v.o);
  }
  const double area_eps = 1e-9 * std::max(1.0, dot(extent.size(), extent.size()));
  auto settle = [&](std::uint32_t v) {
    if (verts[v].alive && (ring_size(v) <= 2 || std::abs(ring_area(v)) <= area_eps)) {
      collapse_ring(v);
    }
  };

  // A wavefront vertex born at h now, between edges left and right, linked prev <- v -> next.
  auto born = [&](Vec2 h, std::uint32_t left, std::uint32_t right, std::uint32_t prev,
                  std::uint32_t next) {
    SkelVertex v;
    v.o = h;
    v.t0 = now;
    v.left = left;
    v.right = right;
    v.prev = prev;
    v.next = next;
    setup(v);
    verts.push_back(v);
    return static_cast<std::uint32_t>(verts.size() - 1);
  };

  const std::size_t max_events = 8 * verts.size() + 64;
  constexpr double kEps = 1e-9;
  constexpr double kMeetM = 1e-6;  // A split this close to an edge's end meets its vertex.
  for (std::size_t iter = 0;; ++iter) {
    if (iter > max_events) {
      return false;
    }
    // 1. The earliest event (ties: edge events first, then the lowest vertex numbers).
    double best_t = std::numeric_limits<double>::infinity();
    double best_len = std::numeric_limits<double>::infinity();
    int best_kind = -1;  // 0 edge event at vertex a, 1 split of vertex a by edge b -> b.next.
    std::uint32_t best_a = 0;
    std::uint32_t best_b = 0;
    bool any = false;
    for (std::uint32_t i = 0; i < verts.size(); ++i) {
      const SkelVertex& a = verts[i];
      if (!a.alive) {
        continue;
      }
      any = true;
      const SkelVertex& b = verts[a.next];
      const Vec2 u = edges[a.right].u;
      const double s0 = dot(b.at(now) - a.at(now), u);
      const double rate = dot(b.w - a.w, u);
      double t = std::numeric_limits<double>::infinity();
      if (s0 <= kEps || a.spike || b.spike) {
        t = now;
      } else if (rate < -1e-12) {
        t = now + s0 / -rate;
      }
      // Simultaneous edge events: the shortest edge first (a spike's shorter side).
      if (t < best_t - 1e-12 || (t <= best_t + 1e-12 && best_kind == 0 && s0 < best_len)) {
        best_t = t;
        best_len = s0;
        best_kind = 0;
        best_a = i;
      }
    }
    if (!any) {
      break;
    }
    for (std::uint32_t i = 0; i < verts.size(); ++i) {
      const SkelVertex& v = verts[i];
      if (!v.alive || !v.reflex) {
        continue;
      }
      const Vec2 pv = v.at(now);
      for (std::uint32_t j = 0; j < verts.size(); ++j) {
        const SkelVertex& x = verts[j];
        if (!x.alive || j == i || x.next == i) {
          continue;
        }
        const SkelVertex& y = verts[x.next];
        const SkelEdge& e = edges[x.right];
        const double dv = dot(pv - e.a, e.n) - now;
        const double close = 1.0 - dot(v.w, e.n);
        if (dv < -1e-9 || close <= 1e-12) {
          continue;
        }
        const double t = now + dv / close;
        if (!(t < best_t - 1e-12)) {
          continue;
        }
        const Vec2 h = v.at(t);
        const Vec2 px = x.at(t);
        const double len = dot(y.at(t) - px, e.u);
        const double q = dot(h - px, e.u);
        // Inclusive ends: a reflex vertex meeting a wavefront vertex (a vertex event, as
        // where a courtyard's corner meets the outer ring's) splits there too.
        if (len <= 1e-7 || q < -1e-7 || q > len + 1e-7) {
          continue;
        }
        // Meeting a neighbour's end is that neighbour's edge event.
        if ((q < kMeetM && j == v.next) || (q > len - kMeetM && x.next == v.prev)) {
          continue;
        }
        // Nor is meeting the twin a vertex or split event just left at the same place.
        if (q < kMeetM || q > len - kMeetM) {
          const SkelVertex& m = q < kMeetM ? x : y;
          if (m.t0 == v.t0 && distance(m.at(now), pv) < kMeetM && t <= now + 1e-12) {
            continue;
          }
        }
        best_t = t;
        best_kind = 1;
        best_a = i;
        best_b = j;
      }
    }
    if (best_kind < 0 || !std::isfinite(best_t)) {
      return false;  // Living wavefront that never collapses: degenerate input.
    }
    now = std::max(now, best_t);
    if (now > 1e6) {
      return false;
    }

    // 2. Process it.
    if (best_kind == 0) {
      const std::uint32_t ai = best_a;
      const std::uint32_t bi = verts[ai].next;
      if (ring_size(ai) <= 3) {
        collapse_ring(ai);
        continue;
      }
      const std::uint32_t pi = verts[ai].prev;
      const std::uint32_t ni = verts[bi].next;
      emit(pi);
      emit(ai);
      emit(bi);
      // A spike retracts onto its other end; two moving ends meet half way.
      const Vec2 at = verts[ai].spike && !verts[bi].spike ? verts[bi].at(now)
                      : verts[bi].spike && !verts[ai].spike
                          ? verts[ai].at(now)
                          : (verts[ai].at(now) + verts[bi].at(now)) * 0.5;
      const std::uint32_t ci = born(at, verts[ai].left, verts[bi].right, pi, ni);
      verts[ai].alive = false;
      verts[bi].alive = false;
      verts[pi].next = ci;
      verts[ni].prev = ci;
      settle(ci);
    } else {
      const std::uint32_t vi = best_a;
      const std::uint32_t xi = best_b;
      const std::uint32_t yi = verts[xi].next;
      const std::uint32_t pi = verts[vi].prev;
      const std::uint32_t ni = verts[vi].next;
      const Vec2 h = verts[vi].at(now);
      const SkelEdge& he = edges[verts[xi].right];
      const double q = dot(h - verts[xi].at(now), he.u);
      const double len = dot(verts[yi].at(now) - verts[xi].at(now), he.u);
      if (q < kMeetM || q > len - kMeetM) {
        // Vertex event: v meets the wavefront vertex m (x or y); they swap neighbours.
        const bool at_x = q < kMeetM;
        const std::uint32_t mi = at_x ? xi : yi;
        const std::uint32_t before = verts[mi].prev;
        const std::uint32_t after = verts[mi].next;
        emit(pi);
        emit(vi);
        emit(before);
        emit(mi);
        const std::uint32_t i1 = born(h, verts[vi].left, verts[mi].right, pi, after);
        const std::uint32_t i2 = born(h, verts[mi].left, verts[vi].right, before, ni);
        verts[vi].alive = false;
        verts[mi].alive = false;
        verts[pi].next = i1;
        verts[after].prev = i1;
        verts[before].next = i2;
        verts[ni].prev = i2;
        settle(i1);
        settle(i2);
        continue;
      }
      emit(pi);
      emit(vi);
      emit(xi);
      const std::uint32_t i1 = born(h, verts[vi].left, verts[xi].right, pi, yi);
      const std::uint32_t i2 = born(h, verts[xi].right, verts[vi].right, xi, ni);
      verts[vi].alive = false;
      verts[pi].next = i1;
      verts[yi].prev = i1;
      verts[xi].next = i2;
      verts[ni].prev = i2;
      settle(i1);
      settle(i2);
    }
  }
  for (const SkeletonQuad& q : *quads) {
    for (const Vec2& p : {q.a0, q.b0, q.b1, q.a1}) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) {
        return false;
      }
    }
  }
  return !quads->empty();
}

}  // namespace cityforge::buildings::detail
