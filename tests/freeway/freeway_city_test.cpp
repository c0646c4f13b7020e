// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "cityforge/freeway/freeway.hpp"
#include "freeway/detail.hpp"
#include "roads/small_city_fixture.hpp"

namespace cityforge::freeway {
namespace {

struct City {
  terrain::Heightfield ground;
  layout::Output layout;
  roads::Output roads;
};

// The small city of the layout tests, on gentle hills.
const City& city() {
  static const City c = [] {
    const layout::Inputs in = roads::test::small_city_inputs();
    terrain::Config hills;
    hills.amplitude_m = 6;
    hills.scale_m = 600;
    City out;
    out.ground = *terrain::run(ring_bounds(in.boundary.outer), hills, 2);
    out.layout = *layout::run(in, out.ground, layout::Config{}, 3);
    out.roads = *roads::run(out.layout, out.ground, roads::Config{}, 3);
    return out;
  }();
  return c;
}

FreewayCurve crossing() {
  return {"crosstown", {{40, 150, 16}, {600, 300, 16}, {1150, 850, 16}}, 3, 90};
}

Result<Output> build(const std::vector<FreewayCurve>& curves, const Config& cfg = Config{},
                     Seed seed = 7) {
  const City& c = city();
  return run(curves, c.layout, c.roads, c.ground, cfg, seed);
}

Vec2 xy(Vec3 p) { return {p.x, p.y}; }
double dist3(Vec3 a, Vec3 b) { return length(a - b); }

// How many pillars the deck alone gets (they come first in Output::pillars).
std::size_t deck_pillar_count(const FreewayCurve& curve, const Config& cfg) {
  const City& c = city();
  const Result<detail::CentreLine> line = detail::build_centre_line(curve, 0, c.ground, cfg);
  if (!line) return 0;
  detail::PillarRule rule;
  rule.thickness_m = cfg.deck_thickness_m;
  return detail::place_pillars(0, line->line, rule, c.layout, c.ground, cfg).size();
}

// Nearest point of a 3D polyline in plan: plan distance and z there.
std::pair<double, double> nearest_on(const std::vector<Vec3>& pts, Vec2 p) {
  double best = 1e300, z = 0;
  for (std::size_t k = 0; k + 1 < pts.size(); ++k) {
    const Vec2 a = xy(pts[k]), b = xy(pts[k + 1]);
    const double l2 = dot(b - a, b - a);
    const double t = l2 > 0 ? std::clamp(dot(p - a, b - a) / l2, 0.0, 1.0) : 0.0;
    const double dist = distance(p, lerp(a, b, t));
    if (dist < best) {
      best = dist;
      z = pts[k].z + (pts[k + 1].z - pts[k].z) * t;
    }
  }
  return {best, z};
}

// Whether an upward-facing triangle of the chunks lies within tol_m of p in plan with its
// plane within dz_m of z there.
bool top_covers(const std::vector<MeshChunk>& chunks, Vec2 p, double z, double tol_m, double dz_m) {
  for (const MeshChunk& ch : chunks) {
    const Mesh& m = ch.mesh;
    for (std::size_t t = 0; t + 2 < m.indices.size(); t += 3) {
      if (m.normals[m.indices[t]][2] < 0.5) continue;
      Vec3 v[3];
      for (int i = 0; i < 3; ++i) {
        const auto& q = m.positions[m.indices[t + static_cast<std::size_t>(i)]];
        v[i] = {q[0], q[1], q[2]};
      }
      const double x0 = std::min({v[0].x, v[1].x, v[2].x}) - tol_m;
      const double x1 = std::max({v[0].x, v[1].x, v[2].x}) + tol_m;
      const double y0 = std::min({v[0].y, v[1].y, v[2].y}) - tol_m;
      const double y1 = std::max({v[0].y, v[1].y, v[2].y}) + tol_m;
      if (p.x < x0 || p.x > x1 || p.y < y0 || p.y > y1) continue;
      const Vec2 a = xy(v[0]), b = xy(v[1]), c = xy(v[2]);
      const double den = cross(b - a, c - a);
      if (std::fabs(den) < 1e-9) continue;
      const double wb = cross(p - a, c - a) / den;
      const double wc = cross(b - a, p - a) / den;
      const double wa = 1.0 - wb - wc;
      const bool inside = wa >= 0 && wb >= 0 && wc >= 0;
      const double d = inside ? 0.0
                              : std::min({segment_distance(a, b, p), segment_distance(b, c, p),
                                          segment_distance(c, a, p)});
      if (d > tol_m) continue;
      if (std::fabs(wa * v[0].z + wb * v[1].z + wc * v[2].z - z) <= dz_m) return true;
    }
  }
  return false;
}

// Deck top z under p: projection onto the nearest centre line segment.
double deck_top_at(const Deck& d, Vec2 p) {
  double best = 1e300, z = 0;
  for (std::size_t k = 0; k + 1 < d.centre.size(); ++k) {
    const Vec2 a = xy(d.centre[k]), b = xy(d.centre[k + 1]);
    const double l2 = dot(b - a, b - a);
    const double t = l2 > 0 ? std::clamp(dot(p - a, b - a) / l2, 0.0, 1.0) : 0.0;
    const double dist = distance(p, lerp(a, b, t));
    if (dist < best) {
      best = dist;
      z = d.centre[k].z + (d.centre[k + 1].z - d.centre[k].z) * t;
    }
  }
  return z;
}

TEST(FreewayRun, CrossingTheCityBuildsDeckPillarsLanesAndRamps) {
  const Result<Output> r = build({crossing()});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const Output& out = *r;
  const Config cfg;
  ASSERT_EQ(out.decks.size(), 1U);
  EXPECT_NEAR(out.decks[0].width_m, 2.0 + 2 * (3 * 3.6 + 2.5), 1e-9);
  // Chunks: non-empty, every vertex inside its chunk (1 cm).
  ASSERT_FALSE(out.deck_chunks.empty());
  ASSERT_FALSE(out.barrier_chunks.empty());
  for (const auto* chunks : {&out.deck_chunks, &out.barrier_chunks}) {
    for (const MeshChunk& ch : *chunks) {
      ASSERT_FALSE(ch.mesh.empty());
      ASSERT_EQ(ch.mesh.positions.size(), ch.mesh.normals.size());
      for (const auto& p : ch.mesh.positions) {
        ASSERT_GE(p[0], ch.cx * cfg.chunk_m - 0.01);
        ASSERT_LE(p[0], (ch.cx + 1) * cfg.chunk_m + 0.01);
        ASSERT_GE(p[1], ch.cy * cfg.chunk_m - 0.01);
        ASSERT_LE(p[1], (ch.cy + 1) * cfg.chunk_m + 0.01);
      }
    }
  }
  // Deck pillars (the first ones) stand on the terrain and reach the deck underside.
  const std::size_t deck_pillars = deck_pillar_count(crossing(), cfg);
  ASSERT_GT(deck_pillars, 20U);
  ASSERT_GE(out.pillars.size(), deck_pillars);
  for (std::size_t i = 0; i < deck_pillars; ++i) {
    const Pillar& p = out.pillars[i];
    EXPECT_NEAR(p.base.z, city().ground.sample(xy(p.base)), 0.01);
    EXPECT_NEAR(p.base.z + p.height_m, deck_top_at(out.decks[0], xy(p.base)) - cfg.deck_thickness_m,
                0.01);
    EXPECT_GT(p.height_m, 5.0);
  }
  // Footprints cover the deck, plus at most the ramps' outlines.
  ASSERT_FALSE(out.footprints.empty());
  double area = 0;
  for (const Polygon& f : out.footprints)
    area += polygon_area(f);
  const double deck_area = out.decks[0].length_m * out.decks[0].width_m;
  double ramp_area = 0;
  for (const Ramp& rp : out.ramps)
    ramp_area += rp.length_m * (cfg.ramp_lane_width_m + 2 * cfg.ramp_shoulder_m);
  EXPECT_GE(area, 0.98 * deck_area);
  EXPECT_LE(area, 1.02 * deck_area + 1.02 * ramp_area);
  // Lanes: ids, tags, continuity with every successor.
  const auto& old = city().roads.lanes.lanes;
  EXPECT_EQ(out.first_lane_id, old.size());
  auto lane = [&](roads::LaneId id) -> const roads::Lane& {
    return id >= out.first_lane_id ? out.lanes[id - out.first_lane_id] : old[id];
  };
  std::size_t freeway_lanes = 0;
  std::size_t turnarounds = 0;
  for (std::size_t i = 0; i < out.lanes.size(); ++i) {
    const roads::Lane& l = out.lanes[i];
    ASSERT_EQ(l.id, out.first_lane_id + i);
    ASSERT_GE(l.points.size(), 2U);
    EXPECT_TRUE((l.tags & roads::kVehicle) != 0U);
    EXPECT_TRUE(((l.tags & roads::kFreeway) != 0U) != ((l.tags & roads::kRamp) != 0U));
    if ((l.tags & roads::kFreeway) != 0U && l.turn == roads::Turn::u_turn) {
      // The turnaround at each end of the deck: a slow connector between the inner lanes.
      ++turnarounds;
      EXPECT_TRUE((l.tags & roads::kIntersection) != 0U);
      EXPECT_LT(l.speed_limit_mps, 90 / 3.6);
      EXPECT_EQ(l.successors.size(), 1U);
      EXPECT_EQ(l.predecessors.size(), 1U);
    } else if ((l.tags & roads::kFreeway) != 0U) {
      ++freeway_lanes;
      EXPECT_NEAR(l.speed_limit_mps, 90 / 3.6, 1e-9);
    }
    for (roads::LaneId s : l.successors) {
      EXPECT_LT(dist3(l.points.back(), lane(s).points.front()), 0.01)
          << "lane " << l.id << " -> " << s;
    }
    for (roads::LaneId p : l.predecessors) {
      EXPECT_LT(dist3(lane(p).points.back(), l.points.front()), 0.01)
          << "lane " << p << " -> " << l.id;
    }
  }
  EXPECT_GE(freeway_lanes, 6U);
  EXPECT_EQ(turnarounds, 2U) << "no vehicle may be trapped at the ends of the deck";
  // Ramps: at least one off and one on, joined to artery lanes, within the grade.
  std::size_t offs = 0, ons = 0;
  for (const Ramp& rp : out.ramps) {
    const roads::Lane& l = lane(rp.lane);
    const roads::Lane& a = old.at(rp.artery_lane);
    EXPECT_EQ(city().layout.network.edges[city().roads.sections[rp.section].edge].road_class,
              layout::RoadClass::artery);
    EXPECT_EQ(a.section, static_cast<std::int32_t>(rp.section));
    if (rp.off) {
      ++offs;
      EXPECT_LT(dist3(l.points.back(), a.points.front()), 0.01);
      EXPECT_EQ(l.successors, std::vector<roads::LaneId>{rp.artery_lane});
      EXPECT_NE(l.predecessors.size(), 0U);
    } else {
      ++ons;
      EXPECT_LT(dist3(a.points.back(), l.points.front()), 0.01);
      EXPECT_EQ(l.predecessors, std::vector<roads::LaneId>{rp.artery_lane});
      EXPECT_EQ(l.successors.size(), 1U);
    }
    EXPECT_GE(rp.length_m, cfg.min_ramp_length_m);
    for (std::size_t k = 1; k < l.points.size(); ++k) {
      const double run = distance(xy(l.points[k]), xy(l.points[k - 1]));
      EXPECT_LE(std::fabs(l.points[k].z - l.points[k - 1].z), cfg.max_ramp_grade * run + 1e-6);
    }
    const bool linked = std::any_of(out.links.begin(), out.links.end(), [&](const LaneLink& k) {
      return rp.off ? (k.from == rp.lane && k.to == rp.artery_lane)
                    : (k.from == rp.artery_lane && k.to == rp.lane);
    });
    EXPECT_TRUE(linked);
  }
  EXPECT_GE(offs, 1U);
  EXPECT_GE(ons, 1U);
  std::size_t tris = 0;
  for (const MeshChunk& ch : out.deck_chunks)
    tris += ch.mesh.triangle_count();
  std::printf(
      "deck %.0f m x %.1f m, %zu deck chunks (%zu triangles), %zu barrier chunks, "
      "%zu pillars, %zu freeway lanes, %zu ramps, %zu warnings\n",
      out.decks[0].length_m, out.decks[0].width_m, out.deck_chunks.size(), tris,
      out.barrier_chunks.size(), out.pillars.size(), freeway_lanes, out.ramps.size(),
      out.warnings.size());
  for (const std::string& w : out.warnings)
    std::printf("warning: %s\n", w.c_str());
}

std::uint64_t hash_output(const Output& o) {
  std::uint64_t h = 0;
  auto add = [&](double v) {
    h = hash_combine(h, static_cast<std::uint64_t>(std::llround(v * 1e6)));
  };
  for (const auto* chunks : {&o.deck_chunks, &o.barrier_chunks}) {
    for (const MeshChunk& c : *chunks) {
      add(c.cx);
      add(c.cy);
      for (const auto& p : c.mesh.positions)
        h = hash_bytes(p.data(), sizeof(float) * 3, h);
    }
  }
  for (const Pillar& p : o.pillars) {
    add(p.base.x);
    add(p.base.y);
    add(p.height_m);
  }
  for (const Polygon& f : o.footprints) {
    for (Vec2 p : f.outer) {
      add(p.x);
      add(p.y);
    }
  }
  for (const roads::Lane& l : o.lanes) {
    add(l.id);
    for (Vec3 p : l.points) {
      add(p.x);
      add(p.y);
      add(p.z);
    }
    for (roads::LaneId s : l.successors)
      add(s);
  }
  return h;
}

TEST(FreewayRun, RampsHaveDecksBarriersPillarsAndFootprints) {
  const Result<Output> r = build({crossing()});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const Output& out = *r;
  const Config cfg;
  const City& c = city();
  ASSERT_GE(out.ramps.size(), 2U);
  const std::vector<Vec3>& centre = out.decks[0].centre;
  std::vector<Vec2> centre_xy;
  for (Vec3 p : centre)
    centre_xy.push_back(xy(p));
  const double deck_half = out.decks[0].width_m / 2.0;
  // 1. Every lane vertex and segment midpoint of every ramp has a top triangle within 5 cm in
  //    plan at the lane's height (2 cm); elevated samples off the deck lie in a footprint.
  std::size_t elevated = 0;
  for (const Ramp& rp : out.ramps) {
    const roads::Lane& l = out.lanes[rp.lane - out.first_lane_id];
    for (std::size_t k = 0; k < l.points.size(); ++k) {
      std::vector<Vec3> samples{l.points[k]};
      if (k + 1 < l.points.size()) samples.push_back((l.points[k] + l.points[k + 1]) * 0.5);
      for (Vec3 s : samples) {
        ASSERT_TRUE(top_covers(out.deck_chunks, xy(s), s.z, 0.05, 0.02))
            << "ramp lane " << rp.lane << " uncovered at (" << s.x << ", " << s.y << ", " << s.z
            << ") sample " << k << " of " << l.points.size() << ", " << s.z - c.ground.sample(xy(s))
            << " m above the terrain";
        const double above = s.z - c.ground.sample(xy(s));
        if (above > cfg.ramp_ground_m + 0.5 && polyline_distance(centre_xy, xy(s)) > deck_half) {
          ++elevated;
          const bool in_footprint =
              std::any_of(out.footprints.begin(), out.footprints.end(),
                          [&](const Polygon& f) { return polygon_contains(f, xy(s)); });
          EXPECT_TRUE(in_footprint) << "ramp lane " << rp.lane << " at (" << s.x << ", " << s.y
                                    << ") is elevated but outside every footprint";
        }
      }
    }
  }
  EXPECT_GT(elevated, 10U);
  // 2. Ramp pillars (after the deck's) stand on the terrain off roads and the deck, under a
  //    ramp lane, and reach its underside (1 cm).
  const std::size_t deck_pillars = deck_pillar_count(crossing(), cfg);
  ASSERT_GT(out.pillars.size(), deck_pillars);
  for (std::size_t i = deck_pillars; i < out.pillars.size(); ++i) {
    const Pillar& p = out.pillars[i];
    double best = 1e300, top = 0;
    for (const Ramp& rp : out.ramps) {
      const auto [d, z] = nearest_on(out.lanes[rp.lane - out.first_lane_id].points, xy(p.base));
      if (d < best) {
        best = d;
        top = z;
      }
    }
    EXPECT_LT(best, 0.01) << "pillar " << i << " is under no ramp lane";
    EXPECT_NEAR(p.base.z, c.ground.sample(xy(p.base)), 0.01);
    EXPECT_NEAR(p.base.z + p.height_m, top - cfg.ramp_thickness_m, 0.01) << "pillar " << i;
    EXPECT_GE(p.height_m, cfg.ramp_pillar_above_m);
    EXPECT_GE(polyline_distance(centre_xy, xy(p.base)), deck_half) << "pillar " << i;
  }
  // 3. Ramp barriers come on top of the deck's own.
  const Result<detail::CentreLine> line = detail::build_centre_line(crossing(), 0, c.ground, cfg);
  ASSERT_TRUE(line.ok());
  std::vector<detail::Triangle> deck_tris, barrier_tris;
  detail::deck_triangles(*line, cfg, deck_tris, barrier_tris);
  auto count = [](const std::vector<MeshChunk>& chunks) {
    std::size_t n = 0;
    for (const MeshChunk& ch : chunks)
      n += ch.mesh.triangle_count();
    return n;
  };
  EXPECT_GT(count(out.barrier_chunks), count(detail::chunk_triangles(barrier_tris, cfg.chunk_m)));
  EXPECT_GT(count(out.deck_chunks), count(detail::chunk_triangles(deck_tris, cfg.chunk_m)));
  std::printf("%zu ramps: %zu ramp pillars, %zu elevated samples\n", out.ramps.size(),
              out.pillars.size() - deck_pillars, elevated);
}

TEST(FreewayRun, DeterministicAcrossRunsAndThreadCounts) {
  const std::uint64_t many = hash_output(*build({crossing()}));
  std::uint64_t one = 0;
  {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 1);
    one = hash_output(*build({crossing()}));
  }
  EXPECT_EQ(many, one);
  EXPECT_EQ(many, hash_output(*build({crossing()})));
}

TEST(FreewayRun, RejectsAKinkSharperThanTheDesignSpeed) {
  // A right angle with 200 m legs: the largest fitting arc is 200 m, 90 km/h needs 319 m.
  FreewayCurve c{"kinked", {{100, 150, 16}, {300, 150, 16}, {300, 350, 16}}, 2, 90};
  const Result<Output> r = build({c});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "freeways[0].points[1]");
  EXPECT_NE(r.error().message.find("kinked"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("radius"), std::string::npos) << r.error().message;
  EXPECT_NEAR(min_radius_m(90, Config{}), 318.9, 0.1);
  // The same corner is fine at 50 km/h (98 m).
  c.design_speed_kmh = 50;
  EXPECT_TRUE(detail::build_centre_line(c, 0, city().ground, Config{}).ok());
}

TEST(FreewayRun, RejectsARampThatCannotReachAnArtery) {
  Config cfg;
  cfg.ramp_reach_m = 60;
  const FreewayCurve c{"corner", {{40, 200, 16}, {400, 260, 16}}, 2, 90};
  const Result<Output> r = build({c}, cfg);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "freeways[0]");
  EXPECT_NE(r.error().message.find("ramp cannot reach an artery"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("corner"), std::string::npos);
  // With the default reach it connects.
  EXPECT_TRUE(build({c}).ok()) << build({c}).error().to_string();
}

TEST(FreewayRun, RejectsOverlappingFreewayCurves) {
  const FreewayCurve a{"a", {{100, 200, 16}, {1100, 800, 16}}, 2, 90};
  const FreewayCurve b{"b", {{100, 800, 24}, {1100, 200, 24}}, 2, 90};
  const Result<Output> r = build({a, b});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where.rfind("freeways[0].points[", 0), 0U) << r.error().where;
  EXPECT_NE(r.error().message.find("overlaps freeway 'b'"), std::string::npos) << r.error().message;
  // Meeting at a shared end is allowed.
  const FreewayCurve c{"c", {{1100, 800, 16}, {1150, 300, 16}}, 2, 90};
  const Result<Output> ok = build({a, c});
  EXPECT_TRUE(ok.ok()) << ok.error().to_string();
}

TEST(FreewayRun, RejectsAZeroLengthCurve) {
  const FreewayCurve c{"dot", {{500, 500, 16}, {500, 500, 16}}, 2, 90};
  const Result<Output> r = build({c});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "freeways[0]");
  EXPECT_NE(r.error().message.find("zero-length"), std::string::npos) << r.error().message;
  const FreewayCurve one{"single", {{500, 500, 16}}, 2, 90};
  EXPECT_FALSE(build({one}).ok());
}

TEST(FreewayRun, RejectsADeckTooLowOverARoad) {
  FreewayCurve c = crossing();
  for (Vec3& p : c.points)
    p.z = 5.0;  // underside 3.4 m above the ground
  const Result<Output> r = build({c});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where.rfind("freeways[0].points[", 0), 0U) << r.error().where;
  EXPECT_NE(r.error().message.find("over road edge"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace cityforge::freeway
