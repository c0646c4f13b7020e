// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to the prop kit: one builder per catalogue prop, split over prop_kit*.cpp.

#include "cityforge/dressing/dressing.hpp"

namespace cityforge::dressing::detail {

/// The part of `mesh` made of `m`.
inline Mesh& part(PropMesh& mesh, PropMaterial m) {
  return mesh.parts[static_cast<std::size_t>(m)];
}

/// Builds one prop into an empty PropMesh.
using PropBuilder = void (*)(PropMesh&);

// prop_kit.cpp: tiles, lighting, vegetation.
void build_sidewalk_tile(PropMesh& out);
void build_sidewalk_corner_out(PropMesh& out);
void build_sidewalk_corner_in(PropMesh& out);
void build_ground_tile(PropMesh& out);
void build_street_light(PropMesh& out);
void build_parking_lamp(PropMesh& out);
void build_street_tree(PropMesh& out);
void build_park_tree(PropMesh& out);
void build_bush(PropMesh& out);
void build_planter(PropMesh& out);

// prop_kit_street.cpp: furniture, signals.
void build_bench(PropMesh& out);
void build_bin(PropMesh& out);
void build_hydrant(PropMesh& out);
void build_bus_stop(PropMesh& out);
void build_bollard(PropMesh& out);
void build_bike_rack(PropMesh& out);
void build_picnic_table(PropMesh& out);
void build_signal_pole(PropMesh& out);
void build_signal_head(PropMesh& out);
void build_stop_sign(PropMesh& out);
void build_yield_sign(PropMesh& out);

// prop_kit_biome.cpp: props of the biomes.
void build_car(PropMesh& out);
void build_parking_line(PropMesh& out);
void build_hvac_unit(PropMesh& out);
void build_water_tank(PropMesh& out);
void build_roof_vent(PropMesh& out);
void build_solar_panel(PropMesh& out);
void build_jersey_barrier(PropMesh& out);
void build_fountain(PropMesh& out);
void build_kiosk(PropMesh& out);
void build_umbrella_table(PropMesh& out);

// prop_kit_barrier.cpp: barrier segments of imported places (one metre along x, scaled to fit).
void build_barrier_wall(PropMesh& out);
void build_barrier_fence(PropMesh& out);
void build_barrier_hedge(PropMesh& out);
void build_guard_rail(PropMesh& out);
void build_kerb_stone(PropMesh& out);

// decals.cpp: unit decal quads with texture coordinates 0..1 (dressing.hpp, kDecalLiftM).
void build_decal_grime(PropMesh& out);
void build_decal_tyre_marks(PropMesh& out);
void build_decal_oil(PropMesh& out);
void build_decal_crack(PropMesh& out);

}  // namespace cityforge::dressing::detail
