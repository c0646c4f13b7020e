// SPDX-License-Identifier: Apache-2.0
// The building generator over many shapes, massings and every built-in style, and at two
// thread counts (slow: label city).
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "buildings/detail/gen_internal.hpp"
#include "cityforge/buildings/buildings.hpp"
#include "generator_fixture.hpp"

namespace cityforge::buildings {
namespace {

using namespace test;

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
