// SPDX-License-Identifier: Apache-2.0
// The road stage's surface meshes: one mesh per item, draped by the one road rule (the same
// road_surface_raise as road_surface_z), inputs checked, identical at any thread count.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "cityforge/roads/meshes.hpp"
#include "roads/hand_networks.hpp"

namespace cityforge::roads {
namespace {

using layout::RoadClass;

/// A plane rising east and north, 10 m cells: draped surfaces are exact on it.
terrain::Heightfield sloped_ground() {
  terrain::Heightfield g;
  g.origin = {-200.0, -200.0};
  g.cell_m = 10.0;
  g.nx = 41;
  g.ny = 41;
  g.heights.resize(std::size_t{g.nx} * g.ny);
  for (std::uint32_t j = 0; j < g.ny; ++j) {
    for (std::uint32_t i = 0; i < g.nx; ++i) {
      g.heights[std::size_t{j} * g.nx + i] = static_cast<float>(5.0 + 0.2 * i + 0.1 * j);
    }
  }
  return g;
}

/// A four-way junction of an artery and a local road, one block in its north-east corner.
struct Crossing {
  terrain::Heightfield ground = sloped_ground();
  layout::Output city;
  Output roads;
};

Crossing crossing() {
  Crossing c;
  c.city = test::star({0, 90, 180, 270}, {RoadClass::artery, RoadClass::local});
  layout::Block block;
  block.area.outer = {{30, 30}, {110, 30}, {110, 110}, {30, 110}};
  block.frontage = {0, 1};
  block.target_height_m = 20.0;
  c.city.blocks.push_back(block);
  auto r = run(c.city, c.ground, Config{}, 1);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  if (r.ok()) c.roads = std::move(*r);
  return c;
}

TEST(RoadsSurfaceMeshes, OneMeshPerItem) {
  const Crossing c = crossing();
  auto m = build_surface_meshes(c.city, c.ground, &c.roads, Config{});
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_EQ(m->carriageways.size(), c.city.network.edges.size());
  for (std::size_t i = 0; i < m->carriageways.size(); ++i) {
    EXPECT_EQ(m->carriageways[i].road_class, c.city.network.edges[i].road_class);
    EXPECT_FALSE(m->carriageways[i].mesh.empty()) << "edge " << i;
  }
  ASSERT_EQ(m->junctions.size(), c.roads.intersections.size());
  EXPECT_FALSE(m->junctions[0].mesh.empty());
  EXPECT_EQ(m->junctions[0].road_class, RoadClass::artery);  // Its widest leg.
  EXPECT_EQ(m->sidewalks.size(), c.roads.sidewalks.size());
  // Markings: one mesh per section, its decals one after the other.
  ASSERT_EQ(m->markings.size(), c.roads.sections.size());
  const std::vector<Decal> decals = build_markings(c.city, c.roads, c.ground, Config{});
  ASSERT_FALSE(decals.empty());
  std::size_t k = 0;
  for (std::uint32_t s = 0; s < m->markings.size(); ++s) {
    Mesh painted;
    for (; k < decals.size() && decals[k].section_or_intersection == s; ++k)
      painted.append(decal_mesh(decals[k]));
    EXPECT_EQ(m->markings[s].positions, painted.positions) << "section " << s;
    EXPECT_EQ(m->markings[s].indices, painted.indices) << "section " << s;
  }
  EXPECT_EQ(k, decals.size()) << "decals in section order";
  ASSERT_EQ(m->blocks.size(), 1U);
  EXPECT_FALSE(m->blocks[0].empty());
  // Bricks: 3 classes x 3 lengths, the width of the first edge of each class.
  EXPECT_EQ(m->bricks[0].width_m, c.city.network.edges[0].width_m);
  EXPECT_EQ(m->bricks[7].length_m, Config{}.module_lengths_m[1]);
  EXPECT_FALSE(m->bricks[8].mesh.empty());

  // Without a road stage output: whole-edge ribbons and sidewalk strips per edge, nothing else.
  auto raw = build_surface_meshes(c.city, c.ground, nullptr, Config{});
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->sidewalks.size(), c.city.network.edges.size());
  EXPECT_TRUE(raw->junctions.empty());
  EXPECT_TRUE(raw->markings.empty());
}

// What the exporter does: each item made alone, in any order, is the mesh build_surface_meshes
// puts in its slot, with its class.
TEST(RoadsSurfaceMeshes, AnItemMadeAloneIsItsSlotsMesh) {
  const Crossing c = crossing();
  const Config rules;
  auto all = build_surface_meshes(c.city, c.ground, &c.roads, rules);
  ASSERT_TRUE(all.ok()) << all.error().to_string();
  const SectionMarkings markings(c.city, c.roads, c.ground, rules);
  const SurfaceSource source{.city = &c.city,
                             .ground = &c.ground,
                             .roads = &c.roads,
                             .config = &rules,
                             .markings = &markings};
  ASSERT_TRUE(check_surface_source(source).ok());
  const auto same = [](const Mesh& a, const Mesh& b) {
    return a.positions == b.positions && a.normals == b.normals && a.indices == b.indices;
  };
  ASSERT_EQ(surface_count(source, SurfaceKind::carriageway), all->carriageways.size());
  for (std::size_t i = all->carriageways.size(); i-- > 0;) {
    const ClassMesh m = surface_mesh(source, SurfaceKind::carriageway, i);
    EXPECT_TRUE(same(m.mesh, all->carriageways[i].mesh)) << i;
    EXPECT_EQ(m.road_class, all->carriageways[i].road_class);
  }
  ASSERT_EQ(surface_count(source, SurfaceKind::junction), all->junctions.size());
  for (std::size_t i = all->junctions.size(); i-- > 0;) {
    const ClassMesh m = surface_mesh(source, SurfaceKind::junction, i);
    EXPECT_TRUE(same(m.mesh, all->junctions[i].mesh)) << i;
    EXPECT_EQ(m.road_class, all->junctions[i].road_class);
  }
  const std::pair<SurfaceKind, const std::vector<Mesh>*> plain[] = {
      {SurfaceKind::sidewalk, &all->sidewalks},
      {SurfaceKind::block, &all->blocks},
      {SurfaceKind::marking, &all->markings}};
  for (const auto& [kind, meshes] : plain) {
    ASSERT_EQ(surface_count(source, kind), meshes->size());
    ASSERT_FALSE(meshes->empty());
    for (std::size_t i = meshes->size(); i-- > 0;)
      EXPECT_TRUE(same(surface_mesh(source, kind, i).mesh, (*meshes)[i])) << i;
  }
  const std::array<Brick, kBrickCount> bricks = road_bricks(source);
  for (std::size_t b = 0; b < kBrickCount; ++b) {
    EXPECT_TRUE(same(bricks[b].mesh, all->bricks[b].mesh));
    EXPECT_EQ(bricks[b].width_m, all->bricks[b].width_m);
  }
  // Without a road stage output: sidewalk strips per edge, no junctions or markings.
  const SurfaceSource raw{.city = &c.city, .ground = &c.ground, .roads = nullptr, .config = &rules};
  EXPECT_EQ(surface_count(raw, SurfaceKind::sidewalk), c.city.network.edges.size());
  EXPECT_EQ(surface_count(raw, SurfaceKind::junction), 0U);
  EXPECT_EQ(surface_count(raw, SurfaceKind::marking), 0U);
}

// Markings of some kinds only (the set dressing asks for the stop lines): exactly the decals of
// those kinds that the whole run of the section has, in its order.
TEST(RoadsSurfaceMeshes, MarkingsOfSomeKindsAreTheWholeRunsOfThoseKinds) {
  const Crossing c = crossing();
  const Config rules;  // The markings keep a reference: it outlives them.
  const SectionMarkings markings(c.city, c.roads, c.ground, rules);
  const auto same = [](const Decal& a, const Decal& b) {
    return a.kind == b.kind && a.position.x == b.position.x && a.position.y == b.position.y &&
           a.position.z == b.position.z && a.yaw_rad == b.yaw_rad && a.length_m == b.length_m &&
           a.width_m == b.width_m && a.section_or_intersection == b.section_or_intersection &&
           a.outline.size() == b.outline.size() &&
           std::equal(
               a.outline.begin(), a.outline.end(), b.outline.begin(),
               [](const Vec3& p, const Vec3& q) { return p.x == q.x && p.y == q.y && p.z == q.z; });
  };
  std::size_t stop_lines = 0;
  std::size_t stripes = 0;
  const std::uint32_t sets[] = {
      marking_bit(MarkingKind::stop_line),
      marking_bit(MarkingKind::crosswalk_stripe) | marking_bit(MarkingKind::edge_solid), 0U};
  for (std::uint32_t s = 0; s < markings.sections(); ++s) {
    const std::vector<Decal> all = markings.of(s);
    for (const std::uint32_t kinds : sets) {
      std::vector<Decal> want;
      for (const Decal& d : all) {
        if ((kinds & marking_bit(d.kind)) != 0U) want.push_back(d);
      }
      const std::vector<Decal> got = markings.of(s, kinds);
      ASSERT_EQ(got.size(), want.size()) << "section " << s << ", kinds " << kinds;
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_TRUE(same(got[i], want[i])) << "section " << s << ", decal " << i;
    }
    for (const Decal& d : all) {
      stop_lines += d.kind == MarkingKind::stop_line ? 1 : 0;
      stripes += d.kind == MarkingKind::crosswalk_stripe ? 1 : 0;
    }
  }
  EXPECT_GT(stop_lines, 0U);
  EXPECT_GT(stripes, 0U);
}

TEST(RoadsSurfaceMeshes, TunnelsAreNotDrawn) {
  Crossing c = crossing();
  c.city.network.edges[2].tunnel = true;
  auto m = build_surface_meshes(c.city, c.ground, &c.roads, Config{});
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->carriageways[2].mesh.empty());
  EXPECT_FALSE(m->carriageways[1].mesh.empty());
}

// The meshes and road_surface_z / junction_surface_z drape by one rule: curbs at
// ground + road_surface_raise, the crown crown_m above, skirts skirt_m below the curbs.
TEST(RoadsSurfaceMeshes, SurfacesDrapeByTheOneRoadRule) {
  const Crossing c = crossing();
  const Config config;
  EXPECT_DOUBLE_EQ(road_surface_raise(config, RoadClass::artery), config.road_raise_m + 0.04);
  EXPECT_DOUBLE_EQ(road_surface_raise(config, RoadClass::local), config.road_raise_m);
  auto m = build_surface_meshes(c.city, c.ground, &c.roads, config);
  ASSERT_TRUE(m.ok());
  for (std::size_t e = 0; e < m->carriageways.size(); ++e) {
    const double raise = road_surface_raise(config, c.city.network.edges[e].road_class);
    std::size_t crowned = 0;
    for (const auto& v : m->carriageways[e].mesh.positions) {
      const double above = v[2] - c.ground.sample({v[0], v[1]});
      const bool skirt = std::abs(above - (raise - config.skirt_m)) < 1e-3;
      EXPECT_TRUE(skirt || (above > raise - 1e-3 && above < raise + config.crown_m + 1e-3))
          << "edge " << e << ": " << above << " m above the ground";
      crowned += std::abs(above - (raise + config.crown_m)) < 1e-3 ? 1 : 0;
    }
    EXPECT_GT(crowned, 0U) << "edge " << e;
  }
  const Mesh& junction = m->junctions[0].mesh;
  for (const auto& v : junction.positions) {
    EXPECT_NEAR(v[2], junction_surface_z(c.city, c.roads, c.ground, config, 0, {v[0], v[1]}), 1e-3);
  }
  for (const auto& v : m->blocks[0].positions) {
    EXPECT_NEAR(v[2], c.ground.sample({v[0], v[1]}) + config.block_raise_m, 1e-3);
  }
}

TEST(RoadsSurfaceMeshes, CarriagewaysAreTexturedAlongTheRoadInMetres) {
  // u: metres along the centre line, v: metres to the right of it (skirts continue it
  // outwards); checked on the plane and on a bumpy ground drawn exactly, where the ribbons are
  // cut along the terrain's creases and the cut points take interpolated coordinates.
  const Crossing c = crossing();
  terrain::Heightfield bumpy = c.ground;
  for (std::uint32_t j = 0; j < bumpy.ny; ++j) {
    for (std::uint32_t i = 0; i < bumpy.nx; ++i)
      bumpy.heights[std::size_t{j} * bumpy.nx + i] +=
          static_cast<float>(0.6 * std::sin(0.9 * i) * std::cos(0.7 * j));
  }
  bumpy.mesh_exact = true;
  const Config config;
  for (const terrain::Heightfield* g :
       std::array<const terrain::Heightfield*, 2>{&c.ground, &bumpy}) {
    auto m = build_surface_meshes(c.city, *g, &c.roads, config);
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    for (std::size_t e = 0; e < m->carriageways.size(); ++e) {
      const Mesh& mesh = m->carriageways[e].mesh;
      const Polyline& centre = c.roads.sections[e].centre;
      const double len = polyline_length(centre);
      const double half = 0.5 * c.city.network.edges[e].width_m;
      const Vec2 dir = normalize(centre.back() - centre.front());
      ASSERT_EQ(mesh.uvs.size(), mesh.positions.size()) << "edge " << e;
      for (const auto& uv : mesh.uvs) {
        EXPECT_GE(uv[0], -1e-3) << "edge " << e;
        EXPECT_LE(uv[0], len + 1e-3) << "edge " << e;
        EXPECT_LE(std::abs(uv[1]), half + config.skirt_m + 1e-3) << "edge " << e;
      }
      std::size_t top = 0;
      for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        const auto& pa = mesh.positions[mesh.indices[t]];
        const auto& pb = mesh.positions[mesh.indices[t + 1]];
        const auto& pc = mesh.positions[mesh.indices[t + 2]];
        const Vec3 a{pa[0], pa[1], pa[2]}, b{pb[0], pb[1], pb[2]}, d{pc[0], pc[1], pc[2]};
        const Vec3 n = cross(b - a, d - a);
        if (!(length(n) > 1e-3) || n.z < 0.9 * length(n)) continue;  // the top, not slivers
        ++top;
        const auto& ua = mesh.uvs[mesh.indices[t]];
        const auto& ub = mesh.uvs[mesh.indices[t + 1]];
        const auto& uc = mesh.uvs[mesh.indices[t + 2]];
        // Plan-view Jacobian of (u, v) over (x, y): u along dir, v to its right, 1 m per metre.
        const double ex = b.x - a.x, ey = b.y - a.y, fx = d.x - a.x, fy = d.y - a.y;
        const double det = ex * fy - ey * fx;
        const double du1 = ub[0] - ua[0], du2 = uc[0] - ua[0];
        const double dv1 = ub[1] - ua[1], dv2 = uc[1] - ua[1];
        const Vec2 grad_u{(du1 * fy - du2 * ey) / det, (du2 * ex - du1 * fx) / det};
        const Vec2 grad_v{(dv1 * fy - dv2 * ey) / det, (dv2 * ex - dv1 * fx) / det};
        EXPECT_NEAR(dot(grad_u, dir), 1.0, 0.02) << "edge " << e << " triangle " << t / 3;
        EXPECT_NEAR(dot(grad_v, Vec2{dir.y, -dir.x}), 1.0, 0.02)
            << "edge " << e << " triangle " << t / 3;
      }
      EXPECT_GT(top, 0U) << "edge " << e;
    }
  }
}

TEST(RoadsSurfaceMeshes, RejectsNonFiniteInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Crossing c = crossing();
  {
    layout::Output city = c.city;
    city.network.edges[1].points[0].y = nan;
    auto m = build_surface_meshes(city, c.ground, nullptr, Config{});
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().where, "network.edges[1].points[0]");
  }
  {
    layout::Output city = c.city;
    city.blocks[0].area.outer[1].x = std::numeric_limits<double>::infinity();
    auto m = build_surface_meshes(city, c.ground, nullptr, Config{});
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().where, "blocks[0].area.outer[1]");
  }
  {
    Config config;
    config.block_raise_m = nan;
    EXPECT_FALSE(build_surface_meshes(c.city, c.ground, nullptr, config).ok());
  }
  {
    terrain::Heightfield ground = c.ground;
    ground.heights[17] = std::numeric_limits<float>::quiet_NaN();
    auto m = build_surface_meshes(c.city, ground, nullptr, Config{});
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().where, "terrain.heights[17]");
  }
  EXPECT_FALSE(build_block_volumes(c.city, c.ground, -1.0).ok());
}

TEST(RoadsSurfaceMeshes, BlockVolumesRiseToTheTargetHeightExceptInParks) {
  Crossing c = crossing();
  auto v = build_block_volumes(c.city, c.ground, 3.0);
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->size(), 1U);
  float lo = 1e9f;
  float hi = -1e9f;
  for (const auto& p : (*v)[0].positions) {
    lo = std::min(lo, p[2]);
    hi = std::max(hi, p[2]);
  }
  EXPECT_NEAR(hi - lo, 20.0, 1e-3);
  c.city.blocks[0].zone = layout::ZoneKind::park;
  v = build_block_volumes(c.city, c.ground, 3.0);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE((*v)[0].empty());
}

TEST(RoadsSurfaceMeshes, IdenticalAtAnyThreadCount) {
  const Crossing c = crossing();
  auto a = build_surface_meshes(c.city, c.ground, &c.roads, Config{});
  Result<SurfaceMeshes> b = Error::internal("test", "not run");
  tbb::task_arena one(1);
  one.execute([&] { b = build_surface_meshes(c.city, c.ground, &c.roads, Config{}); });
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(a->carriageways.size(), b->carriageways.size());
  for (std::size_t i = 0; i < a->carriageways.size(); ++i) {
    EXPECT_EQ(a->carriageways[i].mesh.positions, b->carriageways[i].mesh.positions);
    EXPECT_EQ(a->carriageways[i].mesh.indices, b->carriageways[i].mesh.indices);
  }
  ASSERT_EQ(a->sidewalks.size(), b->sidewalks.size());
  for (std::size_t i = 0; i < a->sidewalks.size(); ++i) {
    EXPECT_EQ(a->sidewalks[i].positions, b->sidewalks[i].positions);
    EXPECT_EQ(a->sidewalks[i].normals, b->sidewalks[i].normals);
  }
}

}  // namespace
}  // namespace cityforge::roads
