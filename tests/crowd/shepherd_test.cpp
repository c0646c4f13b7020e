// SPDX-License-Identifier: Apache-2.0
// Shepherds: static groups placed on the sidewalks inside a polygon, shepherds.json round trip
// and its errors, the wandering shepherd's closed loops and its pure-function-of-time members.
// The network is a hand-built 3 x 3 grid of blocks, each walled by four sidewalks and four
// corner sidewalks, with crosswalks between neighbouring blocks (as the roads stage builds
// them), and one vehicle lane.
#include "cityforge/crowd/shepherd.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <numbers>
#include <set>

#include "cityforge/core/polygon.hpp"
#include "crowd/detail/state.hpp"
#include "traffic/net_fixture.hpp"

using namespace cityforge;
using namespace cityforge::crowd;
using cityforge::traffic::testing::NetBuilder;
using nlohmann::json;

namespace {

constexpr double kPitch = 80.0;  // Block pitch: 60 m blocks, 20 m roads.
constexpr double kSide = 60.0;
constexpr double kCorner = 3.0;
constexpr int kBlocks = 3;

struct Grid {
  traffic::Network net;
  WalkNetwork walk;
  LaneId vehicle = kNoLane;
  std::vector<LaneId> crosswalks;
};

// Points from a to b every ~10 m.
std::vector<Vec3> line(Vec2 a, Vec2 b) {
  const int n = std::max(1, static_cast<int>(std::ceil(distance(a, b) / 10.0)));
  std::vector<Vec3> p;
  for (int i = 0; i <= n; ++i) {
    const Vec2 q = a + (b - a) * (static_cast<double>(i) / n);
    p.push_back({q.x, q.y, 0.0});
  }
  return p;
}

// A quarter circle of radius kCorner round `centre` from angle a0 to a1 (degrees).
std::vector<Vec3> arc(Vec2 centre, double a0, double a1) {
  std::vector<Vec3> p;
  for (int i = 0; i <= 4; ++i) {
    const double a = (a0 + (a1 - a0) * i / 4.0) * std::numbers::pi / 180.0;
    p.push_back({centre.x + kCorner * std::cos(a), centre.y + kCorner * std::sin(a), 0.0});
  }
  return p;
}

const Grid& grid() {
  static const Grid* g = [] {
    NetBuilder b;
    std::vector<std::pair<LaneId, LaneId>> pairs;  // Linked both ways; ends matched by distance.
    std::vector<LaneId> all;
    auto add = [&](std::vector<Vec3> pts, std::uint32_t tags) {
      const LaneId id = b.add_lane(std::move(pts), 1.4f, tags);
      all.push_back(id);
      return id;
    };
    // 1. Blocks: sides and corners counter-clockwise.
    for (int j = 0; j < kBlocks; ++j) {
      for (int i = 0; i < kBlocks; ++i) {
        const double x0 = i * kPitch;
        const double y0 = j * kPitch;
        const double x1 = x0 + kSide;
        const double y1 = y0 + kSide;
        const double c = kCorner;
        add(line({x0 + c, y0}, {x1 - c, y0}), roads::kSidewalk);
        add(arc({x1 - c, y0 + c}, -90, 0), roads::kSidewalk);
        add(line({x1, y0 + c}, {x1, y1 - c}), roads::kSidewalk);
        add(arc({x1 - c, y1 - c}, 0, 90), roads::kSidewalk);
        add(line({x1 - c, y1}, {x0 + c, y1}), roads::kSidewalk);
        add(arc({x0 + c, y1 - c}, 90, 180), roads::kSidewalk);
        add(line({x0, y1 - c}, {x0, y0 + c}), roads::kSidewalk);
        add(arc({x0 + c, y0 + c}, 180, 270), roads::kSidewalk);
      }
    }
    // 2. Crosswalks between horizontal and vertical neighbours, at the ends of the corners.
    std::vector<LaneId> cross;
    for (int j = 0; j < kBlocks; ++j) {
      for (int i = 0; i < kBlocks; ++i) {
        const double x1 = i * kPitch + kSide;
        const double y1 = j * kPitch + kSide;
        if (i + 1 < kBlocks) {
          cross.push_back(add(line({x1, j * kPitch + kCorner}, {x1 + 20, j * kPitch + kCorner}),
                              roads::kCrosswalk));
        }
        if (j + 1 < kBlocks) {
          cross.push_back(add(line({i * kPitch + kCorner, y1}, {i * kPitch + kCorner, y1 + 20}),
                              roads::kCrosswalk));
        }
      }
    }
    for (const LaneId a : all) {
      for (const LaneId c : all) {
        if (a != c) b.link(a, c);
      }
    }
    // 3. A vehicle lane down the first road.
    const LaneId veh = b.add_straight({70, -10, 0}, {70, 250, 0});
    auto* out = new Grid;
    out->net = b.finish();
    const std::uint32_t n = out->net.lane_count();
    out->net.width_m.assign(n, 3.0f);
    out->net.pedestrian_density.assign(n, 0.5f);
    out->vehicle = veh;
    out->crosswalks = cross;
    out->walk = build_walk_network(out->net);
    return out;
  }();
  return *g;
}

// A rectangle polygon.
std::vector<Vec2> rect(double x0, double y0, double x1, double y1) {
  return {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
}

ShepherdSpec plaza() {
  ShepherdSpec s;
  s.name = "plaza";
  s.polygon = rect(40, -5, 100, 20);  // Two block corners and the crosswalk between them.
  s.count = 50;
  s.behaviour = ShepherdBehaviour::look_around;
  return s;
}

Vec2 pos(const WalkNetwork& w, WalkPoint p, double lateral) {
  const Vec3 v = walk_pose(w, p, lateral).position;
  return {v.x, v.y};
}

}  // namespace

TEST(ShepherdPlace, DeterministicInsideOnSidewalksAndSpaced) {
  const Grid& g = grid();
  PlaceReport rep;
  Result<ShepherdGroup> a = place_shepherds(g.walk, plaza(), 11, {}, &rep);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  Result<ShepherdGroup> b = place_shepherds(g.walk, plaza(), 11);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->members, b->members);
  EXPECT_EQ(rep.wanted, 50U);
  EXPECT_EQ(rep.placed, 50U);
  ASSERT_EQ(a->members.size(), 50U);
  std::vector<Vec2> at;
  std::set<std::uint16_t> variants;
  for (const ShepherdMember& m : a->members) {
    ASSERT_TRUE(g.walk.walkable(m.at.lane));
    EXPECT_FALSE(g.walk.crosswalk(m.at.lane));
    EXPECT_GE(m.at.s_m, 0.0f);
    EXPECT_LE(m.at.s_m, g.net.length_m[m.at.lane]);
    EXPECT_LE(std::fabs(m.lateral_m), lateral_limit(g.walk, m.at.lane));
    EXPECT_LT(m.variant, 8);
    variants.insert(m.variant);
    const Vec2 p = pos(g.walk, m.at, m.lateral_m);
    EXPECT_TRUE(ring_contains(plaza().polygon, p)) << p.x << ", " << p.y;
    at.push_back(p);
  }
  EXPECT_GE(variants.size(), 4U);
  for (std::size_t i = 0; i < at.size(); ++i) {
    for (std::size_t k = i + 1; k < at.size(); ++k) {
      EXPECT_GE(distance(at[i], at[k]), 0.6) << i << " " << k;
    }
  }
  Result<ShepherdGroup> c = place_shepherds(g.walk, plaza(), 12);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(a->members, c->members);
}

TEST(ShepherdPlace, CountCappedByDensityOfWalkableArea) {
  const Grid& g = grid();
  ShepherdSpec s = plaza();
  // The middle of the bottom side of block (0, 0): 40 m of a 3 m sidewalk, 120 m2.
  s.polygon = rect(10, -5, 50, 5);
  s.count = 1000;
  s.density_per_m2 = 0.25;
  PlaceReport rep;
  Result<ShepherdGroup> r = place_shepherds(g.walk, s, 3, {}, &rep);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_NEAR(rep.walkable_area_m2, 120.0, 2.0);
  EXPECT_EQ(rep.wanted, static_cast<std::uint32_t>(std::floor(0.25 * rep.walkable_area_m2)));
  EXPECT_EQ(rep.placed, rep.wanted);
  EXPECT_EQ(r->members.size(), rep.wanted);
  // Without the cap, a full sidewalk: best effort, fewer than asked, spacing still kept.
  s.density_per_m2 = 0;
  ASSERT_TRUE(place_shepherds(g.walk, s, 3, {}, &rep).ok());
  EXPECT_EQ(rep.wanted, 1000U);
  EXPECT_LT(rep.placed, 1000U);
  EXPECT_GT(rep.placed, 100U);
  EXPECT_EQ(rep.tries, 1000U * 40U);
}

TEST(ShepherdPlace, LateralOffsetsStayInsideAPolygonEdgeAlongTheSidewalk) {
  const Grid& g = grid();
  ShepherdSpec s = plaza();
  s.polygon = rect(10, -0.5, 50, 5);  // Cuts the bottom sidewalk of block (0, 0) lengthwise.
  s.count = 40;
  Result<ShepherdGroup> r = place_shepherds(g.walk, s, 8);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->members.size(), 40U);
  for (const ShepherdMember& m : r->members) {
    const Vec2 p = pos(g.walk, m.at, m.lateral_m);
    EXPECT_GT(p.y, -0.5);
    EXPECT_TRUE(ring_contains(s.polygon, p));
  }
}

TEST(ShepherdPlace, NoSidewalkInsideGivesNoMembers) {
  const Grid& g = grid();
  ShepherdSpec s = plaza();
  s.polygon = rect(20, 20, 40, 40);  // Inside block (0, 0): no lane.
  PlaceReport rep;
  Result<ShepherdGroup> r = place_shepherds(g.walk, s, 1, {}, &rep);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->members.empty());
  EXPECT_EQ(rep.walkable_area_m2, 0.0);
}

TEST(ShepherdPlace, RejectsBadSpecs) {
  const Grid& g = grid();
  ShepherdSpec s = plaza();
  s.polygon.resize(2);
  EXPECT_FALSE(place_shepherds(g.walk, s, 1).ok());
  s = plaza();
  s.variant_mix = {0.0, 0.0};
  EXPECT_FALSE(place_shepherds(g.walk, s, 1).ok());
  s.variant_mix = {0.0, 1.0, -1.0};
  EXPECT_FALSE(place_shepherds(g.walk, s, 1).ok());
  s.variant_mix = {0.0, 0.0, 1.0};
  Result<ShepherdGroup> r = place_shepherds(g.walk, s, 1);
  ASSERT_TRUE(r.ok());
  for (const ShepherdMember& m : r->members)
    EXPECT_EQ(m.variant, 2);
}

namespace {

ShepherdsFile sample_file() {
  const Grid& g = grid();
  ShepherdsFile f;
  ShepherdSpec s = plaza();
  s.density_per_m2 = 0.7;
  s.variant_mix = {1.0, 2.5, 0.0, 0.125};
  f.groups.push_back(*place_shepherds(g.walk, s, 5));
  ShepherdSpec t = plaza();
  t.name = "corner";
  t.polygon = rect(150, 150, 170, 170);
  t.count = 7;
  f.groups.push_back(*place_shepherds(g.walk, t, 5));
  f.paths = make_wandering_paths(g.walk, 4, 100, 5);
  f.walkers = make_wandering_members(g.walk, f.paths, 30, 5);
  return f;
}

}  // namespace

TEST(ShepherdsJson, RoundTripIsExact) {
  const Grid& g = grid();
  const ShepherdsFile f = sample_file();
  ASSERT_EQ(f.groups.size(), 2U);
  ASSERT_FALSE(f.groups[0].members.empty());
  ASSERT_FALSE(f.groups[1].members.empty());
  const std::string text = shepherds_json(f);
  Result<ShepherdsFile> back = parse_shepherds_json(text, "shepherds.json", g.walk);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->groups.size(), f.groups.size());
  for (std::size_t i = 0; i < f.groups.size(); ++i) {
    const ShepherdSpec& a = f.groups[i].spec;
    const ShepherdSpec& b = back->groups[i].spec;
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.density_per_m2, b.density_per_m2);
    EXPECT_EQ(a.behaviour, b.behaviour);
    EXPECT_EQ(a.variant_mix, b.variant_mix);
    ASSERT_EQ(a.polygon.size(), b.polygon.size());
    for (std::size_t k = 0; k < a.polygon.size(); ++k) {
      EXPECT_EQ(a.polygon[k].x, b.polygon[k].x);
      EXPECT_EQ(a.polygon[k].y, b.polygon[k].y);
    }
    EXPECT_EQ(f.groups[i].members, back->groups[i].members);
  }
  ASSERT_EQ(back->paths.size(), f.paths.size());
  for (std::size_t i = 0; i < f.paths.size(); ++i) {
    EXPECT_EQ(back->paths[i].steps, f.paths[i].steps);
    EXPECT_EQ(back->paths[i].start_m, f.paths[i].start_m);
  }
  EXPECT_EQ(back->walkers, f.walkers);
  EXPECT_EQ(shepherds_json(*back), text);
}

TEST(ShepherdsJson, HandPlacedMembersSnapToTheNearestSidewalk) {
  const Grid& g = grid();
  // 0.5 m left of the bottom side of block (1, 1), which runs +x at y = 80 from x = 83.
  const json doc = {{"groups",
                     {{{"name", "hand"},
                       {"polygon", {{80, 70}, {140, 70}, {140, 90}}},
                       {"members", {{{"x", 100.0}, {"y", 80.5}, {"variant", 3}}}}}}}};
  Result<ShepherdsFile> f = parse_shepherds_json(doc.dump(), "hand.json", g.walk);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  const ShepherdMember& m = f->groups[0].members[0];
  EXPECT_NEAR(m.at.s_m, 17.0, 1e-4);
  EXPECT_EQ(m.at.dir, 1);
  EXPECT_NEAR(m.lateral_m, 0.5, 1e-5);
  EXPECT_EQ(m.variant, 3);
  const Vec2 p = pos(g.walk, m.at, m.lateral_m);
  EXPECT_NEAR(p.x, 100.0, 1e-4);
  EXPECT_NEAR(p.y, 80.5, 1e-4);
  EXPECT_EQ(f->groups[0].spec.count, 1U);
}

TEST(ShepherdsJson, BadInputsNameTheFileThePlaceAndWhatWasExpected) {
  const Grid& g = grid();
  ASSERT_EQ(g.vehicle, 84U);  // Named in a message below.
  const json good = json::parse(shepherds_json(sample_file()));
  const LaneId crosswalk = g.crosswalks.front();
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    const char* where;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"groups not an array", [](json& j) { j["groups"] = json::object(); },
       "shepherds.json: groups", "expected an array of groups"},
      {"vehicle lane", [&](json& j) { j["groups"][0]["members"][1]["lane"] = g.vehicle; },
       "shepherds.json: groups[0].members[1].lane",
       "expected a sidewalk or crosswalk lane id; lane 84 is a vehicle lane"},
      {"no such lane", [](json& j) { j["groups"][1]["members"][0]["lane"] = 5000; },
       "shepherds.json: groups[1].members[0].lane", "expected a sidewalk or crosswalk lane id"},
      {"s beyond the lane",
       [&](json& j) {
         j["groups"][0]["members"][2]["s_m"] =
             g.net.length_m[j["groups"][0]["members"][2]["lane"].get<LaneId>()] + 0.002;
       },
       "shepherds.json: groups[0].members[2].s_m", "expected a number in [0, "},
      {"missing s", [](json& j) { j["groups"][0]["members"][0].erase("s_m"); },
       "shepherds.json: groups[0].members[0].s_m", "expected field \"s_m\", found nothing"},
      {"missing polygon", [](json& j) { j["groups"][1].erase("polygon"); },
       "shepherds.json: groups[1].polygon", "expected field \"polygon\""},
      {"lane and x", [](json& j) { j["groups"][0]["members"][0]["x"] = 1.0; },
       "shepherds.json: groups[0].members[0].x", "not both"},
      {"unknown key", [](json& j) { j["groups"][0]["members"][0]["speed"] = 1.0; },
       "shepherds.json: groups[0].members[0].speed", "expected one of the keys"},
      {"bad behaviour", [](json& j) { j["groups"][0]["behaviour"] = "dance"; },
       "shepherds.json: groups[0].behaviour", "expected \"idle\" or \"look_around\""},
      {"lateral off the sidewalk", [](json& j) { j["groups"][0]["members"][0]["lateral_m"] = 2.0; },
       "shepherds.json: groups[0].members[0].lateral_m", "expected a number in [-1.201"},
      {"path not closed", [](json& j) { j["wandering"]["paths"][0]["steps"].erase(3); },
       "shepherds.json: wandering.paths[0].steps[3]", "the path must be a closed chain"},
      {"path on a crosswalk",
       [&](json& j) {
         j["wandering"]["paths"][1]["steps"][0] = {crosswalk, 1};
       },
       "shepherds.json: wandering.paths[1].steps[0][0]", "is a crosswalk"},
      {"path length changed", [](json& j) { j["wandering"]["paths"][0]["length_m"] = 1.0; },
       "shepherds.json: wandering.paths[0].length_m", "expected a number in ["},
      {"walker on no path", [](json& j) { j["wandering"]["members"][4]["path"] = 4; },
       "shepherds.json: wandering.members[4].path", "expected an integer in [0, 3]"},
      {"walker phase beyond the loop",
       [](json& j) { j["wandering"]["members"][0]["phase_m"] = 1e6; },
       "shepherds.json: wandering.members[0].phase_m", "expected a number in [0, "},
      {"walker standing still", [](json& j) { j["wandering"]["members"][0]["speed_mps"] = 0; },
       "shepherds.json: wandering.members[0].speed_mps", "expected a number in (0, 10]"},
  };
  ASSERT_TRUE(parse_shepherds_json(good.dump(), "shepherds.json", g.walk).ok());
  for (const Case& c : cases) {
    json j = good;
    c.edit(j);
    Result<ShepherdsFile> r = parse_shepherds_json(j.dump(), "shepherds.json", g.walk);
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.error().where, c.where) << c.what << ": " << r.error().to_string();
    EXPECT_NE(r.error().message.find(c.expected), std::string::npos)
        << c.what << ": " << r.error().to_string();
  }
  EXPECT_FALSE(parse_shepherds_json("{\"groups\": [", "shepherds.json", g.walk).ok());
}

TEST(Wandering, LoopsAreClosedContinuousAndAvoidCrosswalks) {
  const Grid& g = grid();
  const std::vector<WanderingPath> paths = make_wandering_paths(g.walk, 12, 100, 9);
  ASSERT_EQ(paths.size(), 12U);  // 9 blocks, 18 loops (both ways) of ~230 m.
  for (const WanderingPath& p : paths) {
    ASSERT_FALSE(p.steps.empty());
    ASSERT_EQ(p.start_m.size(), p.steps.size() + 1);
    EXPECT_GE(p.length_m(), 100.0);
    EXPECT_NEAR(p.length_m(), 4 * (kSide - 2 * kCorner) + 2 * std::numbers::pi * kCorner, 0.3);
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
      const WalkStep a = p.steps[k];
      const WalkStep b = p.steps[(k + 1) % p.steps.size()];
      EXPECT_FALSE(g.walk.crosswalk(a.lane));
      const float len = g.net.length_m[a.lane];
      const Vec2 exit = pos(g.walk, {a.lane, a.dir > 0 ? len : 0.0f, a.dir}, 0);
      const Vec2 entry = pos(g.walk, {b.lane, b.dir > 0 ? 0.0f : g.net.length_m[b.lane], b.dir}, 0);
      EXPECT_LT(distance(exit, entry), 0.05) << "step " << k;
      EXPECT_DOUBLE_EQ(p.start_m[k + 1] - p.start_m[k], len);
    }
  }
  // Fewer loops than asked when fewer exist; a too-long minimum falls back to all loops.
  EXPECT_EQ(make_wandering_paths(g.walk, 100, 100, 9).size(), 18U);
  EXPECT_EQ(make_wandering_paths(g.walk, 100, 5000, 9).size(), 18U);
}

TEST(Wandering, SeedsChooseDifferentPathsSameSeedSamePaths) {
  const Grid& g = grid();
  auto steps = [&](Seed s) {
    std::vector<std::vector<WalkStep>> out;
    for (const WanderingPath& p : make_wandering_paths(g.walk, 5, 100, s))
      out.push_back(p.steps);
    return out;
  };
  EXPECT_EQ(steps(1), steps(1));
  EXPECT_NE(steps(1), steps(2));
  const auto paths = make_wandering_paths(g.walk, 5, 100, 1);
  EXPECT_EQ(make_wandering_members(g.walk, paths, 40, 1),
            make_wandering_members(g.walk, paths, 40, 1));
  EXPECT_NE(make_wandering_members(g.walk, paths, 40, 1),
            make_wandering_members(g.walk, paths, 40, 2));
}

TEST(Wandering, DirectAndIncrementalPosesAreBitIdentical) {
  const Grid& g = grid();
  const auto paths = make_wandering_paths(g.walk, 6, 100, 4);
  const auto members = make_wandering_members(g.walk, paths, 100, 4);
  ASSERT_EQ(members.size(), 100U);
  std::vector<std::uint32_t> hint(members.size(), 0);
  std::vector<Vec2> last(members.size());
  constexpr double kDt = 1.0 / 30.0;
  std::uint64_t lane_changes = 0;
  std::uint64_t mismatches = 0;
  double max_jump = 0;
  for (int tick = 0; tick <= 10000; ++tick) {
    const double t = tick * kDt;
    for (std::size_t i = 0; i < members.size(); ++i) {
      const WanderingMember& m = members[i];
      const WanderingPath& path = paths[m.path];
      const WanderingPose d = member_at(g.walk, path, m, t);
      const WanderingPose inc = advance_member(g.walk, path, m, t, hint[i]);
      const bool same = d.at.lane == inc.at.lane && d.at.dir == inc.at.dir &&
                        std::memcmp(&d.at.s_m, &inc.at.s_m, sizeof(float)) == 0 &&
                        std::memcmp(&d.lateral_m, &inc.lateral_m, sizeof(float)) == 0 &&
                        d.step == inc.step;
      mismatches += same ? 0U : 1U;
      lane_changes += inc.step != hint[i] ? 1U : 0U;
      hint[i] = inc.step;
      ASSERT_LE(d.at.s_m, g.net.length_m[d.at.lane]);
      // The centre line: lane_pose offsets along each segment's normal, so a lateral offset
      // jumps at polyline vertices by the geometry, not by the time function.
      const Vec2 p = pos(g.walk, d.at, 0.0);
      if (tick > 0) max_jump = std::max(max_jump, distance(p, last[i]) / (m.speed_mps * kDt));
      last[i] = p;
    }
  }
  EXPECT_EQ(mismatches, 0U);
  EXPECT_GT(lane_changes, 1000U);  // Each member passes several lanes and wraps round its loop.
  // Continuous across lane ends and wraps: no step longer than speed x dt.
  EXPECT_LT(max_jump, 1.0 + 1e-3);
  // A hint from anywhere gives the same answer.
  const WanderingMember& m = members[7];
  for (std::uint32_t h = 0; h < paths[m.path].steps.size() + 3; ++h) {
    const WanderingPose a = advance_member(g.walk, paths[m.path], m, 123.456, h);
    const WanderingPose b = member_at(g.walk, paths[m.path], m, 123.456);
    EXPECT_EQ(a.step, b.step);
    EXPECT_EQ(a.at.s_m, b.at.s_m);
  }
}

TEST(Wandering, MembersAreValidAndSpreadOverThePaths) {
  const Grid& g = grid();
  const auto paths = make_wandering_paths(g.walk, 6, 100, 4);
  const auto members = make_wandering_members(g.walk, paths, 600, 4, 8);
  std::vector<int> per_path(paths.size(), 0);
  for (const WanderingMember& m : members) {
    ASSERT_LT(m.path, paths.size());
    ++per_path[m.path];
    EXPECT_GE(m.phase_m, 0.0);
    EXPECT_LT(m.phase_m, paths[m.path].length_m());
    EXPECT_GE(m.speed_mps, 1.1f);
    EXPECT_LE(m.speed_mps, 1.6f);
    EXPECT_LE(std::fabs(m.lateral_m), 0.8f * 1.2f + 1e-6f);
    EXPECT_LT(m.variant, 8);
  }
  for (int n : per_path)
    EXPECT_GT(n, 50);  // Equal lengths: ~100 each.
}

// The walk network's clear strips take every offset of a sample from one FramesAcross: the
// same points, headings and heights as frame_at, bit for bit, on straight sides and corner arcs,
// at the lane ends and beyond them, at offsets either side and at both zeros.
TEST(WalkFrames, FramesAcrossAreFrameAtBitForBit) {
  const Grid& g = grid();
  std::size_t checked = 0;
  std::size_t moved = 0;
  for (LaneId l = 0; l + 1 < g.net.point_begin.size(); ++l) {
    if (g.net.point_begin[l + 1] - g.net.point_begin[l] < 2) continue;
    const float len = g.net.length_m[l];
    for (float s = -0.5f; s <= len + 0.5f; s += 0.37f) {
      const FramesAcross across(g.net, l, s);
      for (const float lat : {0.0f, -0.0f, 0.05f, -0.65f, 1.2f, -2.0f}) {
        const Frame a = across.at(lat);
        const Frame b = frame_at(g.net, l, s, lat);
        ASSERT_EQ(std::memcmp(&a.p, &b.p, sizeof a.p), 0)
            << "lane " << l << " s " << s << " lateral " << lat;
        ASSERT_EQ(std::memcmp(&a.t, &b.t, sizeof a.t), 0) << "lane " << l << " s " << s;
        ASSERT_EQ(std::memcmp(&a.z, &b.z, sizeof a.z), 0) << "lane " << l << " s " << s;
        moved += distance(a.p, across.at(0).p) > 0.04 ? 1 : 0;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 5000U);
  EXPECT_GT(moved, checked / 2);  // The offsets do move the points.
}
