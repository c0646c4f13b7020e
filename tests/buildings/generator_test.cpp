// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "buildings/detail/gen_internal.hpp"
#include "cityforge/buildings/buildings.hpp"

namespace cityforge::buildings {
namespace {

enum Mod : std::uint32_t { kW, kN, kD, kC, kP, kS, kG, kF, kK, kModCount };

ModuleDef mod(const char* key, double w, std::uint32_t tags, double h = 0.0) {
  ModuleDef m;
  m.key = key;
  m.id = std::string("test.") + key;
  m.width_m = w;
  m.height_m = h;
  m.tags = tags;
  return m;
}

Grammar grammar(const std::string& text, const Style& s) {
  std::vector<std::string> keys;
  for (const ModuleDef& m : s.modules) {
    keys.push_back(m.key);
  }
  Result<Grammar> g = parse_grammar(text, "test", keys);
  EXPECT_TRUE(g.ok()) << text << ": " << (g.ok() ? "" : g.error().to_string());
  return g.ok() ? g.value() : Grammar{};
}

// Wall W, window N, door D, corner C, cap P, split S, sign G, fire escape F, concave K.
Style test_style(const std::string& ground = "|W|(N)|*W|", bool forced_door = true) {
  Style s;
  s.name = "test";
  s.modules = {mod("W", 1.0, kTagWall),
               mod("N", 1.5, kTagWindow),
               mod("D", 1.2, kTagEntrance),
               mod("C", 0.4, kTagCorner),
               mod("P", 0.3, kTagCornerCap),
               mod("S", 0.2, kTagCorner),
               mod("G", 1.0, kTagSignage | kTagProp, 1.0),
               mod("F", 2.0, kTagFireEscape),
               mod("K", 0.3, kTagCorner)};
  s.ground.height_m = 4.0;
  s.typical.height_m = 3.0;
  s.top.height_m = 3.0;
  s.ground.grammars = {grammar(ground, s)};
  s.typical.grammars = {grammar("|W|(N)|*W|", s), grammar("|*W|", s)};
  s.top.grammars = {grammar("|(NW)|*W|", s), grammar("|*W|", s)};
  s.corner_convex = kC;
  s.corner_concave = kK;
  s.corner_split = kS;
  s.entrance = forced_door ? static_cast<std::int32_t>(kD) : -1;
  s.fire_escape = kF;
  s.brands = {Brand{"acme", kG}, Brand{"bolt", kG}};
  return s;
}

StyleLibrary library_of(const Style& s) {
  StyleLibrary lib;
  lib.styles.push_back(s);
  lib.first_module.push_back(0);
  return lib;
}

lots::BuildingDNA dna(lots::FootprintShape shape, double sx, double sy, Vec2 centre, double base,
                      double shaft = 0.0, double crown = 0.0,
                      lots::Massing massing = lots::Massing::plain, std::uint32_t steps = 0,
                      double setback = 0.0, double angle = 0.0) {
  lots::BuildingDNA d;
  d.shape = shape;
  d.size_x_m = sx;
  d.size_y_m = sy;
  d.centre = centre;
  d.angle_rad = angle;
  d.base_m = base;
  d.shaft_m = shaft;
  d.crown_m = crown;
  d.massing = massing;
  d.setback_steps = steps;
  d.setback_m = setback;
  return d;
}

Polygon box(double x0, double y0, double x1, double y1) {
  Polygon p;
  p.outer = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
  return p;
}

// A parcel exactly around the DNA's box (angle 0) with frontage on its south edge.
lots::Parcel parcel_for(const lots::BuildingDNA& d, bool frontage = true) {
  lots::Parcel p;
  p.area = box(d.centre.x - d.size_x_m / 2, d.centre.y - d.size_y_m / 2,
               d.centre.x + d.size_x_m / 2, d.centre.y + d.size_y_m / 2);
  p.frontage = {static_cast<std::uint8_t>(frontage ? 1 : 0), 0, 0, 0};
  p.dna = d;
  return p;
}

lots::Lot lot_of(std::uint32_t id, std::vector<lots::Parcel> parcels) {
  lots::Lot lot;
  lot.id = id;
  lot.parcels = std::move(parcels);
  return lot;
}

Output generate(const lots::Lot& lot, const StyleLibrary& lib,
                const std::vector<TagVolume>& tags = {}) {
  Config cfg;
  cfg.keep_facade_spans = true;
  Result<Output> r = generate_lot(lot, lib, tags, cfg, 7);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : Output{};
}

// Every facade covered from 0 to its length within 1 cm, sorted, without overlap.
void expect_covered(const Output& out, const std::string& what) {
  for (const FacadeSpan& s : out.spans) {
    ASSERT_FALSE(s.spans.empty()) << what << " edge " << s.edge << " floor " << s.floor;
    EXPECT_NEAR(s.spans.front()[0], 0.0, 0.01) << what;
    EXPECT_NEAR(s.spans.back()[1], s.length_m, 0.01) << what;
    for (std::size_t i = 0; i < s.spans.size(); ++i) {
      EXPECT_LE(s.spans[i][0], s.spans[i][1] + 1e-9) << what;
      if (i > 0) {
        EXPECT_NEAR(s.spans[i][0], s.spans[i - 1][1], 0.01) << what;
        EXPECT_GE(s.spans[i][0], s.spans[i - 1][1] - 1e-6) << what << " overlap";
      }
    }
  }
}

double mesh_area(const Mesh& m) {
  double a = 0.0;
  for (std::size_t i = 0; i < m.indices.size(); i += 3) {
    const auto& p = m.positions[m.indices[i]];
    const auto& q = m.positions[m.indices[i + 1]];
    const auto& r = m.positions[m.indices[i + 2]];
    a += 0.5 * ((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  }
  return a;
}

std::vector<lots::BuildingDNA> many_dnas() {
  std::vector<lots::BuildingDNA> out;
  const lots::Massing massings[] = {lots::Massing::plain, lots::Massing::staggered,
                                    lots::Massing::cubified};
  int i = 0;
  for (std::size_t s = 0; s < lots::kFootprintShapeCount; ++s) {
    for (double size : {14.0, 23.0, 37.0}) {
      for (lots::Massing m : massings) {
        const double sy = size * (0.8 + 0.1 * (i % 4));
        lots::BuildingDNA d = dna(static_cast<lots::FootprintShape>(s), size, sy, {100.0 * i, 7.0},
                                  4.0 + 3.0 * (i % 3), m == lots::Massing::plain ? 9.0 : 30.0, 6.0,
                                  m, 1 + static_cast<std::uint32_t>(i % 3), 2.0, 0.3 * (i % 5));
        d.shape_param = 0.3 + 0.1 * (i % 4);
        out.push_back(d);
        ++i;
      }
    }
  }
  return out;
}

TEST(BuildingVolumes, StackedInsideEachOther) {
  for (const lots::BuildingDNA& d : many_dnas()) {
    const std::vector<Volume> vs = building_volumes(d);
    ASSERT_FALSE(vs.empty());
    EXPECT_NEAR(vs.back().z1_m, d.height_m(), 1e-9);
    EXPECT_EQ(vs.front().z0_m, 0.0);
    for (std::size_t k = 1; k < vs.size(); ++k) {
      EXPECT_NEAR(vs[k].z0_m, vs[k - 1].z1_m, 1e-9);
      double outside = 0.0;
      for (const Polygon& p : polygon_difference(vs[k].footprint, {vs[k - 1].footprint})) {
        outside += polygon_area(p);
      }
      EXPECT_LT(outside, 1e-3) << lots::to_string(d.shape) << " volume " << k;
      EXPECT_GT(ring_signed_area(vs[k].footprint.outer), 0.0);
    }
  }
}

TEST(BuildingVolumes, StaggeredAndCubifiedTiers) {
  const auto st = building_volumes(
      dna(lots::FootprintShape::rectangle, 30, 30, {}, 6, 30, 6, lots::Massing::staggered, 3, 2.0));
  ASSERT_EQ(st.size(), 5U);  // base, three tiers, crown
  EXPECT_NEAR(polygon_area(st[1].footprint), 26.0 * 26.0, 1e-6);
  EXPECT_NEAR(polygon_area(st[3].footprint), 18.0 * 18.0, 1e-6);
  EXPECT_NEAR(polygon_area(st[4].footprint), 14.0 * 14.0, 1e-6);
  const auto cu = building_volumes(
      dna(lots::FootprintShape::rectangle, 30, 30, {}, 6, 30, 0, lots::Massing::cubified, 3, 2.0));
  ASSERT_EQ(cu.size(), 4U);
  for (std::size_t k = 1; k < cu.size(); ++k) {
    EXPECT_NEAR(polygon_area(cu[k].footprint), 900.0 - 144.0 * static_cast<double>(k), 1e-6);
  }
  const auto pt = building_volumes(dna(lots::FootprintShape::podium_tower, 30, 20, {}, 8, 40, 0));
  ASSERT_EQ(pt.size(), 2U);
  EXPECT_NEAR(polygon_area(pt[1].footprint), 18.0 * 12.0, 1e-6);
}

TEST(BuildingFloors, GroundTypicalTopStretched) {
  const Style s = test_style();
  std::vector<Volume> vs = {Volume{box(0, 0, 10, 10), 0.0, 4.0, 0},
                            Volume{box(1, 1, 9, 9), 4.0, 14.5, 1}};
  const auto floors = detail::slice_floors(vs, s);
  ASSERT_EQ(floors.size(), 4U);  // 4 m ground, then 10.5 m of three floors
  EXPECT_EQ(floors[0].level, detail::LevelKind::ground);
  EXPECT_EQ(floors[1].level, detail::LevelKind::typical);
  EXPECT_EQ(floors[3].level, detail::LevelKind::top);
  for (std::size_t i = 0; i < floors.size(); ++i) {
    EXPECT_EQ(floors[i].index, i);
  }
  EXPECT_DOUBLE_EQ(floors[0].z1_m, 4.0);
  EXPECT_DOUBLE_EQ(floors[3].z1_m, 14.5);
  EXPECT_NEAR(floors[2].z1_m - floors[2].z0_m, 3.5, 1e-9);
}

TEST(BuildingCorners, LShapeAndCollinear) {
  const Ring l = {{0, 0}, {10, 0}, {10, 5}, {5, 5}, {5, 10}, {0, 10}};
  const auto k = detail::classify_corners(l, 10.0);
  EXPECT_EQ(std::count(k.begin(), k.end(), detail::CornerKind::convex), 5);
  EXPECT_EQ(std::count(k.begin(), k.end(), detail::CornerKind::concave), 1);
  EXPECT_EQ(k[3], detail::CornerKind::concave);
  // A hole (clockwise): corners of the courtyard are concave for the solid around it.
  const Ring hole = {{2, 2}, {2, 8}, {8, 8}, {8, 2}};
  const auto hk = detail::classify_corners(hole, 10.0);
  EXPECT_EQ(std::count(hk.begin(), hk.end(), detail::CornerKind::concave), 4);

  const Ring sq = {{0, 0}, {5, 0.3}, {10, 0}, {10, 10}, {0, 10}};
  Style s = test_style();
  detail::RingCorners rc = detail::ring_corners(sq, s);
  EXPECT_EQ(rc.kind[1], detail::CornerKind::split);
  EXPECT_EQ(rc.module[1], static_cast<std::int32_t>(kS));
  EXPECT_NEAR(rc.end_m[0], 0.1, 1e-12);
  EXPECT_NEAR(rc.start_m[1], 0.1, 1e-12);
  EXPECT_NEAR(rc.start_m[0], 0.4, 1e-12);
  s.corner_cap = kP;
  rc = detail::ring_corners(sq, s);
  EXPECT_EQ(rc.module[1], static_cast<std::int32_t>(kP));
  EXPECT_NEAR(rc.start_m[1], 0.15, 1e-12);
  // Consumptions larger than an edge shrink proportionally.
  s.modules[kC].width_m = 3.0;
  rc = detail::ring_corners(Ring{{0, 0}, {4, 0}, {4, 4}, {0, 4}}, s);
  EXPECT_NEAR(rc.start_m[0] + rc.end_m[0], 4.0, 1e-12);
}

TEST(BuildingGenerator, CoversEveryFacadeOfManyShapes) {
  const StyleLibrary lib = library_of(test_style());
  for (const lots::BuildingDNA& d : many_dnas()) {
    const Output out = generate(lot_of(3, {parcel_for(d)}), lib);
    ASSERT_EQ(out.buildings.size(), 1U);
    const std::string what =
        lots::to_string(d.shape) + std::string(" ") + lots::to_string(d.massing);
    expect_covered(out, what);
    const Building& b = out.buildings[0];
    EXPECT_EQ(b.instance_count, out.instances.size());
    EXPECT_GE(out.stats.entrances, 1U) << what;
    // Roofs close every volume's top.
    double expected = 0.0;
    for (const Volume& v : b.volumes) {
      expected += polygon_area(v.footprint);
      for (const Volume& w : b.volumes) {
        if (std::abs(w.z0_m - v.z1_m) < 1e-9) {
          expected -= polygon_area(w.footprint);
        }
      }
    }
    EXPECT_NEAR(mesh_area(out.roofs[0][static_cast<std::size_t>(Material::roof)]), expected,
                1e-2 * std::max(1.0, expected))
        << what;
    // Module +y points out of the building.
    for (const Instance& in : out.instances) {
      if ((in.tags & (kTagProp | kTagFireEscape)) != 0U) {
        continue;
      }
      const double w = lib.styles[0].modules[in.module].width_m * in.scale_x;
      const Vec2 xa{std::cos(in.yaw_rad), std::sin(in.yaw_rad)};
      const Vec2 ya{-std::sin(in.yaw_rad), std::cos(in.yaw_rad)};
      const Vec2 p = Vec2{in.position[0], in.position[1]} + xa * (0.5 * w) + ya * 0.5;
      const Vec2 q = Vec2{in.position[0], in.position[1]} + xa * (0.5 * w) - ya * 0.05;
      const double z = in.position[2] + 0.1;
      for (const Volume& v : b.volumes) {
        if (z >= v.z0_m && z < v.z1_m) {
          EXPECT_FALSE(polygon_contains(v.footprint, p)) << what;
          if (w > 0.2) {
            EXPECT_TRUE(polygon_contains(v.footprint, q)) << what;
          }
        }
      }
    }
  }
}

TEST(BuildingGenerator, GrammarFallbackStillCovers) {
  Style s = test_style("|WNNW|");
  const StyleLibrary lib = library_of(s);
  const Output out =
      generate(lot_of(0, {parcel_for(dna(lots::FootprintShape::rectangle, 12, 4, {}, 4.0))}), lib);
  EXPECT_GE(out.stats.grammar_fallbacks, 2U);
  EXPECT_TRUE(
      std::any_of(out.spans.begin(), out.spans.end(), [](const FacadeSpan& f) { return !f.fits; }));
  expect_covered(out, "fallback");
}

// Facade spans of a lot with the given buildings standing alone, summed over the edges whose
// midpoint has x == 10 (the shared wall), for floors whose top is at or below z_max.
std::size_t shared_wall_modules(const Output& out, std::size_t b, double z_max) {
  const Building& bd = out.buildings[b];
  const auto floors = detail::slice_floors(bd.volumes, test_style());
  std::size_t n = 0;
  for (const FacadeSpan& s : out.spans) {
    if (s.building != b) {
      continue;
    }
    const Ring& r = bd.volumes[s.volume].footprint.outer;
    const Vec2 mid = (r[s.edge] + r[(s.edge + 1) % r.size()]) * 0.5;
    if (std::abs(mid.x - 10.0) < 1e-9 && floors[s.floor].z1_m <= z_max + 1e-9) {
      n += s.spans.size();
    }
  }
  return n;
}

TEST(BuildingOcclusion, TouchingBoxesLoseSharedWallOnly) {
  const StyleLibrary lib = library_of(test_style());
  const auto a = dna(lots::FootprintShape::rectangle, 10, 10, {5, 5}, 10.0);
  const auto b = dna(lots::FootprintShape::rectangle, 10, 10, {15, 5}, 10.0);
  const Output alone = generate(lot_of(0, {parcel_for(a)}), lib);
  const Output alone_b = generate(lot_of(0, {parcel_for(b)}), lib);
  const Output both = generate(lot_of(0, {parcel_for(a), parcel_for(b)}), lib);
  const std::size_t expected =
      shared_wall_modules(both, 0, 1e9) + shared_wall_modules(both, 1, 1e9);
  EXPECT_GT(expected, 0U);
  EXPECT_EQ(both.stats.modules_occluded, expected);
  EXPECT_EQ(both.stats.modules_before_occlusion,
            alone.stats.modules_before_occlusion + alone_b.stats.modules_before_occlusion);
  EXPECT_EQ(alone.stats.modules_occluded, 0U);

  // Neighbouring lots of one block share the party wall too (each lot job reads the other's
  // volumes from its DNA); lots of different blocks never touch, so nothing is hidden.
  for (const bool same_block : {true, false}) {
    lots::Output two;
    two.lots = {lot_of(0, {parcel_for(a)}), lot_of(1, {parcel_for(b)})};
    two.lots[0].area = two.lots[0].parcels[0].area;
    two.lots[1].area = two.lots[1].parcels[0].area;
    two.lots[1].block = same_block ? 0 : 1;
    terrain::Heightfield flat;
    Result<Output> r = run(two, lib, {}, flat, Config{}, 7);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->stats.modules_occluded, same_block ? expected : 0U) << same_block;
    EXPECT_EQ(r->buildings[1].id, 1U);
    EXPECT_EQ(r->buildings[1].first_instance, r->buildings[0].instance_count);
  }
}

TEST(BuildingOcclusion, TallerNeighbourKeepsUpperModules) {
  const StyleLibrary lib = library_of(test_style());
  const auto a = dna(lots::FootprintShape::rectangle, 10, 10, {5, 5}, 7.0);
  const auto b = dna(lots::FootprintShape::rectangle, 10, 10, {15, 5}, 7.0, 9.0);
  const Output both = generate(lot_of(0, {parcel_for(a), parcel_for(b)}), lib);
  const std::size_t expected =
      shared_wall_modules(both, 0, 1e9) + shared_wall_modules(both, 1, 7.0);
  EXPECT_EQ(both.stats.modules_occluded, expected);
  // b keeps modules on the shared wall above a's roof.
  std::size_t upper = 0;
  for (const Instance& in : both.instances) {
    if (in.building == 1 && std::abs(in.position[0] - 10.0) < 1e-3 &&
        in.position[2] >= 7.0 - 1e-3) {
      ++upper;
    }
  }
  EXPECT_GT(upper, 0U);
}

TEST(BuildingEntrances, EveryFrontageBuildingGetsAStreetDoor) {
  for (bool door_in_grammar : {false, true}) {
    const StyleLibrary lib =
        library_of(test_style(door_in_grammar ? "|W|(N)|D|(N)|*W|" : "|W|(N)|*W|"));
    std::vector<lots::Parcel> row;
    for (int i = 0; i < 4; ++i) {
      row.push_back(parcel_for(dna(lots::FootprintShape::rectangle, 8, 14, {8.0 * i, 7}, 8.0)));
    }
    row.push_back(parcel_for(dna(lots::FootprintShape::rectangle, 8, 14, {40, 7}, 8.0), false));
    const Output out = generate(lot_of(2, row), lib);
    ASSERT_EQ(out.buildings.size(), 5U);
    std::set<BuildingId> with_door;
    for (const Entrance& e : out.entrances) {
      if (std::abs(e.position[1]) < 1e-3) {  // on the south (street) wall
        with_door.insert(e.building);
        EXPECT_LT(e.exclusion_centre[1], 0.0F);
        EXPECT_NEAR(e.exclusion_half[1], 1.5F, 1e-6);
      }
    }
    for (BuildingId b = 0; b < 4; ++b) {
      EXPECT_TRUE(with_door.count(b) == 1) << "building " << b;
      EXPECT_TRUE(out.buildings[b].faces_street);
    }
    EXPECT_FALSE(out.buildings[4].faces_street);
    // Signs stand near doors, on ground floors, with a brand.
    std::size_t signs = 0;
    for (const Instance& in : out.instances) {
      if ((in.tags & kTagSignage) != 0U) {
        ++signs;
        EXPECT_EQ(in.floor, 0U);
        EXPECT_EQ(in.brand, (2U * 31U + in.building) % 2U);
      }
    }
    EXPECT_GT(signs, 0U);
  }
}

TEST(BuildingRooms, PartitionWindowModules) {
  const StyleLibrary lib = library_of(test_style());
  const Output out = generate(
      lot_of(0, {parcel_for(dna(lots::FootprintShape::l_shape, 30, 24, {}, 8.0, 12.0, 3.0))}), lib);
  ASSERT_EQ(out.buildings.size(), 1U);
  std::map<std::uint32_t, std::vector<std::size_t>> rooms;
  for (std::size_t i = 0; i < out.instances.size(); ++i) {
    const Instance& in = out.instances[i];
    if ((in.tags & kTagWindow) != 0U) {
      ASSERT_NE(in.room, kNoRoom);
      rooms[in.room].push_back(i);
    } else {
      EXPECT_EQ(in.room, kNoRoom);
    }
  }
  EXPECT_EQ(rooms.size(), out.buildings[0].rooms);
  EXPECT_EQ(rooms.size(), out.stats.rooms);
  EXPECT_EQ(rooms.rbegin()->first + 1, rooms.size());
  for (const auto& [id, members] : rooms) {
    EXPECT_LE(members.size(), 3U);
    EXPECT_EQ(members.back() - members.front() + 1, members.size()) << "room " << id;
    for (std::size_t m : members) {
      EXPECT_EQ(out.instances[m].floor, out.instances[members[0]].floor);
      EXPECT_EQ(out.instances[m].yaw_rad, out.instances[members[0]].yaw_rad);
    }
  }
}

TEST(BuildingRoofs, StaggeredTiersGiveSplitRoofs) {
  const StyleLibrary lib = library_of(test_style());
  const Output out =
      generate(lot_of(0, {parcel_for(dna(lots::FootprintShape::rectangle, 30, 30, {}, 6, 30, 6,
                                         lots::Massing::staggered, 3, 2.0))}),
               lib);
  const Mesh& roof = out.roofs[0][static_cast<std::size_t>(Material::roof)];
  std::set<float> levels;
  for (const auto& p : roof.positions) {
    levels.insert(p[2]);
  }
  EXPECT_EQ(levels.size(), 5U);
  EXPECT_NEAR(mesh_area(roof), 900.0, 1e-2);
  EXPECT_GT(out.roofs[0][static_cast<std::size_t>(Material::trim)].triangle_count(), 0U);
  EXPECT_EQ(out.stats.roof_triangles,
            roof.triangle_count() +
                out.roofs[0][static_cast<std::size_t>(Material::trim)].triangle_count());
}

TEST(BuildingOverrides, FireEscapeOnlyOnTouchedFacades) {
  const StyleLibrary lib = library_of(test_style());
  const auto d = dna(lots::FootprintShape::rectangle, 12, 12, {}, 4.0, 9.0);
  const Output plain = generate(lot_of(0, {parcel_for(d)}), lib);
  TagVolume tv;
  tv.tag = "fire_escape";
  tv.area = box(-10, -8, 10, -4);  // holds the south facade's midpoint only
  const Output out = generate(lot_of(0, {parcel_for(d)}), lib, {tv});
  std::size_t escapes = 0;
  for (const Instance& in : out.instances) {
    if ((in.tags & kTagFireEscape) != 0U) {
      ++escapes;
      EXPECT_GE(in.floor, 1U);
      EXPECT_NEAR(in.position[1], -6.0F, 1e-4);
    }
  }
  EXPECT_EQ(escapes, out.buildings[0].floors - 1);
  EXPECT_EQ(out.instances.size(), plain.instances.size() + escapes);
}

TEST(BuildingSignage, BrandVolumeOverridesModulo) {
  const StyleLibrary lib = library_of(test_style());
  const auto d = dna(lots::FootprintShape::rectangle, 12, 12, {}, 4.0);
  TagVolume tv;
  tv.tag = "brand:bolt";
  tv.area = box(-50, -50, 50, 50);
  for (std::uint32_t lot : {0U, 1U}) {
    const Output out = generate(lot_of(lot, {parcel_for(d)}), lib, {tv});
    std::size_t signs = 0;
    for (const Instance& in : out.instances) {
      if ((in.tags & kTagSignage) != 0U) {
        ++signs;
        EXPECT_EQ(in.brand, 1U);
        EXPECT_EQ(in.module, kG);
      }
    }
    EXPECT_GT(signs, 0U);
  }
}

std::uint64_t hash_output(const Output& out) {
  std::uint64_t h = 0;
  for (const Instance& in : out.instances) {
    h = hash_bytes(&in.module, sizeof in.module, h);
    h = hash_bytes(in.position.data(), sizeof(float) * 3, h);
    h = hash_bytes(&in.yaw_rad, sizeof(float), h);
    h = hash_bytes(&in.scale_x, sizeof(float), h);
    h = hash_bytes(&in.scale_z, sizeof(float), h);
    h = hash_combine(h, in.building);
    h = hash_combine(h, in.room);
    h = hash_combine(h, in.floor);
    h = hash_combine(h, in.brand);
  }
  for (const auto& r : out.roofs) {
    for (const Mesh& m : r) {
      h = hash_bytes(m.positions.data(), m.positions.size() * sizeof(m.positions[0]), h);
    }
  }
  return h;
}

TEST(BuildingRun, DeterministicAcrossThreadCounts) {
  const StyleLibrary lib = library_of(test_style());
  lots::Output lo;
  const auto dnas = many_dnas();
  for (std::size_t i = 0; i + 1 < dnas.size(); i += 2) {
    lo.lots.push_back(lot_of(static_cast<std::uint32_t>(lo.lots.size()),
                             {parcel_for(dnas[i]), parcel_for(dnas[i + 1])}));
  }
  terrain::Heightfield ground;
  ground.origin = {-100, -100};
  ground.cell_m = 50.0;
  ground.nx = 200;
  ground.ny = 4;
  for (std::uint32_t j = 0; j < ground.ny; ++j) {
    for (std::uint32_t i = 0; i < ground.nx; ++i) {
      ground.heights.push_back(static_cast<float>(0.01 * i + 0.5 * j));
    }
  }
  std::uint64_t hashes[2] = {};
  Output outs[2];
  for (int t = 0; t < 2; ++t) {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, t + 1);
    Result<Output> r = run(lo, lib, {}, ground, Config{}, 11);
    ASSERT_TRUE(r.ok());
    hashes[t] = hash_output(*r);
    outs[t] = std::move(r).value();
  }
  EXPECT_EQ(hashes[0], hashes[1]);
  EXPECT_EQ(outs[0].stats.instances, outs[0].instances.size());
  EXPECT_EQ(outs[0].buildings.size(), lo.lots.size() * 2);
  for (const Building& b : outs[0].buildings) {
    EXPECT_GT(b.base_z_m, -1e-9);
    ASSERT_LT(b.first_instance, outs[0].instances.size());
    EXPECT_EQ(outs[0].instances[b.first_instance].building, b.id);
    EXPECT_GE(outs[0].instances[b.first_instance].position[2], b.base_z_m - 1e-3);
  }
}

TEST(BuildingRun, BuiltinStylesCover) {
  Result<StyleLibrary> lib = builtin_library();
  ASSERT_TRUE(lib.ok()) << lib.error().to_string();
  for (std::uint32_t s = 0; s < lib->styles.size(); ++s) {
    for (const lots::BuildingDNA& d0 : many_dnas()) {
      lots::BuildingDNA d = d0;
      d.style = s;
      const Output out = generate(lot_of(1, {parcel_for(d)}), *lib);
      expect_covered(out, lib->styles[s].name + " " + lots::to_string(d.shape));
      EXPECT_GE(out.stats.entrances, 1U) << lib->styles[s].name << " " << lots::to_string(d.shape);
    }
  }
}

}  // namespace
}  // namespace cityforge::buildings
