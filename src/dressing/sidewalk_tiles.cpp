// SPDX-License-Identifier: Apache-2.0
// The sidewalk processor (seeds/000, minutes 18-19): tiles fitted per straight run like road
// modules, seeded variants, outside corners as fans and inside corners as two triangles.
//
// Each sidewalk polygon is matched to the block whose outline it runs along (the sidewalk is
// the block grown to the curbs minus the road surfaces, so its inner side is the block's
// outline). The block's outer ring (counter-clockwise) is split into straight runs; each run is
// tiled across the band from the block edge to the curb (the width is measured per tile by a
// ray across the sidewalk), only where the sidewalk is present (junction mouths and freeway cuts
// split a run). Corners between runs:
// - outside (convex block corner): a fan of "sidewalk_corner_out" pieces with its apex at the
//   block corner, each piece reaching the curb (return) along its middle ray, enough pieces that
//   the chord error stays under kMaxChordErrorM;
// - inside (concave): the two curb lines meet at C; the kite (Pa, V, Pb, C) between the block
//   corner V and C is two right triangles "sidewalk_corner_in", scaled non-uniformly, and the
//   runs' tiles stop at Pa and start at Pb.
// Tile origins sit roads::Output::block_raise_m above the terrain (the sidewalks are drawn at
// that height; the tile kit puts its top 2 cm above the origin).

#include <algorithm>
#include <cmath>
#include <numbers>

#include "cityforge/core/polygon_bands.hpp"
#include "dressing/detail.hpp"

namespace cityforge::dressing::detail {
namespace {

constexpr double kRunTurnRad = 5.0 * std::numbers::pi / 180.0;  // Merge edges turning less.
constexpr double kRunChordM = 0.03;  // ...whose vertices stay this close to the run's chord.
// Width rays start this far out of the run's chord, past the block vertices it cuts off.
constexpr double kRayStartM = 0.1;
constexpr double kMaxChordErrorM = 0.1;  // Outside corner fans.
constexpr double kSampleM = 0.25;        // Sidewalk presence sampling along a run.
constexpr double kMinPieceM = 0.3;       // Shorter present stretches get no tile.

struct Run {
  Vec2 a;  // Start (a block corner).
  Vec2 b;  // End.
  Vec2 dir;
  Vec2 out;  // Outward normal (towards the curb): right of dir on a counter-clockwise ring.
  double length = 0.0;
  double width = 0.0;  // Typical sidewalk width (median of rays), 0 where none was found.
};

/// Distance from p along unit dir to the first crossing of a ring of poly, or max_m.
double ray_to_boundary(const Polygon& poly, Vec2 p, Vec2 dir, double max_m) {
  double best = max_m;
  auto scan = [&](const Ring& ring) {
    const std::size_t n = ring.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Vec2 a = ring[i];
      const Vec2 b = ring[(i + 1) % n];
      const Vec2 e = b - a;
      const double den = cross(dir, e);
      if (std::fabs(den) < 1e-12) continue;
      const Vec2 ap = a - p;
      const double t = cross(ap, e) / den;
      const double u = cross(ap, dir) / den;
      if (t > 1e-9 && t < best && u >= 0.0 && u <= 1.0) best = t;
    }
  };
  scan(poly.outer);
  for (const Ring& h : poly.holes)
    scan(h);
  return best;
}

/// Splits a counter-clockwise ring into straight runs (index ranges of its vertices).
std::vector<Run> split_runs(const Ring& ring) {
  const std::size_t n = ring.size();
  std::vector<Run> runs;
  if (n < 3) return runs;
  auto turn_at = [&](std::size_t i) {
    const Vec2 d0 = normalize(ring[i] - ring[(i + n - 1) % n]);
    const Vec2 d1 = normalize(ring[(i + 1) % n] - ring[i]);
    return std::atan2(cross(d0, d1), dot(d0, d1));
  };
  // Start at the sharpest corner so a run never wraps across the start.
  std::size_t start = 0;
  double sharpest = -1.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = std::fabs(turn_at(i));
    if (t > sharpest + 1e-12) {
      sharpest = t;
      start = i;
    }
  }
  std::size_t i0 = 0;  // Offsets from start.
  while (i0 < n) {
    std::size_t i1 = i0 + 1;
    // Grow the run while the next joint turns little and the vertices stay near the chord.
    while (i1 < n) {
      const std::size_t joint = (start + i1) % n;
      if (std::fabs(turn_at(joint)) >= kRunTurnRad) break;
      const Vec2 a = ring[(start + i0) % n];
      const Vec2 b = ring[(start + i1 + 1) % n];
      const double len = distance(a, b);
      if (len < 1e-9) break;
      const Vec2 d = (b - a) / len;
      bool near = true;
      for (std::size_t k = i0 + 1; k <= i1 && near; ++k) {
        near = std::fabs(cross(d, ring[(start + k) % n] - a)) <= kRunChordM;
      }
      if (!near) break;
      ++i1;
    }
    Run r;
    r.a = ring[(start + i0) % n];
    r.b = ring[(start + i1) % n];
    r.length = distance(r.a, r.b);
    if (r.length > 1e-6) {
      r.dir = (r.b - r.a) / r.length;
      r.out = Vec2{r.dir.y, -r.dir.x};
      runs.push_back(r);
    }
    i0 = i1;
  }
  return runs;
}

/// The block whose outline the sidewalk runs along: most block edges with the sidewalk just
/// outside their middle; -1 when none.
std::int32_t match_block(const Polygon& sidewalk, const layout::Output& city,
                         const std::vector<Aabb2>& block_boxes) {
  Aabb2 box = ring_bounds(sidewalk.outer);
  box.min = box.min - Vec2{1.0, 1.0};
  box.max = box.max + Vec2{1.0, 1.0};
  std::int32_t best = -1;
  std::size_t best_score = 0;
  const PolygonBands bands{sidewalk};
  for (std::size_t b = 0; b < city.blocks.size(); ++b) {
    if (!box.overlaps(block_boxes[b])) continue;
    const Ring& ring = city.blocks[b].area.outer;
    std::size_t score = 0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const Vec2 a = ring[i];
      const Vec2 c = ring[(i + 1) % ring.size()];
      const double len = distance(a, c);
      if (len < 0.5) continue;
      const Vec2 d = (c - a) / len;
      const Vec2 probe = (a + c) * 0.5 + Vec2{d.y, -d.x} * 0.2;
      if (bands.contains(probe)) ++score;
    }
    if (score > best_score) {
      best_score = score;
      best = static_cast<std::int32_t>(b);
    }
  }
  return best;
}

struct Slot {
  std::vector<Item> items;
  std::vector<TileRun> runs;
  double length_m = 0.0;
};

float z_at(const Inputs& in, Vec2 p) {
  return static_cast<float>(in.ground.sample(p) + in.roads.block_raise_m);
}

void tile_sidewalk(const Inputs& in, const Config& config, Seed seed, std::uint32_t s,
                   std::int32_t block, Slot& slot, bool want_runs) {
  const Polygon& sw = in.roads.sidewalks[s];
  const PolygonBands sw_bands{sw};  // Asked once per tile and probe.
  const Ring ring = ring_remove_degenerate(in.city.blocks[block].area.outer, 1e-3, 1e-3);
  std::vector<Run> runs = split_runs(ring);
  const std::size_t nr = runs.size();
  if (nr == 0) return;
  const auto owner = static_cast<std::uint32_t>(block);
  const std::int32_t tile_prop = find_prop("sidewalk_tile");
  const std::int32_t out_prop = find_prop("sidewalk_corner_out");
  const std::int32_t in_prop = find_prop("sidewalk_corner_in");
  const double tile_m = config.tile_m > 0.0 ? config.tile_m : 1.5;
  const std::uint32_t variants = std::max<std::uint32_t>(1, config.tile_variants);
  const auto present = [&](const Run& r, double t, double w) {
    return sw_bands.contains(r.a + r.dir * t + r.out * std::min(0.3, 0.5 * w));
  };

  // 1. Typical width per run: median of rays across the band where the sidewalk is.
  for (Run& r : runs) {
    std::vector<double> ws;
    const int samples = std::clamp(static_cast<int>(r.length / 2.0), 3, 24);
    for (int k = 0; k < samples; ++k) {
      const double t = r.length * (k + 0.5) / samples;
      const Vec2 p = r.a + r.dir * t + r.out * kRayStartM;
      if (!sw_bands.contains(p)) continue;
      ws.push_back(kRayStartM + ray_to_boundary(sw, p, r.out, 50.0));
    }
    if (ws.empty()) continue;
    std::sort(ws.begin(), ws.end());
    r.width = ws[ws.size() / 2];
    if (r.width >= 49.0) r.width = 0.0;  // Open band: no curb found.
  }

  // 2. Corners: inside kites trim the runs; outside fans are placed after the tiles.
  std::vector<double> trim_start(nr, 0.0), trim_end(nr, 0.0);
  struct Kite {
    std::size_t ra, rb;
    Vec2 pa, pb, c, v;
    double ta, tb;
  };
  std::vector<Kite> kites;
  for (std::size_t k = 0; k < nr; ++k) {
    const std::size_t ka = k;
    const std::size_t kb = (k + 1) % nr;
    const Run& ra = runs[ka];
    const Run& rb = runs[kb];
    if (ra.width <= 0.0 || rb.width <= 0.0) continue;
    const double turn = cross(ra.dir, rb.dir);
    if (turn >= 0.0) continue;  // Convex or straight.
    // The curb lines V + out_a w_a + dir_a t and V + out_b w_b + dir_b u meet at C.
    const Vec2 v = ra.b;
    const Vec2 qa = v + ra.out * ra.width;
    const Vec2 qb = v + rb.out * rb.width;
    const double den = cross(ra.dir, rb.dir);
    const double t = cross(qb - qa, rb.dir) / den;
    const Vec2 c = qa + ra.dir * t;
    const double ta = -dot(c - v, ra.dir);
    const double tb = dot(c - v, rb.dir);
    if (ta <= 1e-3 || tb <= 1e-3 || ta > 0.9 * ra.length || tb > 0.9 * rb.length) continue;
    Kite kite{ka, kb, v - ra.dir * ta, v + rb.dir * tb, c, v, ta, tb};
    trim_end[ka] = ta;
    trim_start[kb] = tb;
    kites.push_back(kite);
  }

  // 3. Tiles along each run, per stretch where the sidewalk is present.
  if (want_runs) slot.runs.resize(nr);
  for (std::size_t k = 0; k < nr; ++k) {
    const Run& r = runs[k];
    if (want_runs) {
      slot.runs[k].sidewalk = s;
      slot.runs[k].run = static_cast<std::uint32_t>(k);
      slot.runs[k].length_m = r.length;
      slot.runs[k].start = r.a;
      slot.runs[k].direction = r.dir;
      slot.runs[k].width_m = r.width;
    }
    if (r.width <= 0.0) continue;
    const double lo = trim_start[k];
    const double hi = r.length - trim_end[k];
    if (hi - lo < kMinPieceM) continue;
    // Present stretches, their ends refined by bisection.
    std::vector<std::array<double, 2>> stretches;
    const int steps = std::max(1, static_cast<int>(std::ceil((hi - lo) / kSampleM)));
    auto refine = [&](double t_in, double t_out) {
      for (int it = 0; it < 8; ++it) {
        const double m = 0.5 * (t_in + t_out);
        (present(r, m, r.width) ? t_in : t_out) = m;
      }
      return t_in;
    };
    bool open = false;
    double begin = lo;
    double prev = lo;
    for (int i = 0; i <= steps; ++i) {
      const double t = lo + (hi - lo) * i / steps;
      // Sample just inside the ends so the run's own corners count.
      const double probe = std::clamp(t, lo + 1e-3, hi - 1e-3);
      const bool p = present(r, probe, r.width);
      if (p && !open) {
        begin = i == 0 ? lo : refine(t, prev);
        open = true;
      } else if (!p && open) {
        stretches.push_back({begin, refine(prev, t)});
        open = false;
      }
      prev = t;
    }
    if (open) stretches.push_back({begin, hi});
    std::uint32_t tile_index = 0;
    for (const auto& st : stretches) {
      const double len = st[1] - st[0];
      if (len < kMinPieceM) continue;
      const auto count = static_cast<std::uint32_t>(std::max(1.0, std::round(len / tile_m)));
      const double piece = len / count;
      for (std::uint32_t i = 0; i < count; ++i, ++tile_index) {
        const double t0 = st[0] + piece * i;
        const double t1 = t0 + piece;
        const Vec2 mid = r.a + r.dir * (0.5 * (t0 + t1));
        double w =
            ray_to_boundary(sw, mid + r.out * kRayStartM, r.out, 2.0 * r.width + 1.0) + kRayStartM;
        if (w > 2.0 * r.width) w = r.width;
        if (!sw_bands.contains(mid + r.out * (0.5 * w))) continue;
        // Origin at the later end, +x back along the run, so +y points to the curb.
        const Vec2 origin = r.a + r.dir * t1;
        Rng rng{seed, Stage::dressing, hash_combine(hash_combine(s, k), i), 1};
        Item item;
        item.prop = static_cast<std::uint32_t>(tile_prop);
        item.position = {static_cast<float>(origin.x), static_cast<float>(origin.y),
                         z_at(in, origin)};
        item.yaw_rad = static_cast<float>(std::atan2(-r.dir.y, -r.dir.x));
        item.scale_x = static_cast<float>(piece);
        item.scale_y = static_cast<float>(w);
        item.owner = owner;
        item.variant = static_cast<std::uint8_t>(rng.below(std::min<std::uint32_t>(variants, 256)));
        slot.items.push_back(item);
        slot.length_m += piece;
        if (want_runs) slot.runs[k].spans.push_back({t0, t1});
      }
    }
    (void)tile_index;
  }

  // 4. Inside corners: two right triangles, right angles at Pa and Pb.
  for (const Kite& kt : kites) {
    const Run& ra = runs[kt.ra];
    const Run& rb = runs[kt.rb];
    const Vec2 ga = (kt.pa + kt.v + kt.c) / 3.0;
    const Vec2 gb = (kt.pb + kt.v + kt.c) / 3.0;
    if (!sw_bands.contains(ga) && !sw_bands.contains(gb)) continue;
    Item a;  // x along out_a (to C), y along dir_a (to V): left of out_a is dir_a.
    a.prop = static_cast<std::uint32_t>(in_prop);
    a.position = {static_cast<float>(kt.pa.x), static_cast<float>(kt.pa.y), z_at(in, kt.pa)};
    a.yaw_rad = static_cast<float>(std::atan2(ra.out.y, ra.out.x));
    a.scale_x = static_cast<float>(ra.width);
    a.scale_y = static_cast<float>(kt.ta);
    a.owner = owner;
    Item b;  // x along -dir_b (to V), y along out_b (to C): left of -dir_b is out_b.
    b.prop = static_cast<std::uint32_t>(in_prop);
    b.position = {static_cast<float>(kt.pb.x), static_cast<float>(kt.pb.y), z_at(in, kt.pb)};
    b.yaw_rad = static_cast<float>(std::atan2(-rb.dir.y, -rb.dir.x));
    b.scale_x = static_cast<float>(kt.tb);
    b.scale_y = static_cast<float>(rb.width);
    b.owner = owner;
    slot.items.push_back(a);
    slot.items.push_back(b);
    slot.length_m += kt.ta + kt.tb;
    if (want_runs) {
      slot.runs[kt.ra].spans.push_back({ra.length - kt.ta, ra.length});
      slot.runs[kt.rb].spans.push_back({0.0, kt.tb});
    }
  }

  // 5. Outside corners: a fan from the block corner to the curb.
  for (std::size_t k = 0; k < nr; ++k) {
    const Run& ra = runs[k];
    const Run& rb = runs[(k + 1) % nr];
    const double turn = std::atan2(cross(ra.dir, rb.dir), dot(ra.dir, rb.dir));
    if (turn <= 1e-3) continue;
    const Vec2 v = ra.b;
    const double a0 = std::atan2(ra.out.y, ra.out.x);
    const double reach = 4.0 * std::max({ra.width, rb.width, 1.0});
    double r_max = 0.0;
    for (int i = 0; i <= 8; ++i) {
      const double ang = a0 + turn * i / 8.0;
      const Vec2 d{std::cos(ang), std::sin(ang)};
      if (!sw_bands.contains(v + d * 0.02)) continue;
      r_max = std::max(r_max, ray_to_boundary(sw, v + d * 0.02, d, reach) + 0.02);
    }
    if (r_max < 0.1) continue;
    const double max_step = 2.0 * std::acos(std::max(-1.0, 1.0 - kMaxChordErrorM / r_max));
    const auto pieces = static_cast<std::uint32_t>(std::max(1.0, std::ceil(turn / max_step)));
    const double step = turn / pieces;
    for (std::uint32_t i = 0; i < pieces; ++i) {
      const double ang = a0 + step * (i + 0.5);
      const Vec2 d{std::cos(ang), std::sin(ang)};
      if (!sw_bands.contains(v + d * 0.02)) continue;
      const double r = ray_to_boundary(sw, v + d * 0.02, d, reach) + 0.02;
      if (r < 0.05 || r >= reach) continue;
      Item item;
      item.prop = static_cast<std::uint32_t>(out_prop);
      item.position = {static_cast<float>(v.x), static_cast<float>(v.y), z_at(in, v)};
      item.yaw_rad = static_cast<float>(ang);
      item.scale_x = static_cast<float>(r);
      item.scale_y = static_cast<float>(2.0 * r * std::tan(0.5 * step));
      item.owner = owner;
      slot.items.push_back(item);
      slot.length_m += r * step;
    }
  }
}

}  // namespace

double sidewalk_tiles(const Inputs& in, const Config& config, Seed seed, std::vector<Item>& out,
                      std::vector<TileRun>* runs) {
  if (find_prop("sidewalk_tile") < 0 || find_prop("sidewalk_corner_out") < 0 ||
      find_prop("sidewalk_corner_in") < 0) {
    return 0.0;
  }
  const auto& sidewalks = in.roads.sidewalks;
  std::vector<Aabb2> block_boxes(in.city.blocks.size());
  for (std::size_t b = 0; b < block_boxes.size(); ++b)
    block_boxes[b] = ring_bounds(in.city.blocks[b].area.outer);
  // Shared between the ranks, costed by the sidewalks' perimeters (tiles are laid along them).
  std::vector<Slot> slots = shared_jobs<Slot>(
      in, sidewalks.size(), "sidewalk tiles from another rank",
      [&](std::size_t s) {
        double length = 1.0;
        const Ring& ring = sidewalks[s].outer;
        for (std::size_t k = 0; k < ring.size(); ++k)
          length += distance(ring[k], ring[(k + 1) % ring.size()]);
        return length;
      },
      [&](std::size_t s) {
        Slot slot;
        if (sidewalks[s].outer.size() < 3) return slot;
        const std::int32_t block = match_block(sidewalks[s], in.city, block_boxes);
        if (block < 0) return slot;
        tile_sidewalk(in, config, seed, static_cast<std::uint32_t>(s), block, slot,
                      runs != nullptr);
        return slot;
      },
      [](ByteWriter& w, const Slot& slot) {
        w.put_vector(slot.items);
        w.put(slot.length_m);
        w.put<std::uint64_t>(slot.runs.size());
        for (const TileRun& r : slot.runs) {
          w.put(r.sidewalk);
          w.put(r.run);
          w.put(r.length_m);
          w.put_vector(r.spans);
          w.put(r.start);
          w.put(r.direction);
          w.put(r.width_m);
        }
      },
      [](ByteReader& rd, Slot& slot) -> Status {
        Status st = rd.get_vector(slot.items);
        if (st) st = rd.get(slot.length_m);
        std::uint64_t n = 0;
        if (st) st = rd.get(n);
        for (std::uint64_t k = 0; st && k < n; ++k) {
          TileRun r;
          st = rd.get(r.sidewalk);
          if (st) st = rd.get(r.run);
          if (st) st = rd.get(r.length_m);
          if (st) st = rd.get_vector(r.spans);
          if (st) st = rd.get(r.start);
          if (st) st = rd.get(r.direction);
          if (st) st = rd.get(r.width_m);
          slot.runs.push_back(std::move(r));
        }
        return st;
      });
  double total = 0.0;
  for (Slot& slot : slots) {
    out.insert(out.end(), slot.items.begin(), slot.items.end());
    total += slot.length_m;
    if (runs != nullptr) {
      for (TileRun& r : slot.runs) {
        std::sort(r.spans.begin(), r.spans.end());
        runs->push_back(std::move(r));
      }
    }
  }
  return total;
}

}  // namespace cityforge::dressing::detail
