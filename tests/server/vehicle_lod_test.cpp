// SPDX-License-Identifier: Apache-2.0
// VehicleLod (server/city_sim.hpp): the vehicles' levels of detail from a viewer, assigned to
// the vehicles within reach only and handed to the traffic with set_lod_near, are those of
// assigning every moving vehicle from its position (far ones off), and the traffic runs the
// same with them as with the same levels given for every vehicle.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "cityforge/crowd/lod.hpp"
#include "cityforge/server/city_sim.hpp"
#include "cityforge/traffic/traffic.hpp"
#include "traffic/net_fixture.hpp"

namespace cityforge::server {
namespace {

using traffic::Simulation;
using traffic::VehicleSample;

std::unique_ptr<Simulation> make_sim(std::uint32_t vehicles) {
  traffic::testing::GridSpec spec;
  spec.nx = 9;
  spec.ny = 8;
  spec.lanes = 2;
  traffic::Config cfg;
  cfg.vehicles = vehicles;
  cfg.trip_share = 0.4f;
  Result<std::unique_ptr<Simulation>> sim =
      Simulation::create(traffic::testing::make_grid(spec).net, cfg, {}, 11);
  EXPECT_TRUE(sim.ok());
  return sim.ok() ? std::move(*sim) : nullptr;
}

/// The viewer at update k: crossing the grid (900 x 800 m) and beyond its corner, turning.
crowd::Viewer viewer_at(int k) {
  const std::array<Vec3, 5> at{Vec3{-500, -400, 2}, Vec3{150, 120, 2}, Vec3{450, 400, 60},
                               Vec3{1500, 900, 2}, Vec3{820, 700, 2}};
  return crowd::Viewer{at[static_cast<std::size_t>(k) % at.size()], 0.7 * k};
}

/// What VehicleLod did before it looked at the vehicles within reach only: every moving
/// vehicle's position to the assigner, levels kept by id (off when never assigned).
struct EveryVehicle {
  crowd::LodAssigner assigner{crowd::vehicle_lod()};
  std::vector<crowd::Lod> levels;
  void update(Simulation& sim, const crowd::Viewer& viewer) {
    const std::vector<VehicleSample> all = sim.positions();
    std::vector<Vec3> pos(all.size());
    std::vector<crowd::Lod> lv(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      pos[i] = all[i].position;
      if (levels.size() <= all[i].id) levels.resize(all[i].id + 1, crowd::Lod::off);
      lv[i] = levels[all[i].id];
    }
    assigner.assign(pos, viewer, lv);
    for (std::size_t i = 0; i < all.size(); ++i)
      levels[all[i].id] = lv[i];
  }
  crowd::Lod level(std::uint32_t id) const {
    return id < levels.size() ? levels[id] : crowd::Lod::off;
  }
};

TEST(VehicleLod, LevelsOfTheVehiclesWithinReachAreThoseOfAssigningEveryVehicle) {
  std::unique_ptr<Simulation> sim = make_sim(900);
  ASSERT_NE(sim, nullptr);
  VehicleLod lod(true);
  EveryVehicle ref;
  std::array<std::uint32_t, crowd::kLods> seen{};
  for (int k = 0; k < 40; ++k) {
    for (int t = 0; t < 8; ++t)
      sim->tick();
    if (k == 15) sim->set_vehicle_count(400);
    if (k == 25) sim->set_vehicle_count(1000);
    const crowd::Viewer viewer = viewer_at(k);
    lod.update(*sim, viewer);
    ref.update(*sim, viewer);
    for (const VehicleSample& v : sim->positions()) {
      ASSERT_EQ(lod.level(v.id), static_cast<std::uint8_t>(ref.level(v.id)))
          << "update " << k << " vehicle " << v.id;
    }
    for (std::size_t l = 0; l < crowd::kLods; ++l) {
      EXPECT_EQ(lod.per_lod()[l], ref.assigner.counts()[l]) << "update " << k << " level " << l;
      seen[l] += lod.per_lod()[l];
    }
  }
  for (std::size_t l = 0; l < crowd::kLods; ++l)
    EXPECT_GT(seen[l], 0U) << "level " << l << " was never given";
}

// set_lod_near(ids, levels) is set_lod with those levels and every other vehicle off: the same
// simulation, tick for tick, as levels are moved about and the vehicle count changes.
TEST(VehicleLod, LevelsForAFewVehiclesAreEveryOtherVehicleOff) {
  std::unique_ptr<Simulation> dense = make_sim(700);
  std::unique_ptr<Simulation> near = make_sim(700);
  ASSERT_NE(dense, nullptr);
  ASSERT_NE(near, nullptr);
  for (int k = 0; k < 30; ++k) {
    if (k == 10) {
      dense->set_vehicle_count(300);
      near->set_vehicle_count(300);
    }
    if (k == 20) {
      dense->set_vehicle_count(900);
      near->set_vehicle_count(900);
    }
    // A few vehicles at high, medium and low, changing every time; every other one off.
    std::vector<std::uint32_t> ids;
    std::vector<std::uint8_t> levels;
    std::vector<std::uint8_t> all(near->world().entity_count() + 1, 3);
    for (const VehicleSample& v : near->positions()) {
      if ((v.id + static_cast<std::uint32_t>(k)) % 5 != 0) continue;
      ids.push_back(v.id);
      levels.push_back(static_cast<std::uint8_t>((v.id / 5 + static_cast<std::uint32_t>(k)) % 4));
      all[v.id] = levels.back();
    }
    dense->set_lod(all);
    near->set_lod_near(ids, levels);
    for (int t = 0; t < 10; ++t) {
      dense->tick();
      near->tick();
    }
    ASSERT_EQ(near->state_hash(), dense->state_hash()) << "after " << k + 1 << " changes";
  }
  EXPECT_LT(near->stats().vehicles_driven, near->stats().vehicle_updates)
      << "off vehicles were skipped between their steps";
}

}  // namespace
}  // namespace cityforge::server
