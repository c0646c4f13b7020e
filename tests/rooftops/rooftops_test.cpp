// SPDX-License-Identifier: Apache-2.0
#include "cityforge/rooftops/rooftops.hpp"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <numbers>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace cityforge::rooftops {
namespace {

using wfc::Constraint;
using wfc::kNegX;
using wfc::kNegY;
using wfc::kNegZ;
using wfc::kNoTile;
using wfc::kPosX;
using wfc::kPosY;
using wfc::kPosZ;
using wfc::Label;
using wfc::Model;
using wfc::TileId;
using wfc::TileVariant;

const Model& rooftop_model() {
  static const Model model = [] {
    Result<Model> m = builtin_rooftop_model();
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().to_string());
    return m.ok() ? std::move(m).value() : Model{};
  }();
  return model;
}

std::string base_of(const Model& m, TileId t) {
  return t < m.tiles.size() ? m.base_names[m.tiles[t].base] : "?";
}

lots::BuildingDNA dna(lots::FootprintShape shape, double sx, double sy, Vec2 centre, double angle,
                      double base, double shaft = 0.0, double crown = 0.0,
                      lots::Massing massing = lots::Massing::plain, std::uint32_t steps = 0,
                      double setback = 0.0) {
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

void add_building(buildings::Output& out, const lots::BuildingDNA& d, double base_z = 0.0) {
  buildings::Building b;
  b.id = static_cast<buildings::BuildingId>(out.buildings.size());
  b.base_z_m = base_z;
  b.volumes = buildings::building_volumes(d);
  out.buildings.push_back(std::move(b));
}

// A spread of shapes, sizes, angles and massings: every footprint shape, set-back tiers.
buildings::Output city(std::uint32_t count) {
  buildings::Output out;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto shape = static_cast<lots::FootprintShape>(i % lots::kFootprintShapeCount);
    const double sx = 12.0 + (i * 7) % 31;
    const double sy = 11.0 + (i * 5) % 23;
    const auto massing = static_cast<lots::Massing>(i % 3);
    add_building(out,
                 dna(shape, sx, sy, {200.0 * (i % 10), 200.0 * (i / 10)}, 0.37 * i, 8.0,
                     12.0 * (i % 3), 4.0 * (i % 2), massing, i % 3, 3.0),
                 1.5 * (i % 4));
  }
  return out;
}

RooftopOutput build(const buildings::Output& b, RooftopConfig cfg = {}, Seed seed = 11) {
  cfg.keep_cells = true;
  Result<RooftopOutput> r = build_rooftops(b, rooftop_model(), cfg, seed);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : RooftopOutput{};
}

// The solved box checked against the model's constraint list alone: every face between two
// roof cells is an allowed (key, label, adjacent), and every face onto a cell off the roof,
// below the first level or above the last (levels > 1) is allowed next to Empty.
std::size_t violations(const Model& m, const Rooftop& r, std::string* first) {
  std::set<std::tuple<TileId, Label, TileId>> allowed;
  for (const Constraint& c : m.constraints) {
    allowed.insert({c.key, c.label, c.adjacent});
  }
  const auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z) -> TileId {
    if (x < 0 || y < 0 || z < 0 || x >= r.size_x || y >= r.size_y || z >= r.size_z) {
      return kNoTile;
    }
    return r.tiles[x + r.size_x * (y + r.size_y * z)];
  };
  static constexpr int kStep[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                      {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
  std::size_t bad = 0;
  for (std::int64_t z = 0; z < r.size_z; ++z) {
    for (std::int64_t y = 0; y < r.size_y; ++y) {
      for (std::int64_t x = 0; x < r.size_x; ++x) {
        const TileId t = at(x, y, z);
        if (t == kNoTile) {
          continue;
        }
        for (Label d = 0; d < 6; ++d) {
          if (d == kPosZ && r.size_z == 1) {
            continue;  // One level: the top is open.
          }
          TileId n = at(x + kStep[d][0], y + kStep[d][1], z + kStep[d][2]);
          if (n == kNoTile) {
            n = m.empty;
          }
          if (allowed.count({t, d, n}) == 0) {
            if (bad++ == 0 && first != nullptr) {
              *first = m.tiles[t].name + " side " + std::to_string(d) + " " + m.tiles[n].name;
            }
          }
        }
      }
    }
  }
  return bad;
}

TEST(RooftopModel, BuiltinHasAboutThirtyTilesAndLearnedConstraints) {
  const Model& m = rooftop_model();
  ASSERT_FALSE(m.tiles.empty());
  EXPECT_GE(m.base_names.size(), 28U);
  EXPECT_LE(m.base_names.size(), 36U);
  EXPECT_NE(m.empty, kNoTile);
  EXPECT_EQ(m.label_count, 6U);
  EXPECT_GT(m.constraints.size(), 1000U);
  std::cout << "rooftop model: " << m.base_names.size() << " base tiles, " << m.tiles.size()
            << " variants, " << m.constraints.size() << " constraints\n";
  ::testing::Test::RecordProperty("base_tiles", static_cast<int>(m.base_names.size()));
  ::testing::Test::RecordProperty("constraints", static_cast<int>(m.constraints.size()));
}

// The learned constraints agree with the kit's geometry (a T tile's feature on its -y side,
// turned counter-clockwise): a railing's rail faces the roof's outside, a door opens onto deck,
// the tall tiles stack on two levels.
TEST(RooftopModel, LearnedAdjacenciesMatchTheKit) {
  const Model& m = rooftop_model();
  std::set<std::tuple<TileId, Label, TileId>> allowed;
  for (const Constraint& c : m.constraints) {
    allowed.insert({c.key, c.label, c.adjacent});
  }
  const TileId deck = m.find("deck");
  const TileId air = m.find("air");
  ASSERT_NE(deck, kNoTile);
  static constexpr Label kFront[4] = {kNegY, kPosX, kPosY, kNegX};
  for (std::uint32_t r = 0; r < 4; ++r) {
    const std::string suffix = r == 0 ? "" : "#r" + std::to_string(r);
    const TileId rail = m.find("railing" + suffix);
    const TileId bulk = m.find("bulkhead" + suffix);
    ASSERT_NE(rail, kNoTile);
    ASSERT_NE(bulk, kNoTile);
    EXPECT_TRUE(allowed.count({rail, kFront[r], m.empty})) << "railing" << suffix;
    EXPECT_FALSE(allowed.count({rail, kFront[r], deck})) << "railing" << suffix;
    EXPECT_TRUE(allowed.count({bulk, kFront[r], deck})) << "bulkhead" << suffix;
    EXPECT_FALSE(allowed.count({bulk, kFront[r], m.empty})) << "bulkhead" << suffix;
  }
  const TileId legs = m.find("tank_legs");
  const TileId tank = m.find("tank");
  for (const Constraint& c : m.constraints) {
    if (c.key == legs && c.label == kPosZ) {
      EXPECT_EQ(c.adjacent, tank);
    }
    if (c.key == tank && c.label == kNegZ) {
      EXPECT_EQ(c.adjacent, legs);
    }
    if (c.key == deck && c.label == kPosZ) {
      EXPECT_EQ(c.adjacent, air);
    }
    if (c.key == deck && c.label == kNegZ) {
      EXPECT_EQ(c.adjacent, m.empty);
    }
  }
}

TEST(Rooftops, EverySolutionSatisfiesEveryConstraint) {
  const buildings::Output b = city(60);
  const RooftopOutput out = build(b);
  const Model& m = rooftop_model();
  ASSERT_GT(out.rooftops.size(), 40U);
  std::size_t solved = 0;
  for (const Rooftop& r : out.rooftops) {
    if (!r.solved) {
      continue;
    }
    ++solved;
    ASSERT_EQ(r.tiles.size(), std::size_t{r.size_x} * r.size_y * r.size_z);
    std::string first;
    EXPECT_EQ(violations(m, r, &first), 0U)
        << "building " << r.building << " tier " << r.volume << ": " << first;
    std::uint32_t cells = 0;
    std::uint32_t visible = 0;
    for (const TileId t : r.tiles) {
      cells += t != kNoTile ? 1 : 0;
      visible += t != kNoTile && t != m.empty && base_of(m, t) != "air" ? 1 : 0;
    }
    EXPECT_EQ(cells, r.cells);
    std::uint32_t tiles = 0;
    for (std::uint32_t i = 0; i < r.instance_count; ++i) {
      tiles += out.instances[r.first_instance + i].prop ? 0 : 1;
    }
    EXPECT_EQ(tiles, visible) << "one instance per visible cell";
  }
  EXPECT_EQ(solved, out.stats.rooftops);
  EXPECT_EQ(out.stats.failed, 0U);
  EXPECT_EQ(out.stats.rooftops + out.stats.failed, out.rooftops.size());
}

// The checker is not vacuous: a swapped tile is caught.
TEST(Rooftops, CheckerCatchesABrokenSolution) {
  const RooftopOutput out = build(city(6));
  const Model& m = rooftop_model();
  ASSERT_FALSE(out.rooftops.empty());
  Rooftop r = out.rooftops.front();
  ASSERT_TRUE(r.solved);
  r.tiles[r.bulkhead] = m.find("tank");  // A tank needs its legs below.
  EXPECT_GT(violations(m, r, nullptr), 0U);
}

TEST(Rooftops, BulkheadStandsNearTheCore) {
  buildings::Output b;
  add_building(b, dna(lots::FootprintShape::rectangle, 30.0, 21.0, {50.0, -20.0}, 0.4, 12.0));
  add_building(b, dna(lots::FootprintShape::l_shape, 36.0, 30.0, {-90.0, 10.0}, -1.1, 9.0));
  const RooftopOutput out = build(b);
  const Model& m = rooftop_model();
  ASSERT_EQ(out.rooftops.size(), 2U);
  for (const Rooftop& r : out.rooftops) {
    ASSERT_TRUE(r.solved);
    ASSERT_LT(r.bulkhead, r.tiles.size());
    EXPECT_EQ(base_of(m, r.tiles[r.bulkhead]), "bulkhead");
    EXPECT_LT(r.bulkhead, r.size_x * r.size_y) << "level 0";
    // Its instance is the nearest level-0 cell centre to the top tier's centroid.
    const buildings::Building& bl = b.buildings[r.building];
    const Vec2 core = ring_centroid(bl.volumes.back().footprint.outer);
    const std::uint32_t bx = r.bulkhead % r.size_x;
    const std::uint32_t by = r.bulkhead / r.size_x;
    const Vec2 u{std::cos(r.angle_rad), std::sin(r.angle_rad)};
    const Vec2 v = perp(u);
    const Vec2 o{r.origin[0], r.origin[1]};
    const auto centre = [&](std::uint32_t x, std::uint32_t y) {
      return o + u * ((x + 0.5) * 3.0) + v * ((y + 0.5) * 3.0);
    };
    const double d = distance(centre(bx, by), core);
    for (std::uint32_t y = 0; y < r.size_y; ++y) {
      for (std::uint32_t x = 0; x < r.size_x; ++x) {
        if (r.tiles[x + r.size_x * y] != kNoTile) {
          EXPECT_GE(distance(centre(x, y), core), d - 1e-6);
        }
      }
    }
  }
}

TEST(Rooftops, InstancesLieOnTheirRoof) {
  const buildings::Output b = city(40);
  RooftopConfig cfg;
  const RooftopOutput out = build(b, cfg);
  const double half_diag = 1.5 * std::sqrt(2.0);
  std::size_t checked = 0;
  for (const Rooftop& r : out.rooftops) {
    const buildings::Building& bl = b.buildings[r.building];
    const buildings::Volume& vol = bl.volumes[r.volume];
    EXPECT_NEAR(r.z_m, bl.base_z_m + vol.z1_m, 1e-9);
    // The roof of the tier is its footprint; inset cells keep their whole square inside.
    std::vector<Polygon> inset = polygon_offset(vol.footprint, -cfg.inset_m);
    for (std::uint32_t i = 0; i < r.instance_count; ++i) {
      const RooftopInstance& in = out.instances[r.first_instance + i];
      EXPECT_EQ(in.building, r.building);
      EXPECT_LT(in.tile, out.tile_names.size());
      EXPECT_LT(in.colour, kRooftopColours);
      const Vec2 p{in.position[0], in.position[1]};
      bool inside = false;
      for (const Polygon& poly : inset) {
        // The cell centre and the four cell corners are inside the inset roof.
        if (!polygon_contains(poly, p)) {
          continue;
        }
        inside = true;
        for (int k = 0; k < 4; ++k) {
          const double a = r.angle_rad + std::numbers::pi * (0.25 + 0.5 * k);
          const Vec2 corner = p + Vec2{std::cos(a), std::sin(a)} * (half_diag - 1e-3);
          EXPECT_TRUE(polygon_contains(poly, corner)) << "cell corner off the roof";
        }
      }
      EXPECT_TRUE(inside) << out.tile_names[in.tile] << " off the roof of building " << r.building;
      for (std::size_t w = 0; w < bl.volumes.size(); ++w) {
        if (w != r.volume && bl.volumes[w].z0_m <= vol.z1_m + 1e-6 &&
            bl.volumes[w].z1_m > vol.z1_m + 1e-6) {
          EXPECT_FALSE(polygon_contains(bl.volumes[w].footprint, p)) << "under a tier above";
        }
      }
      const double level = (in.position[2] - r.z_m) / 3.0;
      EXPECT_NEAR(level, std::round(level), 1e-4);
      EXPECT_GE(std::round(level), 0.0);
      EXPECT_LT(std::round(level), r.size_z);
      ++checked;
    }
  }
  EXPECT_GT(checked, 500U);
  EXPECT_GT(out.stats.props, 0U);
}

bool same(const RooftopOutput& a, const RooftopOutput& b) {
  if (a.rooftops.size() != b.rooftops.size() || a.instances.size() != b.instances.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.instances.size(); ++i) {
    const RooftopInstance& x = a.instances[i];
    const RooftopInstance& y = b.instances[i];
    if (x.tile != y.tile || std::memcmp(x.position.data(), y.position.data(), 12) != 0 ||
        std::memcmp(&x.yaw_rad, &y.yaw_rad, 4) != 0 || x.colour != y.colour || x.prop != y.prop ||
        x.building != y.building || x.reflected != y.reflected) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.rooftops.size(); ++i) {
    if (a.rooftops[i].tiles != b.rooftops[i].tiles ||
        a.rooftops[i].bulkhead != b.rooftops[i].bulkhead) {
      return false;
    }
  }
  return true;
}

TEST(Rooftops, SameSeedSameRooftopsAtOneAndTwoThreads) {
  const buildings::Output b = city(50);
  RooftopOutput one;
  RooftopOutput two;
  {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 1);
    one = build(b);
  }
  {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 2);
    two = build(b);
  }
  EXPECT_TRUE(same(one, two));
  const RooftopOutput other = build(b, {}, 12);
  EXPECT_FALSE(same(one, other)) << "the seed changes the rooftops";
}

TEST(Rooftops, SkipsSmallPitchedAndCoveredRoofs) {
  buildings::Output b;
  // 0: too small (6 x 5 m = 30 m2 < 40 m2).
  add_building(b, dna(lots::FootprintShape::rectangle, 6.0, 5.0, {0.0, 0.0}, 0.0, 6.0));
  // 1: a gabled imported roof.
  add_building(b, dna(lots::FootprintShape::rectangle, 20.0, 15.0, {100.0, 0.0}, 0.0, 6.0));
  b.buildings[1].volumes[0].roof = lots::RoofShape::gabled;
  b.buildings[1].volumes[0].roof_height_m = 3.0;
  // 2: a base tier wholly covered by a tower of the same footprint; only the tower's top.
  add_building(b, dna(lots::FootprintShape::rectangle, 20.0, 15.0, {200.0, 0.0}, 0.0, 6.0));
  {
    buildings::Volume top = b.buildings[2].volumes[0];
    top.z0_m = top.z1_m;
    top.z1_m += 20.0;
    b.buildings[2].volumes.push_back(top);
  }
  // 3: degenerate footprints (no area, too few points).
  add_building(b, dna(lots::FootprintShape::rectangle, 20.0, 15.0, {300.0, 0.0}, 0.0, 6.0));
  b.buildings[3].volumes[0].footprint.outer = {{300.0, 0.0}, {310.0, 0.0}, {320.0, 0.0}};
  b.buildings[3].volumes.push_back(b.buildings[3].volumes[0]);
  b.buildings[3].volumes[1].footprint.outer.clear();
  // 4: a narrow strip (2 m wide inside its parapet): no cell fits.
  add_building(b, dna(lots::FootprintShape::rectangle, 40.0, 3.0, {400.0, 0.0}, 0.0, 6.0));
  const RooftopOutput out = build(b);
  ASSERT_EQ(out.rooftops.size(), 1U);
  EXPECT_EQ(out.rooftops[0].building, 2U);
  EXPECT_EQ(out.rooftops[0].volume, 1U);
  EXPECT_NEAR(out.rooftops[0].z_m, 26.0, 1e-9);
  EXPECT_EQ(out.stats.rooftops, 1U);
  EXPECT_EQ(out.stats.roofs_considered, 6U);  // Every flat tier, kept or not.
}

// An imported part rising from the ground through a lower part's roof: the lower roof's cells
// keep clear of it (by the inset), and both get a rooftop.
TEST(Rooftops, PartsPassingThroughARoofAreKeptClearOf) {
  buildings::Output b;
  add_building(b, dna(lots::FootprintShape::rectangle, 40.0, 30.0, {0.0, 0.0}, 0.3, 10.0));
  buildings::Volume tower = b.buildings[0].volumes[0];
  tower.footprint.outer = {{-6.0, -6.0}, {6.0, -6.0}, {6.0, 6.0}, {-6.0, 6.0}};
  tower.z0_m = 0.0;
  tower.z1_m = 40.0;
  b.buildings[0].volumes.push_back(tower);
  const RooftopOutput out = build(b);
  ASSERT_EQ(out.rooftops.size(), 2U);
  EXPECT_EQ(out.rooftops[0].volume, 0U);
  EXPECT_EQ(out.rooftops[1].volume, 1U);
  const Rooftop& low = out.rooftops[0];
  ASSERT_TRUE(low.solved);
  EXPECT_GT(low.instance_count, 20U);
  for (std::uint32_t i = 0; i < low.instance_count; ++i) {
    const RooftopInstance& in = out.instances[low.first_instance + i];
    if (in.position[2] > low.z_m + 1.0) {
      continue;  // Level 1 stands over a level-0 cell.
    }
    // Points along the cell square's outline keep the 0.6 m inset from the tower.
    const Vec2 c{in.position[0], in.position[1]};
    const Vec2 u{std::cos(low.angle_rad), std::sin(low.angle_rad)};
    const Vec2 v = perp(u);
    for (int k = 0; k <= 32; ++k) {
      const double t = -1.5 + 3.0 * k / 32.0;
      for (const Vec2 p :
           {c + u * t - v * 1.5, c + u * t + v * 1.5, c - u * 1.5 + v * t, c + u * 1.5 + v * t}) {
        const double dx = std::max(std::abs(p.x) - 6.0, 0.0);
        const double dy = std::max(std::abs(p.y) - 6.0, 0.0);
        EXPECT_GE(std::hypot(dx, dy), 0.6 - 1e-3) << out.tile_names[in.tile] << " by the tower";
      }
    }
  }
}

TEST(Rooftops, ConfigAndModelErrorsAreClear) {
  const buildings::Output b = city(2);
  RooftopConfig bad;
  bad.cell_m = 0.5;
  Result<RooftopOutput> r = build_rooftops(b, rooftop_model(), bad, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cell_m"), std::string::npos) << r.error().to_string();
  bad = RooftopConfig{};
  bad.levels = 0;
  r = build_rooftops(b, rooftop_model(), bad, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("levels"), std::string::npos);
  Model flat = rooftop_model();
  flat.label_count = 4;
  r = build_rooftops(b, flat, RooftopConfig{}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("3D"), std::string::npos);
  Model no_bulkhead = rooftop_model();
  for (TileVariant& t : no_bulkhead.tiles) {
    if (t.name.rfind("bulkhead", 0) == 0) {
      t.name = "x" + t.name;
    }
  }
  r = build_rooftops(b, no_bulkhead, RooftopConfig{}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bulkhead"), std::string::npos);
  RooftopConfig off;
  off.enabled = false;
  r = build_rooftops(b, rooftop_model(), off, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->rooftops.empty());
  EXPECT_EQ(r->stats.constraints, rooftop_model().constraints.size());
}

// Neighbour rules: the roof's paving shares one colour, a tank its legs' colour, and colours
// vary between roofs; wall props stand on open deck next to a structure wall.
TEST(Rooftops, ColoursAndWallProps) {
  const RooftopOutput out = build(city(40));
  const Model& m = rooftop_model();
  std::set<std::uint16_t> deck_colours;
  std::size_t props = 0;
  for (const Rooftop& r : out.rooftops) {
    std::set<std::uint16_t> mine;
    std::vector<const RooftopInstance*> legs;
    std::vector<const RooftopInstance*> tanks;
    for (std::uint32_t i = 0; i < r.instance_count; ++i) {
      const RooftopInstance& in = out.instances[r.first_instance + i];
      const std::string& name = out.tile_names[in.tile];
      if (name == "deck") mine.insert(in.colour);
      if (name == "tank_legs") legs.push_back(&in);
      if (name == "tank") tanks.push_back(&in);
      if (in.prop) {
        ++props;
        EXPECT_GE(in.tile, m.base_names.size());
        EXPECT_EQ(name.rfind("prop_wall_", 0), 0U) << name;
      }
    }
    EXPECT_LE(mine.size(), 1U) << "one paving colour per roof";
    deck_colours.insert(mine.begin(), mine.end());
    ASSERT_EQ(legs.size(), tanks.size());
    for (std::size_t k = 0; k < legs.size(); ++k) {
      EXPECT_EQ(legs[k]->colour, tanks[k]->colour);
      EXPECT_NEAR(legs[k]->position[0], tanks[k]->position[0], 1e-3);
    }
  }
  EXPECT_GT(deck_colours.size(), 1U);
  EXPECT_EQ(props, out.stats.props);
  EXPECT_GT(props, 0U);
}

// A model whose bulkhead door may open onto nothing: the pre-placement contradicts every
// solve, so every roof stays bare and is counted as failed.
TEST(Rooftops, UnsolvableRoofsStayBareAndAreCounted) {
  Model m = rooftop_model();
  const TileId deck = m.find("deck");
  std::erase_if(m.constraints, [&](const Constraint& c) {
    const bool bulk_key = m.base_names[m.tiles[c.key].base] == "bulkhead";
    const bool bulk_adj = m.base_names[m.tiles[c.adjacent].base] == "bulkhead";
    return (bulk_key && c.adjacent == deck) || (bulk_adj && c.key == deck);
  });
  const buildings::Output b = city(12);
  Result<RooftopOutput> r = build_rooftops(b, m, RooftopConfig{}, 3);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_FALSE(r->rooftops.empty());
  EXPECT_EQ(r->stats.failed, r->rooftops.size());
  EXPECT_EQ(r->stats.rooftops, 0U);
  EXPECT_TRUE(r->instances.empty());
  for (const Rooftop& roof : r->rooftops) {
    EXPECT_FALSE(roof.solved);
    EXPECT_EQ(roof.instance_count, 0U);
  }
}

// One level and a bigger cell still solve and satisfy the constraints (tall tiles lose their
// tops: the top is open).
TEST(Rooftops, OtherLevelsAndCellSizes) {
  const buildings::Output b = city(20);
  for (const auto& [levels, cell] : {std::pair{1U, 3.0}, std::pair{3U, 4.0}}) {
    RooftopConfig cfg;
    cfg.levels = levels;
    cfg.cell_m = cell;
    const RooftopOutput out = build(b, cfg);
    ASSERT_FALSE(out.rooftops.empty());
    EXPECT_EQ(out.cell_m, cell);
    for (const Rooftop& r : out.rooftops) {
      EXPECT_EQ(r.size_z, levels);
      if (r.solved) {
        std::string first;
        EXPECT_EQ(violations(rooftop_model(), r, &first), 0U) << first;
      }
    }
    EXPECT_GT(out.stats.rooftops, out.rooftops.size() * 9 / 10);
  }
}

}  // namespace
}  // namespace cityforge::rooftops
