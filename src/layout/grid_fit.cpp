// SPDX-License-Identifier: Apache-2.0
// The best-fitting grid pattern per region between arteries (the City Layout tool's American
// grid). Candidates are orientations taken from the region's own long edges (streets run
// parallel to the arteries that bound the region) and block sizes stretched within a tolerance
// so a whole number of blocks spans the region; each candidate is scored by the share of the
// region covered by whole blocks, and the seed picks among near-equal candidates so the same
// inputs can give many different cities.
#include <algorithm>
#include <cmath>
#include <vector>

#include "layout/detail.hpp"

namespace cityforge::layout::detail {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Candidate {
  double angle = 0.0;  // radians, direction of the long axis
  double w = 0.0;      // spacing across the long axis (block depth)
  double l = 0.0;      // spacing along the long axis (block length)
  double off_u = 0.0;  // grid offsets in the rotated frame
  double off_v = 0.0;
  double score = -1.0;
  bool aligned = false;  // parallel or perpendicular to the city-wide orientation
};

// Orientation candidates: directions of the region's longest edges (folded to [0, pi)), plus
// the axes. Rounded to 0.5 degree and de-duplicated so near-parallel edges count once.
std::vector<double> orientation_candidates(const Ring& ring) {
  struct E {
    double len;
    double ang;
  };
  std::vector<E> edges;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Vec2 d = ring[(i + 1) % ring.size()] - ring[i];
    double a = std::atan2(d.y, d.x);
    a = std::fmod(a + 2 * kPi, kPi);
    edges.push_back({length(d), std::round(a / (kPi / 360)) * (kPi / 360)});
  }
  // Sum lengths per rounded direction, so a curved artery made of many short pieces counts.
  std::vector<E> dirs;
  for (const E& e : edges) {
    auto it = std::find_if(dirs.begin(), dirs.end(), [&](const E& o) {
      const double diff = std::fabs(o.ang - e.ang);
      return std::min(diff, kPi - diff) < 3.0 * kPi / 180;
    });
    if (it == dirs.end())
      dirs.push_back(e);
    else
      it->len += e.len;
  }
  std::sort(dirs.begin(), dirs.end(),
            [](const E& a, const E& b) { return a.len != b.len ? a.len > b.len : a.ang < b.ang; });
  std::vector<double> out;
  for (std::size_t i = 0; i < dirs.size() && i < 4; ++i)
    out.push_back(dirs[i].ang);
  out.push_back(0.0);
  out.push_back(kPi / 2);
  return out;
}

// Spacing that makes a whole number of blocks span `extent`, within tolerance of `preferred`.
double fitted_spacing(double extent, double preferred, double tol) {
  const double n = std::max(1.0, std::round(extent / preferred));
  const double s = extent / n;
  return std::fabs(s / preferred - 1.0) <= tol ? s : preferred;
}

// Share of the region covered by grid cells whose four corners and centre are inside it.
double score_candidate(const Ring& local, const Aabb2& box, double w, double l, double off_u,
                       double off_v, double region_area) {
  double covered = 0.0;
  for (double v = box.min.y + off_v; v + w <= box.max.y + 1e-6; v += w) {
    for (double u = box.min.x + off_u; u + l <= box.max.x + 1e-6; u += l) {
      const Vec2 c[5] = {{u, v}, {u + l, v}, {u, v + w}, {u + l, v + w}, {u + l / 2, v + w / 2}};
      bool inside = true;
      for (const Vec2& p : c)
        inside = inside && ring_contains(local, p);
      if (inside) covered += w * l;
    }
  }
  return covered / region_area;
}

// Whether most of the piece runs within hug_m of the region's edge (a street along an artery
// or the city limit, a few metres from it).
bool hugs_edge(const Polyline& piece, const Polygon& region, double hug_m) {
  const Polyline samples = polyline_resample(piece, 10.0);
  std::size_t near = 0;
  for (Vec2 p : samples) {
    double d = 1e300;
    auto ring_distance = [&](const Ring& r) {
      for (std::size_t i = 0; i < r.size(); ++i)
        d = std::min(d, segment_distance(r[i], r[(i + 1) % r.size()], p));
    };
    ring_distance(region.outer);
    for (const Ring& h : region.holes)
      ring_distance(h);
    if (d < hug_m) ++near;
  }
  return near * 2 > samples.size();
}

// Moves each end of the piece forward along its direction onto the nearest artery crossing
// within reach_m, so the street meets the artery's centre line in a T junction.
void extend_to_artery(Polyline& piece, const std::vector<Polyline>& arteries, double reach_m) {
  for (int end = 0; end < 2; ++end) {
    const Vec2 tip = end == 0 ? piece.front() : piece.back();
    const Vec2 inner = end == 0 ? piece[1] : piece[piece.size() - 2];
    const Vec2 dir = normalize(tip - inner);
    const Vec2 far = tip + dir * reach_m;
    double best = 1e300;
    Vec2 hit;
    for (const Polyline& a : arteries) {
      for (std::size_t i = 0; i + 1 < a.size(); ++i) {
        Vec2 x;
        if (segment_intersection(tip, far, a[i], a[i + 1], &x) && distance(tip, x) < best) {
          best = distance(tip, x);
          hit = x;
        }
      }
    }
    if (best < 1e300) (end == 0 ? piece.front() : piece.back()) = hit;
  }
}

Ring rotated(const Ring& r, double angle) {
  Ring out;
  out.reserve(r.size());
  for (Vec2 p : r)
    out.push_back(rotate(p, -angle));
  return out;
}

}  // namespace

double dominant_angle(const Ring& ring) {
  const double a = orientation_candidates(ring).front();
  return std::fmod(a, kPi / 2);
}

std::vector<GridLine> fit_grid(Region& region, const std::vector<Polyline>& arteries,
                               double city_angle, double extend_m, const Config& config, Seed seed,
                               std::uint64_t region_id) {
  const Ring& ring = region.area.outer;
  const double area = polygon_area(region.area);
  Rng rng{seed, Stage::layout, region_id, /*stream=*/1};

  // 1. Score every (orientation, axis assignment, offset) candidate.
  std::vector<Candidate> cands;
  std::vector<double> bases = orientation_candidates(ring);
  bases.insert(bases.begin(), city_angle);
  for (double base : bases) {
    double diff = std::fmod(std::fabs(base - city_angle), kPi / 2);
    diff = std::min(diff, kPi / 2 - diff);
    for (int swap = 0; swap < 2; ++swap) {
      const double angle = base + swap * kPi / 2;
      const Ring local = rotated(ring, angle);
      const Aabb2 box = ring_bounds(local);
      const double l =
          fitted_spacing(box.size().x, config.block_long_m, config.block_size_tolerance);
      const double w =
          fitted_spacing(box.size().y, config.block_short_m, config.block_size_tolerance);
      for (int ou = 0; ou < 3; ++ou) {
        for (int ov = 0; ov < 2; ++ov) {
          Candidate c{angle, w, l, l * ou / 3.0, w * ov / 2.0, 0.0, diff < 1e-6};
          c.score = score_candidate(local, box, w, l, c.off_u, c.off_v, area);
          cands.push_back(c);
        }
      }
    }
  }
  // 2. Neighbouring regions should read as one city: keep the city-wide orientation unless
  //    the region's own fits clearly better (8 points of coverage). Then a seeded choice among
  //    the candidates within 3 points of the best, in a stable order.
  double best = 0.0;
  double best_aligned = 0.0;
  for (const Candidate& c : cands) {
    best = std::max(best, c.score);
    if (c.aligned) best_aligned = std::max(best_aligned, c.score);
  }
  const bool keep_city = best_aligned >= best - 0.08;
  const double bar = (keep_city ? best_aligned : best) - 0.03;
  std::vector<const Candidate*> near;
  for (const Candidate& c : cands) {
    if (c.score >= bar && (!keep_city || c.aligned)) near.push_back(&c);
  }
  const Candidate& pick = *near[rng.below(static_cast<std::uint32_t>(near.size()))];
  region.angle_deg = pick.angle * 180.0 / kPi;
  region.block_w_m = pick.w;
  region.block_l_m = pick.l;
  region.fit_score = pick.score;

  // 3. Emit the grid lines in the rotated frame, clip them to the region, drop the ones that
  //    hug its edge and extend the ends that stop at an artery's corridor onto the artery.
  const Ring local = rotated(ring, pick.angle);
  const Aabb2 box = ring_bounds(local);
  const int main_every = std::max(1, config.main_road_every);
  const auto phase_u = static_cast<int>(rng.below(static_cast<std::uint32_t>(main_every)));
  const auto phase_v = static_cast<int>(rng.below(static_cast<std::uint32_t>(main_every)));
  const double hug_m = 0.3 * std::min(pick.w, pick.l);
  std::vector<GridLine> lines;
  auto emit = [&](Vec2 a, Vec2 b, int index, int phase) {
    const Polyline world{rotate(a, pick.angle), rotate(b, pick.angle)};
    const RoadClass cls = ((index + phase) % main_every == 0) ? RoadClass::main : RoadClass::local;
    for (Polyline& piece : clip_polyline(world, region.area)) {
      if (polyline_length(piece) < 1.0 || hugs_edge(piece, region.area, hug_m)) continue;
      extend_to_artery(piece, arteries, extend_m);
      lines.push_back({std::move(piece), cls});
    }
  };
  const double margin = pick.l;
  // Lines closer than 30 % of a block to the region's edge would run beside the artery or the
  // city limit and leave sliver blocks, so the first and last lines keep that distance.
  auto first_line = [](double lo, double off, double step) {
    double s = lo + off;
    while (s < lo + 0.3 * step)
      s += step;
    return s;
  };
  int k = 0;
  // Lines along the long axis, spaced w apart (the long sides of the blocks).
  for (double v = first_line(box.min.y, pick.off_v, pick.w); v <= box.max.y - 0.3 * pick.w;
       v += pick.w, ++k) {
    emit({box.min.x - margin, v}, {box.max.x + margin, v}, k, phase_v);
  }
  k = 0;
  // Cross streets, spaced l apart.
  for (double u = first_line(box.min.x, pick.off_u, pick.l); u <= box.max.x - 0.3 * pick.l;
       u += pick.l, ++k) {
    emit({u, box.min.y - margin}, {u, box.max.y + margin}, k, phase_u);
  }
  return lines;
}

}  // namespace cityforge::layout::detail
