// SPDX-License-Identifier: Apache-2.0
// Terrain conditioning under imported roads (cut and fill): grade-limited height profiles along
// the surface roads, with heights shared at their nodes, pressed into the heightfield.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cityforge/core/polyline.hpp"
#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {
namespace {

/// A surface edge's height profile: heights at stations along its centre line.
struct Profile {
  Polyline line;               ///< The centre line, consecutive duplicates removed.
  std::vector<double> cum;     ///< Arc length at each point of `line`.
  double length = 0.0;         ///< Total length.
  double ds = 1.0;             ///< Station spacing: length / (stations - 1).
  std::vector<double> height;  ///< At s = k * ds.
  double half_surface = 0.0;   ///< Half the carriageway plus one sidewalk.
  double r_from = 0.0;         ///< Flat junction disc at each end (arc length).
  double r_to = 0.0;
  double ramp_from = 0.0;  ///< Beyond a disc, the allowed grade ramps up from 0 over this.
  double ramp_to = 0.0;

  /// The profile at arc length s; beyond the ends (s < 0, s > length) it runs on at its end
  /// grade, so the ground has no crease across a dead end.
  double at(double s) const {
    if (height.size() == 1) return height[0];
    if (s < 0.0 || s > length) {
      const std::size_t m = height.size();
      const std::size_t k = std::min<std::size_t>(2, m - 1);
      const double run = static_cast<double>(k) * ds;
      return s < 0.0 ? height.front() + s * (height[k] - height.front()) / run
                     : height.back() + (s - length) * (height.back() - height[m - 1 - k]) / run;
    }
    const double f = s / ds;
    const std::size_t k = std::min(static_cast<std::size_t>(f), height.size() - 2);
    const double s0 = static_cast<double>(k) * ds;
    const double t = std::clamp((s - s0) / ds, 0.0, 1.0);
    return height[k] + t * (height[k + 1] - height[k]);
  }
};

/// Nearest point of a polyline to a grid point: distance and arc length (first segment wins
/// ties). Past either end, s runs on along the end segment (negative, or beyond the length).
struct Nearest {
  double d = 1e300;
  double s = 0.0;
};

/// Nearest points (as nearest_on) for a w x h block of grid points (origin + (a, b) * cell),
/// segment by segment: only points within `reach` of a segment's box are visited; the others
/// stay at d = 1e300.
void nearest_block(const Profile& pr, Vec2 origin, double cell, std::size_t w, std::size_t h,
                   double reach, std::vector<Nearest>& out) {
  out.assign(w * h, Nearest{});
  const std::size_t last = pr.line.size() - 2;
  const auto first = [&](double v, double o, std::size_t n) {
    return static_cast<std::size_t>(
        std::clamp(std::ceil((v - o) / cell), 0.0, static_cast<double>(n)));
  };
  const auto past = [&](double v, double o, std::size_t n) {
    return static_cast<std::size_t>(
        std::clamp(std::floor((v - o) / cell) + 1.0, 0.0, static_cast<double>(n)));
  };
  for (std::size_t k = 0; k + 1 < pr.line.size(); ++k) {
    const Vec2 a = pr.line[k];
    const Vec2 ab = pr.line[k + 1] - a;
    const double len2 = dot(ab, ab);
    const Vec2 lo{std::min(a.x, a.x + ab.x) - reach, std::min(a.y, a.y + ab.y) - reach};
    const Vec2 hi{std::max(a.x, a.x + ab.x) + reach, std::max(a.y, a.y + ab.y) + reach};
    const std::size_t a0 = first(lo.x, origin.x, w), a1 = past(hi.x, origin.x, w);
    const std::size_t b0 = first(lo.y, origin.y, h), b1 = past(hi.y, origin.y, h);
    for (std::size_t b = b0; b < b1; ++b) {
      for (std::size_t c = a0; c < a1; ++c) {
        const Vec2 p = origin + Vec2{static_cast<double>(c), static_cast<double>(b)} * cell;
        const double t_raw = len2 > 0.0 ? dot(p - a, ab) / len2 : 0.0;
        const double t = std::clamp(t_raw, 0.0, 1.0);
        const Vec2 off = p - (a + ab * t);
        const double d2 = dot(off, off);
        Nearest& n = out[b * w + c];
        if (d2 < n.d) {
          n.d = d2;
          const double te = (k == 0 && t_raw < 0.0) || (k == last && t_raw > 1.0) ? t_raw : t;
          n.s = pr.cum[k] + te * (pr.cum[k + 1] - pr.cum[k]);
        }
      }
    }
  }
  for (Nearest& n : out) {
    if (n.d < 1e300) n.d = std::sqrt(n.d);
  }
}

double smoothstep(double t) {
  t = std::clamp(t, 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

bool surface(const layout::RoadEdge& e) { return !e.bridge && !e.tunnel && e.points.size() >= 2; }

/// Which road claims a heightfield sample (12 bytes a sample). Tiers: samples under a road, its
/// sidewalks and shoulder; then corners of cells it touches; then blends. Within a tier the
/// nearest road wins, then the lower edge index.
struct Claim {
  static constexpr std::uint32_t kCell = 0x40000000u;
  static constexpr std::uint32_t kBlend = 0x80000000u;
  static constexpr std::uint32_t kTier = kCell | kBlend;
  static constexpr std::uint32_t kNone = 0xffffffffu;
  float d = 0.0f;
  std::uint32_t owner = kNone;  ///< Edge index | tier bits.
  float s = 0.0f;               ///< Station of the nearest point.
  bool better_than(const Claim& o) const {
    const std::uint32_t r = owner & kTier, ro = o.owner & kTier;
    if (o.owner == kNone) return owner != kNone;
    if (r != ro) return r < ro;
    if (d != o.d) return d < o.d;
    return owner < o.owner;
  }
};

}  // namespace

ConditionStats condition_terrain(terrain::Heightfield& ground, const layout::RoadNetwork& network,
                                 const ConditionConfig& config) {
  ConditionStats stats;
  if (ground.nx < 2 || ground.ny < 2 || network.edges.empty()) return stats;
  const terrain::Heightfield natural = ground;
  const double cell = ground.cell_m;
  const double half_diag = cell * std::sqrt(0.5);
  const double grade = std::max(config.max_grade, 1e-6);
  const std::size_t n_edges = network.edges.size();
  const std::size_t n_nodes = network.nodes.size();
  auto node_ok = [&](layout::NodeId id) { return static_cast<std::size_t>(id) < n_nodes; };

  // 1. Surface edges: centre lines and widths; junction discs (the widest road at the node).
  std::vector<Profile> prof(n_edges);
  std::vector<std::uint8_t> used(n_edges, 0);
  std::vector<double> node_radius(n_nodes, 0.0);
  std::vector<int> node_degree(n_nodes, 0);
  for (std::size_t e = 0; e < n_edges; ++e) {
    const layout::RoadEdge& edge = network.edges[e];
    if (!surface(edge) || !node_ok(edge.from) || !node_ok(edge.to)) continue;
    Profile& pr = prof[e];
    pr.line = polyline_dedupe(edge.points);
    if (pr.line.size() < 2) continue;
    // Round the bends (resampled at half a cell, corners cut twice): a sample's nearest
    // station then moves smoothly around a bend instead of jumping at its bisector, which
    // would leave a step in the ground the terrain mesh cannot follow.
    if (pr.line.size() > 2) {
      pr.line = polyline_dedupe(
          polyline_smooth(polyline_resample(pr.line, std::clamp(0.5 * cell, 2.0, 15.0)), 2));
    }
    pr.cum.assign(pr.line.size(), 0.0);
    for (std::size_t k = 1; k < pr.line.size(); ++k)
      pr.cum[k] = pr.cum[k - 1] + distance(pr.line[k - 1], pr.line[k]);
    pr.length = pr.cum.back();
    if (!(pr.length > 1e-6)) continue;
    pr.half_surface = std::max(0.0, 0.5 * edge.width_m) + std::max(0.0, edge.sidewalk_width_m);
    used[e] = 1;
    node_radius[edge.from] = std::max(node_radius[edge.from], pr.half_surface);
    node_radius[edge.to] = std::max(node_radius[edge.to], pr.half_surface);
    ++node_degree[edge.from];
    ++node_degree[edge.to];
  }
  // Junctions (3+ legs) get a flat disc, then a grade that ramps up from 0 over a few cells,
  // so the roads leave them without a kink the terrain mesh could not follow. Elsewhere
  // (dead ends, ways split end to end) the profile runs through.
  const double ramp_m = std::clamp(2.0 * cell, 4.0, 60.0);
  std::vector<double> eff_len(n_edges, 0.0);
  std::vector<double> capacity(n_edges, 0.0);  // Most climb end to end (at max_grade).
  for (std::size_t e = 0; e < n_edges; ++e) {
    if (!used[e]) continue;
    Profile& pr = prof[e];
    const layout::RoadEdge& edge = network.edges[e];
    const bool j_from = node_degree[edge.from] >= 3;
    const bool j_to = node_degree[edge.to] >= 3;
    pr.r_from = j_from ? std::min(node_radius[edge.from], 0.25 * pr.length) : 0.0;
    pr.r_to = j_to ? std::min(node_radius[edge.to], 0.25 * pr.length) : 0.0;
    eff_len[e] = pr.length - pr.r_from - pr.r_to;
    pr.ramp_from = j_from ? std::min(ramp_m, 0.5 * eff_len[e]) : 0.0;
    pr.ramp_to = j_to ? std::min(ramp_m, 0.5 * eff_len[e]) : 0.0;
    capacity[e] = grade * (eff_len[e] - 0.5 * (pr.ramp_from + pr.ramp_to));
  }

  // 2. Node heights: the natural ground around the node, then relaxed (edges in index order,
  //    both ends moved alike) until no edge is steeper than max_grade end to end.
  std::vector<double> node_h(n_nodes, 0.0);
  std::vector<double> node_lo(n_nodes, 0.0), node_hi(n_nodes, 0.0);
  const double max_shift = std::max(0.0, config.max_node_shift_m);
  std::vector<std::uint8_t> node_used(n_nodes, 0);
  for (std::size_t e = 0; e < n_edges; ++e) {
    if (!used[e]) continue;
    node_used[network.edges[e].from] = 1;
    node_used[network.edges[e].to] = 1;
  }
  for (std::size_t n = 0; n < n_nodes; ++n) {
    if (!node_used[n]) continue;
    const Vec2 c = network.nodes[n].pos;
    const double r = std::max(node_radius[n], 0.5 * cell);
    double sum = natural.sample(c);
    for (int k = 0; k < 8; ++k) {
      const double a = k * (3.14159265358979323846 / 4.0);
      sum += natural.sample(c + Vec2{std::cos(a), std::sin(a)} * r);
    }
    node_h[n] = sum / 9.0;
    node_lo[n] = node_h[n] - max_shift;
    node_hi[n] = node_h[n] + max_shift;
  }
  for (int sweep = 0; sweep < 2000; ++sweep) {
    double worst = 0.0;
    for (std::size_t e = 0; e < n_edges; ++e) {
      if (!used[e]) continue;
      const layout::RoadEdge& edge = network.edges[e];
      if (edge.from == edge.to) continue;
      const double dh = node_h[edge.to] - node_h[edge.from];
      const double excess = std::abs(dh) - 0.99 * capacity[e];
      if (excess <= 0.0) continue;
      worst = std::max(worst, excess);
      const double move = 0.5 * excess * (dh > 0 ? 1.0 : -1.0);
      node_h[edge.from] =
          std::clamp(node_h[edge.from] + move, node_lo[edge.from], node_hi[edge.from]);
      node_h[edge.to] = std::clamp(node_h[edge.to] - move, node_lo[edge.to], node_hi[edge.to]);
    }
    if (worst < 1e-6) break;
  }

  // 3. Edge profiles: the ground across the road at stations, averaged over smooth_m, bent to
  //    meet the node heights, flat over the junction discs, and limited to max_grade.
  const double ds_max = std::clamp(0.25 * cell, 0.5, 4.0);
  for (std::size_t e = 0; e < n_edges; ++e) {
    if (!used[e]) continue;
    Profile& pr = prof[e];
    const layout::RoadEdge& edge = network.edges[e];
    const std::size_t n = static_cast<std::size_t>(std::ceil(pr.length / ds_max - 1e-9)) + 1;
    const double ds = pr.length / static_cast<double>(n - 1);
    pr.ds = ds;
    std::vector<double> raw(n), sigma(n);
    for (std::size_t k = 0; k < n; ++k) {
      const double s = k + 1 == n ? pr.length : static_cast<double>(k) * ds;  // exact end
      const Vec2 p = polyline_point_at(pr.line, s);
      const Vec2 side = perp(polyline_tangent_at(pr.line, s)) * (0.5 * edge.width_m);
      raw[k] = (natural.sample(p) + natural.sample(p + side) + natural.sample(p - side)) / 3.0;
      sigma[k] = std::clamp(s - pr.r_from, 0.0, eff_len[e]);
    }
    // Box average over smooth_m (prefix sums; truncated at the ends).
    std::vector<double> prefix(n + 1, 0.0);
    for (std::size_t k = 0; k < n; ++k)
      prefix[k + 1] = prefix[k] + raw[k];
    const auto half = static_cast<std::size_t>(std::max(0.0, 0.5 * config.smooth_m / ds));
    std::vector<double> sm(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t a = k >= half ? k - half : 0;
      const std::size_t b = std::min(n - 1, k + half);
      sm[k] = (prefix[b + 1] - prefix[a]) / static_cast<double>(b - a + 1);
    }
    // Bend to the node heights, then clamp into the cone both ends allow.
    const double h0 = node_h[edge.from];
    const double h1 = node_h[edge.to];
    const double le = eff_len[e];
    // Most rise allowed between stations k - 1 and k (the grade ramps near junctions), and
    // its running sum from the start (c0) and to the end (c1).
    std::vector<double> step(n, 0.0), c0(n, 0.0);
    for (std::size_t k = 1; k < n; ++k) {
      const double mid = 0.5 * (sigma[k] + sigma[k - 1]);
      double allowed = 1.0;
      if (pr.ramp_from > 0.0) allowed = std::min(allowed, mid / pr.ramp_from);
      if (pr.ramp_to > 0.0) allowed = std::min(allowed, (le - mid) / pr.ramp_to);
      step[k] = grade * std::max(0.0, allowed) * (sigma[k] - sigma[k - 1]);
      c0[k] = c0[k - 1] + step[k];
    }
    // Where the node heights could not be brought within max_grade (max_node_shift_m), this
    // edge gets just the grade its ends need.
    if (c0.back() > 0.0 && std::abs(h1 - h0) > c0.back()) {
      const double f = std::abs(h1 - h0) / c0.back() * (1.0 + 1e-9);
      for (std::size_t k = 1; k < n; ++k) {
        step[k] *= f;
        c0[k] = c0[k - 1] + step[k];
      }
    }
    std::vector<double> p(n), bent(n);
    for (std::size_t k = 0; k < n; ++k) {
      const double t = le > 0.0 ? sigma[k] / le : 0.0;
      const double v = sm[k] + (h0 - sm.front()) * (1.0 - t) + (h1 - sm.back()) * t;
      bent[k] = v;
      const double c1 = c0.back() - c0[k];
      const double lo = std::max(h0 - c0[k], h1 - c1);
      const double hi = std::min(h0 + c0[k], h1 + c1);
      p[k] = lo <= hi ? std::clamp(v, lo, hi) : 0.5 * (lo + hi);
    }
    // Grade limit: forward and backward Lipschitz passes, averaged (symmetric).
    std::vector<double> fw(p), bw(p);
    for (std::size_t k = 1; k < n; ++k)
      fw[k] = std::clamp(fw[k], fw[k - 1] - step[k], fw[k - 1] + step[k]);
    for (std::size_t k = n - 1; k-- > 0;)
      bw[k] = std::clamp(bw[k], bw[k + 1] - step[k + 1], bw[k + 1] + step[k + 1]);
    // The grade limit may cut or fill at most max_node_shift_m (a steep street stays steep
    // rather than carving the hill); the ends keep their node heights.
    pr.height.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      const double q = 0.5 * (fw[k] + bw[k]);
      pr.height[k] = bent[k] + std::clamp(q - bent[k], -max_shift, max_shift);
    }
    // Ease the kinks (junction discs, grade limits) over a few cells: the terrain mesh's two
    // triangles per cell follow a profile only as well as its grade is constant over a cell.
    // Symmetric windows, shrinking at the ends: the node heights stay and the grade limit
    // holds (an average of a g-Lipschitz profile over [s - w, s + w] is g-Lipschitz).
    const double ease_m = std::clamp(1.5 * cell, 3.0, 45.0);
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t k = 0; k < n; ++k)
        prefix[k + 1] = prefix[k] + pr.height[k];
      for (std::size_t k = 1; k + 1 < n; ++k) {
        const auto w = static_cast<std::size_t>(ease_m / ds);
        const std::size_t half_k = std::min({w, k, n - 1 - k});
        sm[k] = (prefix[k + half_k + 1] - prefix[k - half_k]) / static_cast<double>(2 * half_k + 1);
      }
      for (std::size_t k = 1; k + 1 < n; ++k)
        pr.height[k] = sm[k];
    }
  }

  // 4. Claims: every sample within the road, its sidewalks and the shoulder takes the profile
  //    at its nearest station, and so do the corners of every cell whose centre is that close
  //    plus half a cell diagonal (a road narrower than a cell still sets its cells); within
  //    blend_m more the ground eases back to its natural height.
  const std::size_t nx = ground.nx;
  const std::size_t ny = ground.ny;
  std::vector<Claim> claims(nx * ny);
  auto consider = [&](std::size_t idx, const Claim& c) {
    if (c.better_than(claims[idx])) claims[idx] = c;
  };
  const double blend = std::max(0.0, config.blend_m);
  std::vector<Nearest> local, centres;
  for (std::size_t e = 0; e < n_edges; ++e) {
    if (!used[e]) continue;
    const Profile& pr = prof[e];
    const double r_core = pr.half_surface + std::max(0.0, config.shoulder_m);
    const double r_cell = r_core + half_diag;
    const double reach = std::max(r_core + blend, r_cell + half_diag) + cell;
    Aabb2 box;
    for (Vec2 q : pr.line)
      box.add(q);
    auto index_lo = [&](double v, double o) {
      return static_cast<std::int64_t>(std::floor((v - o) / cell));
    };
    const std::int64_t i0 = std::max<std::int64_t>(0, index_lo(box.min.x - reach, ground.origin.x));
    const std::int64_t j0 = std::max<std::int64_t>(0, index_lo(box.min.y - reach, ground.origin.y));
    const std::int64_t i1 = std::min<std::int64_t>(
        static_cast<std::int64_t>(nx) - 1, index_lo(box.max.x + reach, ground.origin.x) + 1);
    const std::int64_t j1 = std::min<std::int64_t>(
        static_cast<std::int64_t>(ny) - 1, index_lo(box.max.y + reach, ground.origin.y) + 1);
    if (i0 > i1 || j0 > j1) continue;
    const auto w = static_cast<std::size_t>(i1 - i0 + 1);
    const auto h = static_cast<std::size_t>(j1 - j0 + 1);
    const Vec2 block_origin =
        ground.origin + Vec2{static_cast<double>(i0), static_cast<double>(j0)} * cell;
    // Samples: to the end of the blend, and every corner of a touched cell.
    nearest_block(pr, block_origin, cell, w, h, std::max(r_core + blend, r_cell + half_diag) + 1.0,
                  local);
    nearest_block(pr, block_origin + Vec2{0.5, 0.5} * cell, cell, w, h, r_cell, centres);
    auto claim_of = [&](const Nearest& nr, bool core) {
      Claim c;
      c.d = static_cast<float>(nr.d);
      c.s = static_cast<float>(nr.s);
      c.owner = static_cast<std::uint32_t>(e) | (nr.d <= r_core ? 0u
                                                 : core         ? Claim::kCell
                                                                : Claim::kBlend);
      return c;
    };
    // Samples by their own distance.
    for (std::size_t b = 0; b < h; ++b) {
      for (std::size_t a = 0; a < w; ++a) {
        const Nearest& nr = local[b * w + a];
        if (nr.d >= r_core + blend) continue;
        const std::size_t idx =
            (static_cast<std::size_t>(j0) + b) * nx + static_cast<std::size_t>(i0) + a;
        consider(idx, claim_of(nr, false));
      }
    }
    // Corners of cells the road (and shoulder) touches.
    for (std::size_t b = 0; b + 1 < h; ++b) {
      for (std::size_t a = 0; a + 1 < w; ++a) {
        if (centres[b * w + a].d > r_cell) continue;
        for (std::size_t cb = 0; cb < 2; ++cb) {
          for (std::size_t ca = 0; ca < 2; ++ca) {
            const std::size_t idx = (static_cast<std::size_t>(j0) + b + cb) * nx +
                                    static_cast<std::size_t>(i0) + a + ca;
            consider(idx, claim_of(local[(b + cb) * w + a + ca], true));
          }
        }
      }
    }
  }

  // 5. Apply the winning claims.
  for (std::size_t idx = 0; idx < claims.size(); ++idx) {
    const Claim& c = claims[idx];
    if (c.owner == Claim::kNone) continue;
    const Profile& pr = prof[c.owner & ~Claim::kTier];
    const Nearest nr{c.d, c.s};
    double weight = 1.0;
    if ((c.owner & Claim::kBlend) != 0) {
      const double r_core = pr.half_surface + std::max(0.0, config.shoulder_m);
      weight = blend > 0.0 ? 1.0 - smoothstep((nr.d - r_core) / blend) : 0.0;
    }
    const double before = natural.heights[idx];
    const double after = before + weight * (pr.at(nr.s) - before);
    ground.heights[idx] = static_cast<float>(after);
    if (ground.heights[idx] != natural.heights[idx]) ++stats.samples_changed;
    stats.max_cut_m = std::max(stats.max_cut_m, before - after);
    stats.max_fill_m = std::max(stats.max_fill_m, after - before);
  }
  return stats;
}

}  // namespace cityforge::osm
