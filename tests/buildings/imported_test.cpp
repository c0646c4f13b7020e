// SPDX-License-Identifier: Apache-2.0
// Imported buildings: pitched roofs on rectangle, L, U and T footprints, volumes with
// min_height, and plinths on sloped ground.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "buildings/detail/gen_internal.hpp"
#include "cityforge/buildings/buildings.hpp"

namespace cityforge::buildings {
namespace {

using lots::RoofShape;

Polygon poly(Ring r) {
  Polygon p;
  p.outer = std::move(r);
  return polygon_canonical(p);
}

struct Footprint {
  const char* name;
  Polygon poly;
};

std::vector<Footprint> footprints() {
  return {
      {"rectangle", poly({{0, 0}, {20, 0}, {20, 10}, {0, 10}})},
      {"l_shape", poly({{0, 0}, {20, 0}, {20, 8}, {8, 8}, {8, 18}, {0, 18}})},
      {"u_shape", poly({{0, 0}, {30, 0}, {30, 20}, {22, 20}, {22, 8}, {8, 8}, {8, 24}, {0, 24}})},
      {"t_shape",
       poly({{10, 0}, {20, 0}, {20, 15}, {30, 15}, {30, 20}, {0, 20}, {0, 15}, {10, 15}})},
      {"courtyard",
       Polygon{{{0, 0}, {30, 0}, {30, 30}, {0, 30}}, {{{10, 10}, {10, 20}, {20, 20}, {20, 10}}}}},
  };
}

double projected_area(const Mesh& m) {
  double a = 0.0;
  for (std::size_t i = 0; i + 2 < m.indices.size(); i += 3) {
    const auto& p = m.positions[m.indices[i]];
    const auto& q = m.positions[m.indices[i + 1]];
    const auto& r = m.positions[m.indices[i + 2]];
    a += 0.5 * ((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  }
  return a;
}

bool on_outline(const Polygon& p, Vec2 v) {
  auto ring_hit = [&](const Ring& r) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      const Vec2 a = r[i];
      const Vec2 d = r[(i + 1) % r.size()] - a;
      const double t = std::clamp(dot(v - a, d) / dot(d, d), 0.0, 1.0);
      if (distance(v, a + d * t) < 1e-3) return true;
    }
    return false;
  };
  if (ring_hit(p.outer)) return true;
  for (const Ring& h : p.holes) {
    if (ring_hit(h)) return true;
  }
  return false;
}

TEST(ImportedRoofs, EveryShapeOnEveryFootprint) {
  constexpr double kTop = 10.0;
  constexpr double kRoof = 4.0;
  for (const Footprint& fp : footprints()) {
    for (std::size_t s = 1; s < lots::kRoofShapeCount; ++s) {
      const auto shape = static_cast<RoofShape>(s);
      SCOPED_TRACE(std::string(fp.name) + " " + lots::to_string(shape));
      Volume v;
      v.footprint = fp.poly;
      v.z1_m = kTop;
      v.roof = shape;
      v.roof_height_m = kRoof;
      v.roof_direction_rad = std::numeric_limits<double>::quiet_NaN();
      std::array<Mesh, kMaterialCount> parts;
      ASSERT_TRUE(detail::build_shaped_roof(v, parts));
      const Mesh& roof = parts[static_cast<std::size_t>(Material::roof)];
      const Mesh& wall = parts[static_cast<std::size_t>(Material::wall)];
      ASSERT_GT(roof.triangle_count(), 0U);
      // Up-facing, between the wall top and the roof's top, reaching the top.
      double zmax = -1e9;
      for (std::size_t i = 0; i < roof.positions.size(); ++i) {
        EXPECT_GT(roof.normals[i][2], 0.0F);
        EXPECT_GE(roof.positions[i][2], kTop - 1e-3);
        EXPECT_LE(roof.positions[i][2], kTop + kRoof + 1e-3);
        zmax = std::max(zmax, double{roof.positions[i][2]});
      }
      EXPECT_NEAR(zmax, kTop + kRoof, 1e-3);
      // The roof covers the footprint once (counter-clockwise triangles from above).
      EXPECT_NEAR(projected_area(roof), polygon_area(fp.poly), 0.01 * polygon_area(fp.poly));
      // Eaves: every footprint corner is a roof vertex or a gable wall's foot at the wall top.
      auto has_vertex = [&](const Mesh& m, Vec2 p) {
        for (const auto& q : m.positions) {
          if (std::abs(q[0] - p.x) < 1e-3 && std::abs(q[1] - p.y) < 1e-3 &&
              std::abs(q[2] - kTop) < 1e-3) {
            return true;
          }
        }
        return false;
      };
      for (const Vec2& c : fp.poly.outer) {
        EXPECT_TRUE(has_vertex(roof, c) || has_vertex(wall, c)) << c.x << "," << c.y;
      }
      // Hipped-like roofs only touch the wall top on the outline (no sagging inside).
      if (shape == RoofShape::hipped || shape == RoofShape::pyramidal || shape == RoofShape::dome) {
        EXPECT_EQ(wall.triangle_count(), 0U);
        for (const auto& q : roof.positions) {
          if (std::abs(q[2] - kTop) < 1e-4) {
            EXPECT_TRUE(on_outline(fp.poly, {q[0], q[1]})) << q[0] << "," << q[1];
          }
        }
      }
      // Gables: the walls up to the roof face outwards, from the wall top up.
      if (shape == RoofShape::gabled || shape == RoofShape::skillion) {
        EXPECT_GT(wall.triangle_count(), 0U);
        for (std::size_t i = 0; i < wall.positions.size(); ++i) {
          EXPECT_NEAR(wall.normals[i][2], 0.0F, 1e-4F);
          EXPECT_GE(wall.positions[i][2], kTop - 1e-3);
          EXPECT_LE(wall.positions[i][2], kTop + kRoof + 1e-3);
        }
      }
    }
  }
}

TEST(ImportedRoofs, HippedLShapeHasAValley) {
  // Equal 8 m wings: the valley runs from the inner corner (8, 8) to (4, 4) at half the width.
  const Polygon l = poly({{0, 0}, {20, 0}, {20, 8}, {8, 8}, {8, 18}, {0, 18}});
  std::vector<detail::SkeletonQuad> quads;
  ASSERT_TRUE(detail::skeleton_quads(l, &quads));
  double tmax = 0.0;
  bool valley_end = false;
  for (const auto& q : quads) {
    tmax = std::max(tmax, q.t1);
    for (Vec2 p : {q.a1, q.b1}) {
      valley_end = valley_end || (distance(p, {4, 4}) < 1e-6 && std::abs(q.t1 - 4.0) < 1e-6);
    }
  }
  EXPECT_NEAR(tmax, 4.0, 1e-9);
  EXPECT_TRUE(valley_end);
}

TEST(ImportedRoofs, GabledLShapeHasARidgePerWing) {
  Volume v;
  v.footprint = poly({{0, 0}, {20, 0}, {20, 8}, {8, 8}, {8, 18}, {0, 18}});
  v.z1_m = 6.0;
  v.roof = RoofShape::gabled;
  v.roof_height_m = 3.0;
  v.roof_direction_rad = std::numeric_limits<double>::quiet_NaN();
  std::array<Mesh, kMaterialCount> parts;
  ASSERT_TRUE(detail::build_shaped_roof(v, parts));
  // Both wings end in a gable: their ridges reach the end walls at full height.
  auto has = [&](const Mesh& m, double x, double y, double z) {
    for (const auto& p : m.positions) {
      if (std::abs(p[0] - x) < 1e-4 && std::abs(p[1] - y) < 1e-4 && std::abs(p[2] - z) < 1e-4) {
        return true;
      }
    }
    return false;
  };
  const Mesh& roof = parts[static_cast<std::size_t>(Material::roof)];
  const Mesh& wall = parts[static_cast<std::size_t>(Material::wall)];
  EXPECT_TRUE(has(roof, 20.0, 4.0, 9.0));
  EXPECT_TRUE(has(roof, 4.0, 18.0, 9.0));
  EXPECT_TRUE(has(wall, 20.0, 4.0, 9.0));
  EXPECT_TRUE(has(wall, 4.0, 18.0, 9.0));
  EXPECT_EQ(wall.triangle_count(), 2U);  // Two triangular gables.
}

TEST(ImportedRoofs, GabledRidgeFollowsTheDirection) {
  Volume v;
  v.footprint = poly({{0, 0}, {20, 0}, {20, 10}, {0, 10}});
  v.z1_m = 6.0;
  v.roof = RoofShape::gabled;
  v.roof_height_m = 3.0;
  v.roof_direction_rad = std::numeric_limits<double>::quiet_NaN();  // Longest axis: along x.
  std::array<Mesh, kMaterialCount> parts;
  ASSERT_TRUE(detail::build_shaped_roof(v, parts));
  for (const auto& p : parts[static_cast<std::size_t>(Material::roof)].positions) {
    EXPECT_NEAR(p[2], 6.0 + 3.0 * (1.0 - std::abs(p[1] - 5.0) / 5.0), 1e-4);
  }
  // Across: ridge along y.
  v.roof_direction_rad = std::numbers::pi / 2.0;
  std::array<Mesh, kMaterialCount> across;
  ASSERT_TRUE(detail::build_shaped_roof(v, across));
  for (const auto& p : across[static_cast<std::size_t>(Material::roof)].positions) {
    EXPECT_NEAR(p[2], 6.0 + 3.0 * (1.0 - std::abs(p[0] - 10.0) / 10.0), 1e-4);
  }
}

lots::ImportedVolume imported(Polygon fp, double min_h, double h, double roof_h, RoofShape s) {
  lots::ImportedVolume v;
  v.footprint = std::move(fp);
  v.min_height_m = min_h;
  v.height_m = h;
  v.roof_height_m = roof_h;
  v.roof = s;
  v.roof_direction_rad = std::numeric_limits<double>::quiet_NaN();
  return v;
}

lots::Lot church_lot(Vec2 at) {
  lots::Lot lot;
  lot.id = 0;
  lots::Parcel parcel;
  lots::BuildingDNA& dna = parcel.dna;
  auto box = [&](double x0, double y0, double x1, double y1) {
    return poly({at + Vec2{x0, y0}, at + Vec2{x1, y0}, at + Vec2{x1, y1}, at + Vec2{x0, y1}});
  };
  dna.imported.push_back(imported(box(0, 0, 30, 14), 0.0, 16.0, 5.0, RoofShape::gabled));
  dna.imported.push_back(imported(box(30, 2, 40, 12), 0.0, 30.0, 0.0, RoofShape::flat));
  dna.imported.push_back(imported(box(31, 3, 39, 11), 30.0, 42.0, 9.0, RoofShape::pyramidal));
  dna.base_m = 42.0;
  dna.osm_id = 7;
  lot.area = lots::footprint_polygon(dna);
  parcel.area = lot.area;
  parcel.frontage.assign(parcel.area.outer.size(), 1);
  lot.parcels.push_back(std::move(parcel));
  return lot;
}

TEST(ImportedBuildings, PartsBecomeVolumesWithMinHeight) {
  const lots::Lot lot = church_lot({0, 0});
  const std::vector<Volume> vols = building_volumes(lot.parcels[0].dna);
  ASSERT_EQ(vols.size(), 3U);
  EXPECT_DOUBLE_EQ(vols[0].z0_m, 0.0);
  EXPECT_DOUBLE_EQ(vols[0].z1_m, 11.0);  // 16 m less the 5 m roof.
  EXPECT_EQ(vols[0].roof, RoofShape::gabled);
  EXPECT_DOUBLE_EQ(vols[2].z0_m, 30.0);
  EXPECT_DOUBLE_EQ(vols[2].z1_m, 33.0);
  EXPECT_DOUBLE_EQ(vols[2].roof_height_m, 9.0);

  auto lib = builtin_library();
  ASSERT_TRUE(lib.ok());
  auto out = generate_lot(lot, *lib, {}, Config{}, Seed{3});
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  ASSERT_EQ(out->buildings.size(), 1U);
  const Building& b = out->buildings[0];
  EXPECT_NEAR(b.height_m, 33.0, 1e-9);  // Wall tops; the spire's roof rises to 42.
  EXPECT_GT(b.instance_count, 0U);
  EXPECT_GT(out->stats.roof_triangles, 0U);
  double top = 0.0;
  for (const Mesh& m : out->roofs[0]) {
    for (const auto& p : m.positions)
      top = std::max(top, double{p[2]});
  }
  EXPECT_NEAR(top, 42.0, 1e-3);
  // Facades on the tower's part above min_height, none inside the nave where they touch.
  bool upper = false;
  for (std::uint32_t i = b.first_instance; i < b.first_instance + b.instance_count; ++i) {
    const Instance& in = out->instances[i];
    upper = upper || in.position[2] >= 30.0F;
    EXPECT_FALSE(in.position[0] > 30.05F && in.position[0] < 39.95F && in.position[1] > 2.05F &&
                 in.position[1] < 11.95F && in.position[2] < 29.0F)
        << "module inside the tower at " << in.position[0] << "," << in.position[1];
  }
  EXPECT_TRUE(upper);
  EXPECT_GT(out->stats.modules_occluded, 0U);  // The nave's wall against the tower.
}

TEST(ImportedBuildings, PlinthOnSlopedGround) {
  terrain::Heightfield ground;
  ground.origin = {-50, -50};
  ground.cell_m = 10.0;
  ground.nx = 21;
  ground.ny = 21;
  for (std::uint32_t j = 0; j < ground.ny; ++j) {
    for (std::uint32_t i = 0; i < ground.nx; ++i) {
      ground.heights.push_back(static_cast<float>(0.1 * (ground.origin.x + 10.0 * i)));  // 10 %.
    }
  }
  lots::Output lots;
  lots.lots.push_back(church_lot({10, 10}));
  lots::Lot flat = church_lot({10, 60});
  flat.id = 1;
  flat.block = 1;
  lots.lots.push_back(flat);
  auto lib = builtin_library();
  ASSERT_TRUE(lib.ok());
  auto out = run(lots, *lib, {}, ground, Config{}, Seed{3});
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  ASSERT_EQ(out->buildings.size(), 2U);
  for (std::size_t k = 0; k < 2; ++k) {
    const Building& b = out->buildings[k];
    const Polygon fp = lots::footprint_polygon(lots.lots[k].parcels[0].dna);
    double lowest = 1e9;
    for (const Vec2& c : fp.outer)
      lowest = std::min(lowest, ground.sample(c));
    EXPECT_NEAR(b.base_z_m, lowest, 0.5);  // Sits on its lowest corner.
    EXPECT_GT(b.height_m, 0.0);
    const Mesh& trim = out->roofs[k][static_cast<std::size_t>(Material::trim)];
    ASSERT_GT(trim.triangle_count(), 0U);  // A 4 m rise under a 40 m building: a plinth.
    double lo = 1e9;
    double hi = -1e9;
    for (const auto& p : trim.positions) {
      lo = std::min(lo, double{p[2]});
      if (p[2] < b.base_z_m + 1.0) hi = std::max(hi, double{p[2]});
    }
    EXPECT_LT(lo, b.base_z_m);        // Reaches into the ground.
    EXPECT_GT(hi, b.base_z_m + 0.3);  // A visible base.
  }
  // Flat ground: no plinth (the trim is the flat tower roof's parapet only, all up high).
  terrain::Heightfield level = ground;
  std::fill(level.heights.begin(), level.heights.end(), 2.0F);
  auto flat_out = run(lots, *lib, {}, level, Config{}, Seed{3});
  ASSERT_TRUE(flat_out.ok());
  for (const auto& p : flat_out->roofs[0][static_cast<std::size_t>(Material::trim)].positions) {
    EXPECT_GT(p[2], 2.0F + 20.0F);
  }
}

}  // namespace
}  // namespace cityforge::buildings

namespace cityforge::buildings {
namespace {

// The skeleton tiles every footprint of the generator's library (17 shapes, rotated, several
// proportions), plus a chevron with a non-right reflex corner.
TEST(ImportedRoofs, SkeletonTilesTheShapeLibrary) {
  std::vector<Polygon> shapes;
  for (std::size_t s = 0; s < lots::kFootprintShapeCount; ++s) {
    for (double p : {0.3, 0.5, 0.7}) {
      for (auto [w, h] : {std::pair{24.0, 16.0}, std::pair{13.0, 31.0}}) {
        Polygon fp = lots::footprint_outline(static_cast<lots::FootprintShape>(s), w, h, p);
        for (Vec2& v : fp.outer)
          v = rotate(v, 0.3) + Vec2{100.0, -40.0};
        for (Ring& r : fp.holes) {
          for (Vec2& v : r)
            v = rotate(v, 0.3) + Vec2{100.0, -40.0};
        }
        shapes.push_back(std::move(fp));
      }
    }
  }
  shapes.push_back(poly({{0, 0}, {10, 5}, {20, 0}, {20, 10}, {10, 15}, {0, 10}}));
  std::size_t failed = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    std::vector<detail::SkeletonQuad> quads;
    const bool ok = detail::skeleton_quads(shapes[i], &quads);
    double area = 0.0;
    for (const auto& q : quads) {
      area += 0.5 * (cross(q.b0 - q.a0, q.b1 - q.a0) + cross(q.b1 - q.a0, q.a1 - q.a0));
    }
    const double want = polygon_area(shapes[i]);
    if (!ok || std::abs(area - want) > 0.01 * want) {
      ++failed;
      ADD_FAILURE() << "shape " << i << " ("
                    << lots::to_string(
                           static_cast<lots::FootprintShape>(std::min<std::size_t>(i / 6, 16)))
                    << "): ok=" << ok << " area " << area << " want " << want;
    }
  }
  EXPECT_EQ(failed, 0U);
}

}  // namespace
}  // namespace cityforge::buildings
