// SPDX-License-Identifier: Apache-2.0
// The built-in prop kit: low-poly meshes split by material, built from the primitives of
// detail/prop_geometry.hpp. This file: dispatch, tiles, lighting and vegetation.
#include "dressing/detail/prop_kit.hpp"

#include <array>
#include <cstdint>
#include <numbers>
#include <string_view>

#include "cityforge/dressing/dressing.hpp"
#include "dressing/detail/prop_geometry.hpp"

namespace cityforge::dressing {
namespace detail {
namespace {

// Tiles are open slabs: top and sides, no bottom face (it lies on the ground).
void tile(PropMesh& out, PropMaterial m, std::initializer_list<Vec2> ring) {
  add_slab(part(out, m), ring.begin(), ring.size(), 0.0, kTileThicknessM, false);
}

// A lamp post: a base plinth, a tapered pole to `height`.
void lamp_post(PropMesh& out, double height, double r_base) {
  Mesh& metal = part(out, PropMaterial::metal);
  add_frustum(metal, {0, 0, 0}, {0, 0, 0.45}, r_base, r_base * 0.8, 8, kCapEnd);
  add_frustum(metal, {0, 0, 0.45}, {0, 0, height}, 0.5 * r_base, 0.3 * r_base, 8, kCapEnd);
}

// A lamp head hanging from an arm: its housing from x0 to x1 with the glowing face below.
void lamp_head(PropMesh& out, double x0, double x1, double half_w, double z) {
  add_box(part(out, PropMaterial::metal), {x0, -half_w, z}, {x1, half_w, z + 0.16}, kAllFaces);
  add_box(part(out, PropMaterial::light), {x0 + 0.05, -half_w + 0.04, z - 0.04},
          {x1 - 0.05, half_w - 0.04, z});
}

// A trunk with a fork of two short branches into the canopy.
void trunk(PropMesh& out, double height, double r0, double r1, std::uint32_t sides) {
  Mesh& bark = part(out, PropMaterial::bark);
  add_frustum(bark, {0, 0, 0}, {0, 0, height}, r0, r1, sides, 0);
  add_frustum(bark, {0, 0, 0.8 * height}, {0.45 * height * 0.25, 0.1, height * 1.12}, r1, 0.5 * r1,
              5, 0);
  add_frustum(bark, {0, 0, 0.7 * height}, {-0.35 * height * 0.25, -0.2, height * 1.05}, r1,
              0.5 * r1, 5, 0);
}

}  // namespace

void build_sidewalk_tile(PropMesh& out) {
  tile(out, PropMaterial::paving, {{0, 0}, {1, 0}, {1, 1}, {0, 1}});
}

void build_sidewalk_corner_out(PropMesh& out) {
  tile(out, PropMaterial::paving, {{0, 0}, {1, -0.5}, {1, 0.5}});
}

void build_sidewalk_corner_in(PropMesh& out) {
  tile(out, PropMaterial::paving, {{0, 0}, {1, 0}, {0, 1}});
}

void build_ground_tile(PropMesh& out) {
  tile(out, PropMaterial::foliage, {{0, 0}, {1, 0}, {1, 1}, {0, 1}});
}

void build_street_light(PropMesh& out) {
  lamp_post(out, 7.85, 0.2);
  Mesh& metal = part(out, PropMaterial::metal);
  // A bent arm reaching kStreetLightReachM over +x, the head at its end.
  add_beam(metal, {0, 0, 7.3}, {0.7, 0, 7.8}, 0.04, 0.04);
  add_beam(metal, {0.65, 0, 7.8}, {kStreetLightReachM - 0.4, 0, 7.8}, 0.04, 0.04);
  lamp_head(out, kStreetLightReachM - 0.7, kStreetLightReachM + 0.2, 0.18, 7.74);
}

void build_parking_lamp(PropMesh& out) {
  lamp_post(out, 5.9, 0.18);
  add_beam(part(out, PropMaterial::metal), {-0.6, 0, 5.8}, {0.6, 0, 5.8}, 0.04, 0.04);
  lamp_head(out, 0.3, 0.8, 0.16, 5.76);
  lamp_head(out, -0.8, -0.3, 0.16, 5.76);
}

void build_street_tree(PropMesh& out) {
  // The pit grate: a square plate with a frame, the trunk through its middle.
  Mesh& metal = part(out, PropMaterial::metal);
  const double g = 0.42;
  tile(out, PropMaterial::metal, {{-g, -g}, {g, -g}, {g, g}, {-g, g}});
  add_box(metal, {-g, -0.03, 0.02}, {g, 0.03, 0.04}, kNoBottom);
  add_box(metal, {-0.03, -g, 0.02}, {0.03, g, 0.04}, kNoBottom);
  trunk(out, 3.0, 0.14, 0.09, 6);
  Mesh& leaves = part(out, PropMaterial::foliage);
  add_blob(leaves, {0.0, 0.0, 3.9}, {1.8, 1.8, 1.3}, 0.0, true);
  add_blob(leaves, {0.35, -0.25, 5.1}, {1.3, 1.3, 1.1}, 0.6);
  add_blob(leaves, {-0.25, 0.3, 6.0}, {0.9, 0.9, 0.9}, 1.3);
}

void build_park_tree(PropMesh& out) {
  trunk(out, 4.2, 0.3, 0.17, 7);
  Mesh& leaves = part(out, PropMaterial::foliage);
  add_blob(leaves, {0.0, 0.0, 5.6}, {2.8, 2.8, 2.0}, 0.0, true);
  add_blob(leaves, {0.6, 0.5, 7.4}, {2.1, 2.1, 1.7}, 0.4, true);
  add_blob(leaves, {-0.5, -0.4, 8.9}, {1.4, 1.4, 1.1}, 0.9);
}

void build_bush(PropMesh& out) {
  Mesh& leaves = part(out, PropMaterial::foliage);
  add_blob(leaves, {0.1, 0.05, 0.5}, {0.55, 0.55, 0.5}, 0.0, true);
  add_blob(leaves, {-0.25, -0.2, 0.4}, {0.38, 0.38, 0.38}, 0.7);
  add_blob(leaves, {-0.15, 0.3, 0.45}, {0.32, 0.32, 0.36}, 1.9);
}

void build_planter(PropMesh& out) {
  Mesh& concrete = part(out, PropMaterial::concrete);
  add_box(concrete, {-0.3, -0.6, 0.0}, {0.3, 0.6, 0.5}, kNoBottom);
  Mesh& leaves = part(out, PropMaterial::foliage);
  add_blob(leaves, {0.0, -0.28, 0.72}, {0.29, 0.31, 0.34}, 0.3);
  add_blob(leaves, {0.0, 0.0, 0.78}, {0.29, 0.3, 0.32}, 1.1);
  add_blob(leaves, {0.0, 0.28, 0.7}, {0.29, 0.31, 0.3}, 2.0);
}

}  // namespace detail

PropMesh build_prop_mesh(std::uint32_t prop) {
  using namespace detail;
  struct Entry {
    std::string_view id;
    PropBuilder build;
  };
  static constexpr std::array<Entry, 40> kBuilders = {{
      {"sidewalk_tile", build_sidewalk_tile},
      {"sidewalk_corner_out", build_sidewalk_corner_out},
      {"sidewalk_corner_in", build_sidewalk_corner_in},
      {"ground_tile", build_ground_tile},
      {"street_light", build_street_light},
      {"parking_lamp", build_parking_lamp},
      {"street_tree", build_street_tree},
      {"park_tree", build_park_tree},
      {"bush", build_bush},
      {"planter", build_planter},
      {"bench", build_bench},
      {"bin", build_bin},
      {"hydrant", build_hydrant},
      {"bus_stop", build_bus_stop},
      {"bollard", build_bollard},
      {"bike_rack", build_bike_rack},
      {"picnic_table", build_picnic_table},
      {"signal_pole", build_signal_pole},
      {"signal_head", build_signal_head},
      {"stop_sign", build_stop_sign},
      {"yield_sign", build_yield_sign},
      {"car", build_car},
      {"parking_line", build_parking_line},
      {"hvac_unit", build_hvac_unit},
      {"water_tank", build_water_tank},
      {"roof_vent", build_roof_vent},
      {"solar_panel", build_solar_panel},
      {"jersey_barrier", build_jersey_barrier},
      {"fountain", build_fountain},
      {"kiosk", build_kiosk},
      {"umbrella_table", build_umbrella_table},
      {"barrier_wall", build_barrier_wall},
      {"barrier_fence", build_barrier_fence},
      {"barrier_hedge", build_barrier_hedge},
      {"guard_rail", build_guard_rail},
      {"kerb_stone", build_kerb_stone},
      {"decal_grime", build_decal_grime},
      {"decal_tyre_marks", build_decal_tyre_marks},
      {"decal_oil", build_decal_oil},
      {"decal_crack", build_decal_crack},
  }};
  PropMesh out;
  const auto& catalog = prop_catalog();
  if (prop >= catalog.size()) {
    return out;
  }
  for (const Entry& e : kBuilders) {
    if (e.id == catalog[prop].id) {
      e.build(out);
      break;
    }
  }
  return out;
}

}  // namespace cityforge::dressing
