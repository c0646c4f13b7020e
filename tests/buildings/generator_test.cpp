// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "buildings/detail/gen_internal.hpp"
#include "cityforge/buildings/buildings.hpp"
#include "generator_fixture.hpp"

namespace cityforge::buildings {
namespace {

using namespace test;

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

// Issue 30: a short building against the middle of a long wall. The long wall is fitted piece
// by piece between the ends of the short one's wall, so on the floors the short building
// covers, the modules removed are exactly its wall's length: none left half hidden.
TEST(BuildingOcclusion, ALongWallIsFittedBetweenTheEndsOfAShorterNeighbour) {
  const StyleLibrary lib = library_of(test_style());
  const auto a = dna(lots::FootprintShape::rectangle, 30, 10, {15, 5}, 10.0);
  const auto b = dna(lots::FootprintShape::rectangle, 9.3, 8, {13.35, 14}, 7.0);
  const Output both = generate(lot_of(0, {parcel_for(a), parcel_for(b)}), lib);
  expect_covered(both, "party wall pieces");
  const auto floors = detail::slice_floors(both.buildings[0].volumes, test_style());
  std::size_t covered_floors = 0;
  for (const FacadeSpan& f : both.spans) {
    if (f.building != 0 || f.edge != 2) continue;  // A's north wall, (30, 10) -> (0, 10).
    double removed_m = 0.0;
    for (std::size_t k = 0; k < f.spans.size(); ++k) {
      if (f.removed[k] == 0) continue;
      removed_m += f.spans[k][1] - f.spans[k][0];
      EXPECT_GE(f.spans[k][0], 12.0 - 1e-6) << "floor " << f.floor;
      EXPECT_LE(f.spans[k][1], 21.3 + 1e-6) << "floor " << f.floor;
    }
    if (floors[f.floor].z1_m <= 7.0 + 1e-9) {
      ++covered_floors;
      EXPECT_NEAR(removed_m, 9.3, 1e-6) << "floor " << f.floor;
    } else {
      EXPECT_EQ(removed_m, 0.0) << "floor " << f.floor << " stands above the neighbour";
    }
  }
  EXPECT_EQ(covered_floors, 2U);
}

TEST(BuildingRun, ModulesMadeAgainPerLotAreTheRunsOwn) {
  // A tiled region keeps no instances (keep_instances false); each tile makes its buildings'
  // modules again from their lots. Party walls hide modules, so a lot must be made among its
  // block's neighbours to come out the same.
  const StyleLibrary lib = library_of(test_style());
  lots::Output lo;
  const double xs[] = {5, 15, 25, 60};
  for (std::uint32_t i = 0; i < 4; ++i) {
    const auto d = dna(lots::FootprintShape::rectangle, 10, 10, {xs[i], 5}, 10.0 + 3.0 * i);
    lo.lots.push_back(lot_of(i, {parcel_for(d)}));
    lo.lots.back().area = lo.lots.back().parcels[0].area;
    lo.lots.back().block = i < 3 ? 0 : 1;
  }
  terrain::Heightfield flat;
  Config keep;
  Result<Output> all = run(lo, lib, {}, flat, keep, 7);
  ASSERT_TRUE(all.ok());
  ASSERT_GT(all->stats.modules_occluded, 0U) << "the test needs party walls";
  Config drop;
  drop.keep_instances = false;
  Result<Output> none = run(lo, lib, {}, flat, drop, 7);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->instances.empty());
  EXPECT_FALSE(none->instances_kept);
  EXPECT_EQ(none->stats.instances, all->instances.size());
  ASSERT_EQ(none->buildings.size(), all->buildings.size());
  std::vector<std::uint32_t> modules;
  for (const Instance& in : all->instances)
    modules.push_back(in.module);
  std::sort(modules.begin(), modules.end());
  modules.erase(std::unique(modules.begin(), modules.end()), modules.end());
  EXPECT_EQ(none->modules_used, modules);
  const std::vector<TagVolume> tags;
  const LotInputs inputs{&lo, &lib, &tags, &flat, drop, 7};
  const auto same = [](const std::vector<Instance>& a, const std::vector<Instance>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].module != b[i].module || a[i].position != b[i].position ||
          a[i].building != b[i].building || a[i].room != b[i].room || a[i].yaw_rad != b[i].yaw_rad)
        return false;
    }
    return true;
  };
  for (const std::vector<std::uint32_t>& ids :
       std::vector<std::vector<std::uint32_t>>{{0, 1, 2, 3}, {1}, {1, 3}, {2, 3}}) {
    std::vector<Instance> expected;
    for (const std::uint32_t b : ids) {
      const Building& bd = all->buildings[b];
      expected.insert(expected.end(), all->instances.begin() + bd.first_instance,
                      all->instances.begin() + bd.first_instance + bd.instance_count);
    }
    Result<std::vector<Instance>> kept = instances_of(*all, ids, nullptr);
    ASSERT_TRUE(kept.ok());
    EXPECT_TRUE(same(*kept, expected)) << ids.size();
    Result<std::vector<Instance>> made = instances_of(*none, ids, &inputs);
    ASSERT_TRUE(made.ok()) << made.error().to_string();
    EXPECT_TRUE(same(*made, expected)) << ids.size() << " from " << ids[0];
  }
  EXPECT_FALSE(instances_of(*none, {0}, nullptr).ok()) << "nothing to make them from";
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

// A flat roof's parapet stands on the outline's edges (roofs.cpp): against a taller
// neighbour it hides that neighbour's wall up to its own top, so a floor of the taller building
// that ends within the parapet's height above the roof goes too, and only then.
TEST(BuildingOcclusion, ANeighboursParapetHidesTheFloorBehindIt) {
  const auto a = dna(lots::FootprintShape::rectangle, 10, 10, {5, 5}, 7.0);
  const auto b = dna(lots::FootprintShape::rectangle, 10, 10, {15, 5}, 7.0, 9.0);
  auto occluded = [&](double height_m, double width_m) {
    Style style = test_style();
    style.parapet_height_m = height_m;
    style.parapet_width_m = width_m;
    const Output both = generate(lot_of(0, {parcel_for(a), parcel_for(b)}), library_of(style));
    return std::pair{both.stats.modules_occluded, both};
  };
  // b's floors above a's roof (at 7 m) are 3 m tall: 7-10 m, 10-13 m, 13-16 m.
  const auto [with_parapet, both] = occluded(3.0, 0.3);
  EXPECT_EQ(with_parapet, shared_wall_modules(both, 0, 1e9) + shared_wall_modules(both, 1, 10.0));
  EXPECT_GT(shared_wall_modules(both, 1, 10.0), shared_wall_modules(both, 1, 7.0));
  // Lower than the floor, or thinner than the push that counts as touching: the floor stays.
  EXPECT_EQ(occluded(2.9, 0.3).first,
            shared_wall_modules(both, 0, 1e9) + shared_wall_modules(both, 1, 7.0));
  EXPECT_EQ(occluded(3.0, 0.02).first,
            shared_wall_modules(both, 0, 1e9) + shared_wall_modules(both, 1, 7.0));
  EXPECT_EQ(occluded(0.0, 0.3).first,
            shared_wall_modules(both, 0, 1e9) + shared_wall_modules(both, 1, 7.0));
}

// Buildings stand on the lowest ground under them, so on a slope the one uphill stands higher:
// the wall of the one below it is hidden by it above its base and by the ground below, and
// only where the two meet without a gap.
TEST(BuildingOcclusion, TheGroundHidesTheWallBelowAHigherNeighbour) {
  const StyleLibrary lib = library_of(test_style());
  const auto a = dna(lots::FootprintShape::rectangle, 10, 10, {5, 5}, 7.0);
  const auto b = dna(lots::FootprintShape::rectangle, 10, 10, {15, 5}, 7.0, 9.0);
  terrain::Heightfield ground;  // Flat at 1 m.
  ground.origin = {-50, -50};
  ground.nx = 12;
  ground.ny = 12;
  ground.heights.assign(144, 1.0F);
  Config cfg;
  cfg.keep_facade_spans = true;
  auto occluded = [&](double b_base_m, const terrain::Heightfield* g) {
    Result<Output> r = detail::generate_lot_at(lot_of(0, {parcel_for(a), parcel_for(b)}), lib, {},
                                               cfg, 7, {0.0, b_base_m}, {}, nullptr, nullptr, g);
    EXPECT_TRUE(r.ok());
    return r.ok() ? std::move(r).value() : Output{};
  };
  // b from 0.9 m, the ground hides a's wall up to 0.95 m: all of it goes, as on flat ground.
  const Output hidden = occluded(0.9, &ground);
  const std::size_t a_wall = shared_wall_modules(hidden, 0, 1e9);
  const std::size_t a_ground_floor = shared_wall_modules(hidden, 0, 4.0);
  const std::size_t b_low = shared_wall_modules(hidden, 1, 7.0);  // Below a's parapet.
  ASSERT_GT(a_ground_floor, 0U);
  EXPECT_EQ(hidden.stats.modules_occluded, a_wall + b_low);
  // Without the ground, a's ground floor is seen below b's base.
  EXPECT_EQ(occluded(0.9, nullptr).stats.modules_occluded, a_wall - a_ground_floor + b_low);
  // b from 1 m: between 0.95 m (what the ground hides, with its margin) and 1 m a gap is left;
  // a's parapet (to 7.9 m) now ends below b's second floor (5-8 m), which stays.
  const Output gap = occluded(1.0, &ground);
  EXPECT_EQ(gap.stats.modules_occluded, a_wall - a_ground_floor + shared_wall_modules(gap, 1, 4.0));
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

}  // namespace
}  // namespace cityforge::buildings
