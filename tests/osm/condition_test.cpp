// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cityforge/core/polyline.hpp"
#include "cityforge/osm/osm.hpp"

namespace cityforge::osm {
namespace {

/// Ground: a plane rising grade_x east and grade_y north, plus bumps of `bump_m`.
terrain::Heightfield make_ground(double half_m, double cell_m, double grade_x, double grade_y,
                                 double bump_m) {
  Aabb2 area;
  area.add({-half_m, -half_m});
  area.add({half_m, half_m});
  terrain::Heightfield hf = flat_ground(area, cell_m);
  for (std::uint32_t j = 0; j < hf.ny; ++j) {
    for (std::uint32_t i = 0; i < hf.nx; ++i) {
      const Vec2 p = hf.origin + Vec2{i * cell_m, j * cell_m};
      hf.heights[std::size_t{j} * hf.nx + i] =
          static_cast<float>(100.0 + grade_x * p.x + grade_y * p.y +
                             bump_m * std::sin(p.x / 13.0) * std::cos(p.y / 17.0 + 0.4));
    }
  }
  return hf;
}

/// A network by hand: nodes at `pos`, straight edges (from, to), each `width_m` wide with
/// `sidewalk_m` sidewalks; RoadNode::edges filled (in edge order).
layout::RoadNetwork make_network(const std::vector<Vec2>& pos,
                                 const std::vector<std::pair<int, int>>& ends, double width_m,
                                 double sidewalk_m) {
  layout::RoadNetwork net;
  for (std::size_t n = 0; n < pos.size(); ++n) {
    layout::RoadNode node;
    node.id = static_cast<layout::NodeId>(n);
    node.pos = pos[n];
    net.nodes.push_back(node);
  }
  for (std::size_t e = 0; e < ends.size(); ++e) {
    layout::RoadEdge edge;
    edge.id = static_cast<layout::EdgeId>(e);
    edge.from = static_cast<layout::NodeId>(ends[e].first);
    edge.to = static_cast<layout::NodeId>(ends[e].second);
    edge.points = polyline_resample({pos[ends[e].first], pos[ends[e].second]}, 15.0);
    edge.width_m = width_m;
    edge.sidewalk_width_m = sidewalk_m;
    edge.length_m = polyline_length(edge.points);
    net.nodes[edge.from].edges.push_back(edge.id);
    net.nodes[edge.to].edges.push_back(edge.id);
    net.edges.push_back(edge);
  }
  return net;
}

/// Two roads crossing at node 0 (the origin), neither along an axis.
layout::RoadNetwork crossing_roads() {
  return make_network({{0, 0}, {-180, -25}, {170, 30}, {-110, -150}, {120, 165}},
                      {{1, 0}, {0, 2}, {3, 0}, {0, 4}}, 10.0, 2.0);
}

/// Height of the terrain mesh (two triangles per cell, diagonal (i,j)-(i+1,j+1)) at p.
double mesh_height(const terrain::Heightfield& hf, Vec2 p) {
  const double gx = (p.x - hf.origin.x) / hf.cell_m;
  const double gy = (p.y - hf.origin.y) / hf.cell_m;
  const auto i = std::min(static_cast<std::uint32_t>(gx), hf.nx - 2);
  const auto j = std::min(static_cast<std::uint32_t>(gy), hf.ny - 2);
  const double u = gx - i;
  const double v = gy - j;
  const double h00 = hf.at(i, j), h10 = hf.at(i + 1, j), h01 = hf.at(i, j + 1),
               h11 = hf.at(i + 1, j + 1);
  return u >= v ? h00 + u * (h10 - h00) + v * (h11 - h10) : h00 + v * (h01 - h00) + u * (h11 - h01);
}

TEST(Condition, RoadsAreFlatAcrossGradeLimitedAndMeetAtTheirNode) {
  // 20 % up to the east (steeper than max_grade), 6 % north, 1.5 m bumps; 4 m cells.
  terrain::Heightfield ground = make_ground(220.0, 4.0, 0.20, 0.06, 1.5);
  const terrain::Heightfield natural = ground;
  const layout::RoadNetwork net = crossing_roads();
  ConditionConfig cfg;
  cfg.max_node_shift_m = 20.0;  // let the ends move far enough to reach max_grade
  const ConditionStats stats = condition_terrain(ground, net, cfg);
  EXPECT_GT(stats.samples_changed, 1000u);
  EXPECT_GT(stats.max_cut_m, 0.5);
  EXPECT_GT(stats.max_fill_m, 0.5);

  for (const layout::RoadEdge& e : net.edges) {
    const double len = polyline_length(e.points);
    const double half = 0.5 * e.width_m + e.sidewalk_width_m;
    double prev = 0.0;
    for (double s = 0.0; s <= len; s += 1.0) {
      const Vec2 c = polyline_point_at(e.points, s);
      const Vec2 side = perp(polyline_tangent_at(e.points, s));
      const double hc = ground.sample(c);
      // Where the crossing roads meet at an acute angle their corridors overlap: the nearest
      // road wins there, so flatness across is checked away from the junction.
      if (length(c) < 30.0) {
        prev = hc;
        continue;
      }
      // Flat across the carriageway and sidewalks (left / centre / right).
      EXPECT_NEAR(ground.sample(c + side * half), hc, 0.05) << "edge " << e.id << " s " << s;
      EXPECT_NEAR(ground.sample(c - side * half), hc, 0.05) << "edge " << e.id << " s " << s;
      // The drawn road (bilinear ground) on the terrain mesh.
      EXPECT_NEAR(mesh_height(ground, c), hc, 0.05) << "edge " << e.id << " s " << s;
      EXPECT_NEAR(mesh_height(ground, c + side * half), ground.sample(c + side * half), 0.05);
      // Grade along the road.
      if (s > 0.0) {
        EXPECT_LE(std::abs(hc - prev), cfg.max_grade * 1.0 + 0.01) << e.id << " " << s;
      }
      prev = hc;
    }
  }
  // Both roads agree at (and around) the shared node: a flat junction (its disc is flat; the
  // grade ramps up from 0 beyond it, which the bilinear ground 4 m out already feels).
  const double h0 = ground.sample({0.0, 0.0});
  for (const layout::RoadEdge& e : net.edges) {
    const Vec2 near = e.from == 0 ? polyline_point_at(e.points, 4.0)
                                  : polyline_point_at(e.points, polyline_length(e.points) - 4.0);
    EXPECT_NEAR(ground.sample(near), h0, 0.06) << "edge " << e.id;
  }
  // Far from every road (beyond road + sidewalk + shoulder + cell diagonal + blend) the ground
  // is untouched; samples under the roads moved.
  const double reach = 5.0 + 2.0 + cfg.shoulder_m + cfg.blend_m + 2.0 * ground.cell_m;
  std::size_t far = 0;
  for (std::uint32_t j = 0; j < ground.ny; ++j) {
    for (std::uint32_t i = 0; i < ground.nx; ++i) {
      const Vec2 p = ground.origin + Vec2{i * ground.cell_m, j * ground.cell_m};
      double d = 1e9;
      for (const layout::RoadEdge& e : net.edges)
        d = std::min(d, polyline_distance(e.points, p));
      if (d > reach) {
        ++far;
        EXPECT_EQ(ground.at(i, j), natural.at(i, j)) << i << "," << j;
      }
    }
  }
  EXPECT_GT(far, ground.heights.size() / 2);
}

TEST(Condition, NodesMoveAtMostMaxShiftAndSteepRoadsStayOnTheGround) {
  // 30 % up to the east: with nodes held within 2 m of the ground the east-west road keeps
  // most of its grade, but still lies flat across on the ground under it.
  terrain::Heightfield ground = make_ground(220.0, 4.0, 0.30, 0.0, 0.0);
  const terrain::Heightfield natural = ground;
  const layout::RoadNetwork net = crossing_roads();
  ConditionConfig cfg;
  cfg.max_node_shift_m = 2.0;
  const ConditionStats stats = condition_terrain(ground, net, cfg);
  // Cut and fill stay modest (flat junction disc and cross slope only), unlike with nodes free
  // to move until the grade is met.
  terrain::Heightfield free_ground = natural;
  ConditionConfig free_cfg;
  free_cfg.max_node_shift_m = 100.0;
  const ConditionStats free_stats = condition_terrain(free_ground, net, free_cfg);
  EXPECT_LT(stats.max_cut_m, 8.0);
  EXPECT_LT(stats.max_fill_m, 8.0);
  EXPECT_GT(free_stats.max_fill_m, 2.0 * stats.max_fill_m);
  for (const layout::RoadNode& n : net.nodes)
    EXPECT_NEAR(ground.sample(n.pos), natural.sample(n.pos), 2.0 + 0.3) << "node " << n.id;
  const layout::RoadEdge& e = net.edges[1];  // node 0 -> (170, 30)
  const double len = polyline_length(e.points);
  const Vec2 a = polyline_point_at(e.points, 40.0), b = polyline_point_at(e.points, len - 40.0);
  EXPECT_GT((ground.sample(b) - ground.sample(a)) / distance(a, b), 0.2);
  for (double s = 40.0; s < len - 10.0; s += 3.0) {
    const Vec2 c = polyline_point_at(e.points, s);
    const Vec2 side = perp(polyline_tangent_at(e.points, s)) * 7.0;
    EXPECT_NEAR(ground.sample(c + side), ground.sample(c), 0.05) << s;
    EXPECT_NEAR(ground.sample(c - side), ground.sample(c), 0.05) << s;
  }
}

TEST(Condition, IsDeterministic) {
  const layout::RoadNetwork net = crossing_roads();
  terrain::Heightfield a = make_ground(220.0, 5.0, 0.12, -0.05, 2.0);
  terrain::Heightfield b = a;
  const ConditionStats sa = condition_terrain(a, net);
  const ConditionStats sb = condition_terrain(b, net);
  EXPECT_EQ(a.heights, b.heights);
  EXPECT_EQ(sa.samples_changed, sb.samples_changed);
  EXPECT_EQ(sa.max_cut_m, sb.max_cut_m);
}

TEST(Condition, BridgesAndTunnelsLeaveTheGroundAlone) {
  layout::RoadNetwork net =
      make_network({{-150, -20}, {150, 40}, {-100, 150}, {90, -160}}, {{0, 1}, {2, 3}}, 12.0, 2.0);
  net.edges[0].bridge = true;
  net.edges[0].layer = 1;
  net.edges[1].tunnel = true;
  net.edges[1].layer = -1;
  terrain::Heightfield ground = make_ground(220.0, 5.0, 0.1, 0.05, 3.0);
  const terrain::Heightfield natural = ground;
  const ConditionStats stats = condition_terrain(ground, net);
  EXPECT_EQ(stats.samples_changed, 0u);
  EXPECT_EQ(ground.heights, natural.heights);
}

TEST(Condition, RoadNarrowerThanACellDrapesOnTheMesh) {
  // 30 m cells (SRTM-like), a 4 m lane without sidewalks crossing them diagonally over bumpy
  // ground: the drawn road (ground.sample + a small raise) stays on the terrain mesh.
  terrain::Heightfield ground = make_ground(400.0, 30.0, 0.05, 0.03, 4.0);
  const layout::RoadNetwork net =
      make_network({{-310, -260}, {20, 15}, {330, 290}}, {{0, 1}, {1, 2}}, 4.0, 0.0);
  condition_terrain(ground, net);
  double worst = 0.0;
  for (const layout::RoadEdge& e : net.edges) {
    const double len = polyline_length(e.points);
    for (double s = 0.0; s <= len; s += 0.5) {
      const Vec2 c = polyline_point_at(e.points, s);
      const Vec2 side = perp(polyline_tangent_at(e.points, s)) * 2.0;
      for (Vec2 p : {c, c + side, c - side})
        worst = std::max(worst, std::abs(mesh_height(ground, p) - ground.sample(p)));
    }
  }
  EXPECT_LT(worst, 0.2);
}

TEST(Condition, EmptyNetworkOrGroundIsANoOp) {
  terrain::Heightfield ground = make_ground(50.0, 5.0, 0.1, 0.0, 1.0);
  const terrain::Heightfield before = ground;
  EXPECT_EQ(condition_terrain(ground, layout::RoadNetwork{}).samples_changed, 0u);
  EXPECT_EQ(ground.heights, before.heights);
}

}  // namespace
}  // namespace cityforge::osm
