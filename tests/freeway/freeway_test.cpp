// SPDX-License-Identifier: Apache-2.0
#include "cityforge/freeway/freeway.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "freeway/detail.hpp"

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
    layout::Inputs in;
    in.boundary.outer = {{0, 0}, {1200, 0}, {1250, 700}, {1100, 1100}, {0, 1000}};
    in.arteries.push_back({"east-west", {{10, 480}, {600, 560}, {1230, 520}}});
    in.arteries.push_back({"north-south", {{620, 10}, {560, 500}, {640, 1040}}});
    layout::Zone res;
    res.area.outer = in.boundary.outer;
    in.zones = {res};
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
  // Pillars stand on the terrain and reach the deck underside.
  ASSERT_GT(out.pillars.size(), 20U);
  for (const Pillar& p : out.pillars) {
    EXPECT_NEAR(p.base.z, city().ground.sample(xy(p.base)), 0.01);
    EXPECT_NEAR(p.base.z + p.height_m, deck_top_at(out.decks[0], xy(p.base)) - cfg.deck_thickness_m,
                0.01);
    EXPECT_GT(p.height_m, 5.0);
  }
  // Footprint covers the deck.
  ASSERT_FALSE(out.footprints.empty());
  double area = 0;
  for (const Polygon& f : out.footprints)
    area += polygon_area(f);
  EXPECT_NEAR(area, out.decks[0].length_m * out.decks[0].width_m, 0.02 * area);
  // Lanes: ids, tags, continuity with every successor.
  const auto& old = city().roads.lanes.lanes;
  EXPECT_EQ(out.first_lane_id, old.size());
  auto lane = [&](roads::LaneId id) -> const roads::Lane& {
    return id >= out.first_lane_id ? out.lanes[id - out.first_lane_id] : old[id];
  };
  std::size_t freeway_lanes = 0;
  for (std::size_t i = 0; i < out.lanes.size(); ++i) {
    const roads::Lane& l = out.lanes[i];
    ASSERT_EQ(l.id, out.first_lane_id + i);
    ASSERT_GE(l.points.size(), 2U);
    EXPECT_TRUE((l.tags & roads::kVehicle) != 0U);
    EXPECT_TRUE(((l.tags & roads::kFreeway) != 0U) != ((l.tags & roads::kRamp) != 0U));
    if ((l.tags & roads::kFreeway) != 0U) {
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
