// SPDX-License-Identifier: Apache-2.0
// Lane graph on hand-made junctions. The geometry (legs, trims, trimmed centre lines) is built
// here by a small helper so these tests do not depend on build_geometry.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "cityforge/roads/roads.hpp"
#include "roads/lane_checks.hpp"

namespace cityforge::roads {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

struct EdgeSpec {
  layout::NodeId from;
  layout::NodeId to;
  layout::RoadClass cls;
};

layout::Output make_city(const std::vector<Vec2>& nodes, const std::vector<EdgeSpec>& edges) {
  const layout::Config lc;
  layout::Output city;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    city.network.nodes.push_back({static_cast<layout::NodeId>(i), nodes[i], {}});
  }
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto& spec = lc.classes[static_cast<std::size_t>(edges[i].cls)];
    layout::RoadEdge e;
    e.id = static_cast<layout::EdgeId>(i);
    e.from = edges[i].from;
    e.to = edges[i].to;
    e.road_class = edges[i].cls;
    e.points = {nodes[e.from], nodes[e.to]};
    e.width_m = spec.width_m;
    e.lanes_per_direction = spec.lanes_per_direction;
    e.sidewalk_width_m = spec.sidewalk_width_m;
    e.speed_limit_kmh = spec.speed_limit_kmh;
    e.length_m = polyline_length(e.points);
    e.traffic_density = 0.1 * static_cast<double>(i % 7);
    e.pedestrian_density = 0.5;
    city.network.edges.push_back(e);
    city.network.nodes[e.from].edges.push_back(e.id);
    city.network.nodes[e.to].edges.push_back(e.id);
  }
  return city;
}

Vec2 leaving(const layout::Output& city, layout::EdgeId e, bool at_start) {
  const auto& p = city.network.edges[e].points;
  return at_start ? normalize(p[1] - p[0]) : normalize(p[p.size() - 2] - p.back());
}

double ccw_angle(Vec2 d) { return std::atan2(d.y, d.x); }

Polyline cut(const Polyline& line, double s0, double s1) {
  Polyline out{polyline_point_at(line, s0)};
  double acc = 0.0;
  for (std::size_t i = 1; i < line.size(); ++i) {
    acc += distance(line[i - 1], line[i]);
    if (acc > s0 && acc < s1) out.push_back(line[i]);
  }
  out.push_back(polyline_point_at(line, s1));
  return out;
}

/// Legs CCW, trims from the widths and angles of the neighbouring legs, trimmed sections.
/// Nodes with 3+ legs get `control_3`/`control_4` (4+ legs); bends and dead ends no surface.
Output make_geometry(layout::Output& city, Control control_3, Control control_4) {
  Output geo;
  for (auto& node : city.network.nodes) {
    Intersection j;
    j.node = node.id;
    for (layout::EdgeId e : node.edges) {
      const auto& edge = city.network.edges[e];
      // A loop edge would appear twice; none in these tests.
      const bool at_start = edge.from == node.id;
      j.legs.push_back({e, at_start, 0.0, leaving(city, e, at_start)});
    }
    std::sort(j.legs.begin(), j.legs.end(), [](const Leg& a, const Leg& b) {
      return ccw_angle(a.direction) < ccw_angle(b.direction);
    });
    node.edges.clear();
    for (const Leg& l : j.legs)
      node.edges.push_back(l.edge);
    const std::size_t n = j.legs.size();
    if (n >= 3) {
      for (std::size_t k = 0; k < n; ++k) {
        double trim = 2.0;
        for (std::size_t m : {(k + 1) % n, (k + n - 1) % n}) {
          const auto& ek = city.network.edges[j.legs[k].edge];
          const auto& em = city.network.edges[j.legs[m].edge];
          const double h =
              std::max(ek.width_m / 2 + ek.sidewalk_width_m, em.width_m / 2 + em.sidewalk_width_m) +
              1.0;
          const double a =
              std::acos(std::clamp(dot(j.legs[k].direction, j.legs[m].direction), -1.0, 1.0));
          trim = std::max(trim, h / std::tan(std::min(a, 3.1) / 2));
        }
        j.legs[k].trim_m = trim;
        j.surface.outer.push_back(node.pos + j.legs[k].direction * trim);
      }
      j.control = n >= 4 ? control_4 : control_3;
    }
    geo.intersections.push_back(std::move(j));
  }
  for (const auto& edge : city.network.edges) {
    Section s;
    s.edge = edge.id;
    for (const Leg& l : geo.intersections[edge.from].legs) {
      if (l.edge == edge.id && l.at_edge_start) s.trim_start_m = l.trim_m;
    }
    for (const Leg& l : geo.intersections[edge.to].legs) {
      if (l.edge == edge.id && !l.at_edge_start) s.trim_end_m = l.trim_m;
    }
    s.centre = cut(edge.points, s.trim_start_m, polyline_length(edge.points) - s.trim_end_m);
    geo.sections.push_back(std::move(s));
  }
  return geo;
}

terrain::Heightfield sloped_ground() {
  terrain::Heightfield g;
  g.origin = {-1000, -1000};
  g.cell_m = 2000;
  g.nx = 2;
  g.ny = 2;
  g.heights = {0.0f, 10.0f, 5.0f, 20.0f};
  return g;
}

/// A junction at the origin with arms of `length` at the given angles, dead ends outside.
layout::Output star(const std::vector<double>& angles_deg,
                    const std::vector<layout::RoadClass>& classes, double length = 160.0) {
  std::vector<Vec2> nodes{{0, 0}};
  std::vector<EdgeSpec> edges;
  for (std::size_t i = 0; i < angles_deg.size(); ++i) {
    const double a = angles_deg[i] * std::numbers::pi / 180.0;
    nodes.push_back({length * std::cos(a), length * std::sin(a)});
    // Alternate directions so both at_edge_start cases are covered.
    if (i % 2 == 0) {
      edges.push_back({0, static_cast<layout::NodeId>(i + 1), classes[i]});
    } else {
      edges.push_back({static_cast<layout::NodeId>(i + 1), 0, classes[i]});
    }
  }
  return make_city(nodes, edges);
}

layout::Output grid(int n, double spacing) {
  std::vector<Vec2> nodes;
  std::vector<EdgeSpec> edges;
  auto id = [&](int i, int j) { return static_cast<layout::NodeId>(j * n + i); };
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i)
      nodes.push_back({i * spacing, j * spacing});
  }
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i + 1 < n; ++i) {
      edges.push_back({id(i, j), id(i + 1, j),
                       j == n / 2 ? layout::RoadClass::main : layout::RoadClass::local});
    }
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j + 1 < n; ++j) {
      edges.push_back({id(i, j + 1), id(i, j),
                       i == n / 2 ? layout::RoadClass::artery : layout::RoadClass::local});
    }
  }
  return make_city(nodes, edges);
}

LaneGraph build(layout::Output& city, Control c3, Control c4, Output* geo_out = nullptr) {
  Output geo = make_geometry(city, c3, c4);
  auto r = build_lane_graph(city, geo, sloped_ground(), Config{});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  if (geo_out != nullptr) *geo_out = geo;
  return r.ok() ? *r : LaneGraph{};
}

using RC = layout::RoadClass;

TEST(LaneGraph, TJunctionSignal) {
  auto city = star({0, 90, 180}, {RC::main, RC::local, RC::main});
  Output geo;
  const LaneGraph g = build(city, Control::signal, Control::signal, &geo);
  check_graph(city, geo, g, "T signal", true);
  const Counts c = count(g);
  // 2 main (2+2 lanes) + 1 local (1+1): 10 section lanes; connectors: from each main leg
  // 2 through + 1 turn, from the stem 1 right + 1 left; 3 dead-end turnarounds (2+2+1).
  EXPECT_EQ(c.vehicle, 10U);
  EXPECT_EQ(c.crosswalks, 3U);
  EXPECT_GT(c.yields, 0U);
}

TEST(LaneGraph, TJunctionStopYieldsMinorLeg) {
  auto city = star({0, 90, 180}, {RC::main, RC::local, RC::main});
  Output geo;
  const LaneGraph g = build(city, Control::stop, Control::stop, &geo);
  check_graph(city, geo, g, "T stop", false);
  for (const Lane& l : g.lanes) {
    if (!(l.tags & kIntersection) || l.intersection != 0) continue;
    const Lane& in = g.lanes[l.predecessors[0]];
    const bool minor =
        city.network.edges[static_cast<std::size_t>(in.section)].road_class == RC::local;
    EXPECT_EQ((l.tags & kYield) != 0U, minor) << l.id;
  }
}

TEST(LaneGraph, FourWayArteriesProtectedLefts) {
  auto city = star({0, 90, 180, 270}, {RC::artery, RC::artery, RC::artery, RC::artery});
  Output geo;
  const LaneGraph g = build(city, Control::signal, Control::signal, &geo);
  check_graph(city, geo, g, "4-way artery", true);
  ASSERT_EQ(g.signals.size(), 1U);
  EXPECT_GE(g.signals[0].phases.size(), 4U);  // Left + through per axis.
  // Protected lefts are green somewhere without yielding.
  bool protected_left = false;
  for (const Phase& ph : g.signals[0].phases) {
    for (LaneId c : ph.green) {
      protected_left |= g.lanes[c].turn == Turn::left && !(g.lanes[c].tags & kYield);
    }
  }
  EXPECT_TRUE(protected_left);
  // Walk only across legs parallel to a green through movement.
  for (const Phase& ph : g.signals[0].phases) {
    bool through = false;
    for (LaneId c : ph.green)
      through |= g.lanes[c].turn == Turn::through;
    if (!through) {
      EXPECT_TRUE(ph.walk.empty());
    }
  }
}

TEST(LaneGraph, FourWayMainLocalPermissiveLefts) {
  auto city = star({0, 90, 180, 270}, {RC::main, RC::local, RC::main, RC::local});
  Output geo;
  const LaneGraph g = build(city, Control::signal, Control::signal, &geo);
  check_graph(city, geo, g, "4-way main/local", true);
  for (const Lane& l : g.lanes) {
    if (l.turn == Turn::left && l.intersection == 0) {
      EXPECT_TRUE(l.tags & kYield) << l.id;
    }
  }
  bool walk = false;
  for (const Phase& ph : g.signals[0].phases)
    walk |= !ph.walk.empty();
  EXPECT_TRUE(walk);
}

TEST(LaneGraph, FiveWay) {
  auto city = star({0, 72, 144, 216, 288}, {RC::main, RC::local, RC::main, RC::local, RC::main});
  Output geo;
  const LaneGraph g = build(city, Control::signal, Control::signal, &geo);
  check_graph(city, geo, g, "5-way", true);
}

TEST(LaneGraph, AcuteTwentyDegrees) {
  auto city = star({0, 20, 180}, {RC::main, RC::local, RC::main}, 200.0);
  for (Control c : {Control::signal, Control::yield, Control::none}) {
    auto copy = city;
    Output geo;
    const LaneGraph g = build(copy, c, c, &geo);
    check_graph(copy, geo, g, std::string("acute ") + to_string(c), c == Control::signal);
  }
}

TEST(LaneGraph, SmallGrid) {
  auto city = grid(4, 120.0);
  Output geo;
  const LaneGraph g = build(city, Control::stop, Control::signal, &geo);
  check_graph(city, geo, g, "grid", true);
  const Counts c = count(g);
  std::printf(
      "grid 4x4: %zu lanes, %zu vehicle, %zu connectors, %zu sidewalk, %zu crosswalk, "
      "%zu yield, %zu signals\n",
      g.lanes.size(), c.vehicle, c.connectors, c.sidewalks, c.crosswalks, c.yields,
      g.signals.size());
  // Corners are 2-leg bends without a surface: lanes join directly, no connectors there.
  for (const Lane& l : g.lanes) {
    if (l.tags & kIntersection) {
      EXPECT_GE(geo.intersections[static_cast<std::size_t>(l.intersection)].legs.size(), 3U);
    }
  }
}

TEST(LaneGraph, Deterministic) {
  auto a = grid(3, 100.0);
  auto b = grid(3, 100.0);
  const LaneGraph ga = build(a, Control::stop, Control::signal);
  const LaneGraph gb = build(b, Control::stop, Control::signal);
  ASSERT_EQ(ga.lanes.size(), gb.lanes.size());
  for (std::size_t i = 0; i < ga.lanes.size(); ++i) {
    EXPECT_EQ(ga.lanes[i].points, gb.lanes[i].points);
    EXPECT_EQ(ga.lanes[i].successors, gb.lanes[i].successors);
    EXPECT_EQ(ga.lanes[i].tags, gb.lanes[i].tags);
  }
  ASSERT_EQ(ga.signals.size(), gb.signals.size());
  for (std::size_t i = 0; i < ga.signals.size(); ++i) {
    ASSERT_EQ(ga.signals[i].phases.size(), gb.signals[i].phases.size());
    for (std::size_t p = 0; p < ga.signals[i].phases.size(); ++p) {
      EXPECT_EQ(ga.signals[i].phases[p].green, gb.signals[i].phases[p].green);
      EXPECT_EQ(ga.signals[i].phases[p].walk, gb.signals[i].phases[p].walk);
    }
  }
}

TEST(LaneGraph, LaneOffsetsAndOrder) {
  auto city = star({0}, {RC::artery}, 100.0);
  Output geo;
  const LaneGraph g = build(city, Control::none, Control::none, &geo);
  // Edge 0 runs east from the node: forward lanes south of the centre line, curb lane outermost.
  const double w = city.network.edges[0].width_m / 6.0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(g.lanes[i].points[0].y, -(2 - i + 0.5) * w, 1e-9);
    EXPECT_EQ(g.lanes[i].lane_index, i);
    EXPECT_TRUE(g.lanes[i].forward);
    EXPECT_NEAR(g.lanes[3 + i].points[0].y, (2 - i + 0.5) * w, 1e-9);
    EXPECT_FALSE(g.lanes[3 + i].forward);
  }
  check_graph(city, geo, g, "dead end", false);
}

TEST(LaneGraph, RejectsMismatchedGeometry) {
  auto city = star({0, 90, 180}, {RC::main, RC::local, RC::main});
  Output geo = make_geometry(city, Control::none, Control::none);
  geo.sections.pop_back();
  const auto r = build_lane_graph(city, geo, sloped_ground(), Config{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("sections"), std::string::npos);
}

}  // namespace
}  // namespace cityforge::roads

namespace cityforge::roads {
namespace {

using namespace test;  // NOLINT(google-build-using-namespace)

TEST(LaneGraph, CrossingChecksCanFail) {
  // All connectors of a 4-way in one phase, nothing yielding: the checks must see conflicts.
  auto city = star({0, 90, 180, 270}, {RC::main, RC::main, RC::main, RC::main});
  LaneGraph g = build(city, Control::signal, Control::signal);
  std::vector<LaneId> all;
  std::vector<LaneId> walks;
  for (Lane& l : g.lanes) {
    l.tags &= ~static_cast<std::uint32_t>(kYield);
    if ((l.tags & kIntersection) && l.intersection == 0) all.push_back(l.id);
    if (l.tags & kCrosswalk) walks.push_back(l.id);
  }
  int crossings = 0;
  int walk_hits = 0;
  for (std::size_t a = 0; a < all.size(); ++a) {
    for (std::size_t b = a + 1; b < all.size(); ++b) {
      crossings += paths_cross(g.lanes[all[a]].points, g.lanes[all[b]].points) ? 1 : 0;
    }
    for (LaneId w : walks) {
      walk_hits += paths_cross(movement_path(g, g.lanes[all[a]]), g.lanes[w].points) ? 1 : 0;
    }
  }
  EXPECT_GT(crossings, 10);
  EXPECT_EQ(walk_hits, 2 * static_cast<int>(all.size()));  // Each path crosses two crosswalks.
}

TEST(LaneGraph, OnBuildGeometry) {
  const std::vector<std::pair<std::string, layout::Output>> cases = {
      {"T", star({0, 90, 180}, {RC::main, RC::local, RC::main})},
      {"4-way", star({0, 90, 180, 270}, {RC::artery, RC::main, RC::artery, RC::main})},
      {"5-way", star({0, 72, 144, 216, 288}, {RC::main, RC::local, RC::main, RC::local, RC::main})},
      {"acute", star({0, 20, 180}, {RC::main, RC::local, RC::main}, 200.0)},
      {"grid", grid(4, 120.0)}};
  for (auto [name, city] : cases) {
    make_geometry(city, Control::none, Control::none);  // Sorts node.edges counter-clockwise.
    auto geo = build_geometry(city, sloped_ground(), Config{});
    ASSERT_TRUE(geo.ok()) << name << ": " << geo.error().to_string();
    auto g = build_lane_graph(city, *geo, sloped_ground(), Config{});
    ASSERT_TRUE(g.ok()) << name << ": " << g.error().to_string();
    bool signals = false;
    for (const Intersection& j : geo->intersections)
      signals |= j.control == Control::signal;
    check_graph(city, *geo, *g, name + " on build_geometry", signals);
    const Counts c = count(*g);
    std::printf(
        "%s: %zu lanes, %zu vehicle, %zu connectors, %zu sidewalk, %zu crosswalk, "
        "%zu yield, %zu signals\n",
        name.c_str(), g->lanes.size(), c.vehicle, c.connectors, c.sidewalks, c.crosswalks, c.yields,
        g->signals.size());
  }
}

}  // namespace
}  // namespace cityforge::roads
