// SPDX-License-Identifier: Apache-2.0
// Mapped buildings: a hand-made extract (parts, a multipolygon with a hole, repairs, tiny and
// broken outlines); the Manhattan sample is in buildings_city_test.cpp.
#include "cityforge/buildings/buildings.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "cityforge/osm/osm.hpp"
#include "osm/fixture.hpp"

namespace cityforge::osm {
namespace {

using testing::styles;

Polygon box(double x0, double y0, double x1, double y1) {
  Polygon p;
  p.outer = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
  return p;
}

Area area(std::int64_t id, std::vector<Polygon> polys, Tags tags, bool relation = false) {
  Area a;
  a.osm_id = id;
  a.from_relation = relation;
  a.polygons = std::move(polys);
  std::sort(tags.begin(), tags.end());
  a.tags = std::move(tags);
  return a;
}

Extract hand_made() {
  Extract e;
  e.source = "hand-made";
  // 1: a house without heights (drawn). 2: apartments, 20 m, hipped L.
  e.areas.push_back(area(1, {box(0, 0, 10, 8)}, {{"building", "house"}}));
  Polygon l;
  l.outer = {{20, 0}, {40, 0}, {40, 8}, {28, 8}, {28, 18}, {20, 18}};
  e.areas.push_back(area(2, {l},
                         {{"building", "apartments"},
                          {"height", "20 m"},
                          {"roof:shape", "hipped"},
                          {"roof:height", "4"}}));
  // 4: a church outline with three parts: nave, tower, spire on the tower.
  e.areas.push_back(area(4, {box(0, 30, 40, 44)}, {{"building", "church"}, {"height", "40"}}));
  e.areas.push_back(area(5, {box(0, 30, 30, 44)},
                         {{"building:part", "yes"}, {"height", "15"}, {"roof:shape", "gabled"}}));
  e.areas.push_back(area(6, {box(30, 32, 40, 42)}, {{"building:part", "yes"}, {"height", "30"}}));
  e.areas.push_back(area(7, {box(31, 33, 39, 41)},
                         {{"building:part", "yes"},
                          {"min_height", "30"},
                          {"height", "131'"},
                          {"roof:shape", "pyramid"}}));
  // 8: tiny. 9: a bow tie (repaired into two triangles). 10: all points on a line.
  e.areas.push_back(area(8, {box(60, 0, 61, 1)}, {{"building", "shed"}}));
  Polygon bow;
  bow.outer = {{60, 10}, {70, 20}, {70, 10}, {60, 20}};
  e.areas.push_back(area(9, {bow}, {{"building", "yes"}, {"building:levels", "3"}}));
  Polygon line;
  line.outer = {{80, 0}, {90, 0}, {100, 0}};
  e.areas.push_back(area(10, {line}, {{"building", "yes"}}));
  // 11: outside the imported area. 12: a part in no building.
  e.areas.push_back(area(11, {box(500, 500, 510, 510)}, {{"building", "house"}}));
  e.areas.push_back(area(12, {box(200, 0, 205, 5)}, {{"building:part", "yes"}}));
  // Relation 3: a courtyard block with a hole, 4 levels, skillion roof facing south.
  Polygon yard = box(50, 30, 80, 60);
  yard.holes.push_back({{60, 40}, {60, 50}, {70, 50}, {70, 40}});
  e.areas.push_back(area(3, {yard},
                         {{"building", "yes"},
                          {"building:levels", "4"},
                          {"roof:shape", "skillion"},
                          {"roof:direction", "S"}},
                         true));
  return e;
}

Aabb2 hand_area() {
  Aabb2 a;
  a.add({-10, -10});
  a.add({300, 100});
  return a;
}

const lots::Lot* find_lot(const BuildingBuild& b, std::int64_t osm_id) {
  for (const lots::Lot& lot : b.lots.lots) {
    if (lot.parcels.size() == 1 && lot.parcels[0].dna.osm_id == osm_id) return &lot;
  }
  return nullptr;
}

TEST(OsmBuildings, ParseLengths) {
  EXPECT_DOUBLE_EQ(*parse_height_m("12"), 12.0);
  EXPECT_DOUBLE_EQ(*parse_height_m("12 m"), 12.0);
  EXPECT_DOUBLE_EQ(*parse_height_m("12.5m"), 12.5);
  EXPECT_DOUBLE_EQ(*parse_height_m("12,5"), 12.5);
  EXPECT_NEAR(*parse_height_m("40'"), 12.192, 1e-9);
  EXPECT_NEAR(*parse_height_m("40 ft"), 12.192, 1e-9);
  EXPECT_NEAR(*parse_height_m("40'6\""), 12.192 + 0.1524, 1e-9);
  EXPECT_FALSE(parse_height_m("tall").has_value());
  EXPECT_FALSE(parse_height_m("").has_value());
  EXPECT_FALSE(parse_height_m("12 storeys").has_value());
}

TEST(OsmBuildings, HandMadeExtract) {
  const Extract e = hand_made();
  const auto lib = styles();
  auto r = build_buildings(e, hand_area(), layout::Output{}, lib, BuildingConfig{}, Seed{11});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const BuildingCensus& c = r->census;
  EXPECT_EQ(c.building_areas, 7U);  // 1 2 3 4 8 9 10 (11 is outside).
  EXPECT_EQ(c.part_areas, 4U);
  EXPECT_EQ(c.skipped_tiny, 1U);
  EXPECT_EQ(c.skipped_invalid, 1U);
  EXPECT_EQ(c.buildings, c.building_areas - c.skipped_invalid - c.skipped_tiny);
  EXPECT_EQ(c.buildings, r->lots.lots.size());
  EXPECT_EQ(c.parts_used, 3U);
  EXPECT_EQ(c.heights_tagged + c.heights_drawn, c.buildings);
  EXPECT_EQ(c.heights_drawn, 1U);  // The house.
  EXPECT_EQ(r->lots.stats.buildings, c.buildings);
  EXPECT_FALSE(r->warnings.empty());

  std::size_t volumes = 0;
  for (std::size_t i = 0; i < r->lots.lots.size(); ++i) {
    const lots::Lot& lot = r->lots.lots[i];
    EXPECT_EQ(lot.id, i);
    EXPECT_EQ(lot.status, lots::LotStatus::buildable);
    ASSERT_EQ(lot.parcels.size(), 1U);
    const lots::BuildingDNA& dna = lot.parcels[0].dna;
    EXPECT_TRUE(lot.parcels[0].has_building);
    EXPECT_EQ(lot.parcels[0].frontage.size(), lot.parcels[0].area.outer.size());
    ASSERT_FALSE(dna.imported.empty());
    EXPECT_LT(dna.style, lib.styles.size());
    EXPECT_GT(dna.height_m(), 0.0);
    for (const lots::ImportedVolume& v : dna.imported) {
      EXPECT_GT(v.height_m, v.min_height_m);
      EXPECT_LE(v.roof_height_m, v.height_m - v.min_height_m);
      ++volumes;
    }
  }
  std::size_t roofs = 0;
  for (std::size_t n : c.roofs_by_shape)
    roofs += n;
  EXPECT_EQ(roofs, volumes);

  // The church: its parts instead of its outline, bottom-up.
  const lots::Lot* church = find_lot(*r, 4);
  ASSERT_NE(church, nullptr);
  const auto& vols = church->parcels[0].dna.imported;
  ASSERT_EQ(vols.size(), 3U);
  EXPECT_EQ(vols[0].roof, lots::RoofShape::gabled);
  EXPECT_DOUBLE_EQ(vols[0].height_m, 15.0);
  EXPECT_DOUBLE_EQ(vols[2].min_height_m, 30.0);
  EXPECT_NEAR(vols[2].height_m, 131 * 0.3048, 1e-9);
  EXPECT_EQ(vols[2].roof, lots::RoofShape::pyramidal);
  EXPECT_NEAR(church->parcels[0].dna.height_m(), 131 * 0.3048, 1e-9);
  // The relation: negative id, the hole kept, 4 levels, skillion falling south.
  const lots::Lot* yard = find_lot(*r, -3);
  ASSERT_NE(yard, nullptr);
  const auto& yv = yard->parcels[0].dna.imported;
  ASSERT_EQ(yv.size(), 1U);
  EXPECT_EQ(yv[0].footprint.holes.size(), 1U);
  EXPECT_NEAR(polygon_area(yv[0].footprint), 800.0, 1e-6);
  EXPECT_NEAR(yv[0].height_m, 4.0 + 3 * 3.2, 1e-9);
  EXPECT_EQ(yv[0].roof, lots::RoofShape::skillion);
  EXPECT_NEAR(std::sin(yv[0].roof_direction_rad), -1.0, 1e-9);
  // The apartments: tagged height and roof.
  const lots::Lot* apt = find_lot(*r, 2);
  ASSERT_NE(apt, nullptr);
  EXPECT_DOUBLE_EQ(apt->parcels[0].dna.imported[0].height_m, 20.0);
  EXPECT_DOUBLE_EQ(apt->parcels[0].dna.imported[0].roof_height_m, 4.0);
  // The bow tie was repaired into pieces of a single building.
  const lots::Lot* bow = find_lot(*r, 9);
  ASSERT_NE(bow, nullptr);
  EXPECT_EQ(bow->parcels[0].dna.imported.size(), 2U);

  // Through the building generator: every building has a height and a roof.
  auto gen = buildings::run(r->lots, lib, {}, flat_ground(hand_area(), 10.0), buildings::Config{},
                            Seed{11});
  ASSERT_TRUE(gen.ok()) << gen.error().to_string();
  ASSERT_EQ(gen->buildings.size(), c.buildings);
  for (std::size_t i = 0; i < gen->buildings.size(); ++i) {
    EXPECT_GT(gen->buildings[i].height_m, 0.0);
    std::size_t tris = 0;
    for (const Mesh& m : gen->roofs[i])
      tris += m.triangle_count();
    EXPECT_GT(tris, 0U) << "building " << i;
  }
}

TEST(OsmBuildings, Deterministic) {
  const Extract e = hand_made();
  const auto lib = styles();
  auto a = build_buildings(e, hand_area(), layout::Output{}, lib, BuildingConfig{}, Seed{5});
  auto b = build_buildings(e, hand_area(), layout::Output{}, lib, BuildingConfig{}, Seed{5});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->lots.lots.size(), b->lots.lots.size());
  for (std::size_t i = 0; i < a->lots.lots.size(); ++i) {
    const auto& x = a->lots.lots[i].parcels[0].dna;
    const auto& y = b->lots.lots[i].parcels[0].dna;
    EXPECT_EQ(x.osm_id, y.osm_id);
    EXPECT_EQ(x.style, y.style);
    EXPECT_EQ(x.height_m(), y.height_m());
    ASSERT_EQ(x.imported.size(), y.imported.size());
    for (std::size_t k = 0; k < x.imported.size(); ++k) {
      EXPECT_EQ(x.imported[k].footprint.outer, y.imported[k].footprint.outer);
      EXPECT_EQ(x.imported[k].height_m, y.imported[k].height_m);
    }
  }
  EXPECT_EQ(a->warnings, b->warnings);
}

}  // namespace
}  // namespace cityforge::osm
