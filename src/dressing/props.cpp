// SPDX-License-Identifier: Apache-2.0
// The built-in prop catalogue and the names of the dressing enums.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/dressing/dressing.hpp"

namespace cityforge::dressing {
namespace {

std::vector<PropDef> make_catalog() {
  using C = Category;
  // id, category, radius_m, height_m, length_m (x), width_m (y). Tiles: unit shapes; other
  // props: the extent of their mesh along x and y.
  return {
      {"sidewalk_tile", C::sidewalk, 0.0, 0.02, 1.0, 1.0},
      {"sidewalk_corner_out", C::sidewalk, 0.0, 0.02, 1.0, 1.0},
      {"sidewalk_corner_in", C::sidewalk, 0.0, 0.02, 1.0, 1.0},
      {"ground_tile", C::ground, 0.0, 0.02, 1.0, 1.0},
      {"street_light", C::lighting, 0.3, 8.0, 2.45, 0.36},
      {"parking_lamp", C::lighting, 0.3, 6.0, 1.6, 0.36},
      {"street_tree", C::vegetation, 0.6, 7.0, 3.6, 3.6},
      {"park_tree", C::vegetation, 0.6, 10.0, 5.6, 5.6},
      {"bush", C::vegetation, 0.65, 1.0, 1.3, 1.2},
      {"planter", C::vegetation, 0.7, 1.1, 0.6, 1.2},
      {"bench", C::furniture, 0.9, 0.85, 0.65, 1.6},
      {"bin", C::furniture, 0.35, 0.95, 0.6, 0.6},
      {"hydrant", C::furniture, 0.3, 0.8, 0.4, 0.4},
      {"bus_stop", C::furniture, 1.8, 2.6, 1.6, 3.2},
      {"bollard", C::furniture, 0.15, 0.9, 0.24, 0.24},
      {"bike_rack", C::furniture, 0.75, 0.85, 0.7, 1.3},
      {"picnic_table", C::furniture, 1.25, 0.75, 1.6, 1.8},
      {"signal_pole", C::signals, 0.35, 6.5, 4.8, 0.5},
      {"signal_head", C::signals, 0.0, 1.0, 0.45, 0.44},
      {"stop_sign", C::signals, 0.25, 2.5, 0.1, 0.7},
      {"yield_sign", C::signals, 0.25, 2.4, 0.1, 0.9},
      {"car", C::biome, 2.4, 1.5, 4.5, 1.8},
      {"parking_line", C::biome, 0.0, 0.01, 5.0, 0.12},
      {"hvac_unit", C::biome, 1.2, 1.2, 1.8, 1.2},
      {"water_tank", C::biome, 1.8, 5.0, 3.2, 3.2},
      {"roof_vent", C::biome, 0.4, 0.8, 0.6, 0.6},
      {"solar_panel", C::biome, 1.2, 0.9, 1.1, 2.0},
      {"jersey_barrier", C::biome, 1.55, 0.8, 3.0, 0.6},
      {"fountain", C::biome, 2.1, 1.9, 4.0, 4.0},
      {"kiosk", C::biome, 1.5, 2.8, 2.4, 2.0},
      {"umbrella_table", C::biome, 1.2, 2.4, 2.4, 2.4},
      // Barrier segments of imported places: one metre along x (centred), scaled to fit.
      {"barrier_wall", C::furniture, 0.53, 2.0, 1.0, 0.3},
      {"barrier_fence", C::furniture, 0.51, 1.5, 1.0, 0.05},
      {"barrier_hedge", C::furniture, 0.65, 1.2, 1.0, 0.8},
      {"guard_rail", C::furniture, 0.51, 0.75, 1.0, 0.2},
      {"kerb_stone", C::furniture, 0.51, 0.15, 1.0, 0.15},
      // Decals: unit quads (upright grime, the others flat), scaled to their size.
      {"decal_grime", C::decal, 0.0, 1.0, 1.0, 0.01},
      {"decal_tyre_marks", C::decal, 0.0, 0.01, 1.0, 1.0},
      {"decal_oil", C::decal, 0.0, 0.01, 1.0, 1.0},
      {"decal_crack", C::decal, 0.0, 0.01, 1.0, 1.0},
  };
}

}  // namespace

const char* to_string(Category c) {
  switch (c) {
    case Category::sidewalk:
      return "sidewalk";
    case Category::ground:
      return "ground";
    case Category::lighting:
      return "lighting";
    case Category::vegetation:
      return "vegetation";
    case Category::furniture:
      return "furniture";
    case Category::signals:
      return "signals";
    case Category::biome:
      return "biome";
    case Category::decal:
      return "decal";
  }
  return "unknown";
}

const char* to_string(PropMaterial m) {
  switch (m) {
    case PropMaterial::concrete:
      return "concrete";
    case PropMaterial::paving:
      return "paving";
    case PropMaterial::metal:
      return "metal";
    case PropMaterial::paint:
      return "paint";
    case PropMaterial::wood:
      return "wood";
    case PropMaterial::foliage:
      return "foliage";
    case PropMaterial::bark:
      return "bark";
    case PropMaterial::glass:
      return "glass";
    case PropMaterial::light:
      return "light";
    case PropMaterial::sign:
      return "sign";
    case PropMaterial::rubber:
      return "rubber";
    case PropMaterial::grime:
      return "grime";
    case PropMaterial::tyre_marks:
      return "tyre_marks";
    case PropMaterial::oil:
      return "oil";
    case PropMaterial::crack:
      return "crack";
  }
  return "unknown";
}

const char* to_string(ZoneKind k) {
  switch (k) {
    case ZoneKind::plaza:
      return "plaza";
    case ZoneKind::parking:
      return "parking";
    case ZoneKind::freeway_underside:
      return "freeway_underside";
    case ZoneKind::rooftop:
      return "rooftop";
  }
  return "unknown";
}

const char* to_string(Surface s) {
  switch (s) {
    case Surface::road:
      return "road";
    case Surface::sidewalk:
      return "sidewalk";
    case Surface::plaza:
      return "plaza";
    case Surface::park:
      return "park";
    case Surface::ground:
      return "ground";
    case Surface::water:
      return "water";
  }
  return "unknown";
}

const char* to_string(GroundKind k) {
  switch (k) {
    case GroundKind::grass:
      return "grass";
    case GroundKind::park:
      return "park";
    case GroundKind::forest:
      return "forest";
    case GroundKind::scrub:
      return "scrub";
    case GroundKind::farmland:
      return "farmland";
    case GroundKind::sand:
      return "sand";
    case GroundKind::bare:
      return "bare";
    case GroundKind::water:
      return "water";
    case GroundKind::pavement:
      return "pavement";
    case GroundKind::cemetery:
      return "cemetery";
  }
  return "unknown";
}

const char* to_string(BarrierKind k) {
  switch (k) {
    case BarrierKind::wall:
      return "wall";
    case BarrierKind::fence:
      return "fence";
    case BarrierKind::hedge:
      return "hedge";
    case BarrierKind::guard_rail:
      return "guard_rail";
    case BarrierKind::kerb:
      return "kerb";
  }
  return "unknown";
}

const std::vector<PropDef>& prop_catalog() {
  // Immutable after its thread-safe initialisation.
  static const std::vector<PropDef> catalog = make_catalog();
  return catalog;
}

std::int32_t find_prop(std::string_view id) {
  const auto& catalog = prop_catalog();
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    if (catalog[i].id == id) {
      return static_cast<std::int32_t>(i);
    }
  }
  return -1;
}

std::size_t PropMesh::triangle_count() const {
  std::size_t n = 0;
  for (const Mesh& m : parts) {
    n += m.triangle_count();
  }
  return n;
}

}  // namespace cityforge::dressing
