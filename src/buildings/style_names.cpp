// SPDX-License-Identifier: Apache-2.0
// Names of module tags, materials and mesh kinds as written in BDFs, stats.json and messages.
#include "cityforge/buildings/style.hpp"

namespace cityforge::buildings {

const char* tag_name(std::size_t bit) {
  static constexpr const char* kNames[kModuleTagCount] = {
      "wall",    "window",  "entrance",   "corner",      "balcony", "corner_cap",
      "cornice", "signage", "storefront", "fire_escape", "prop"};
  return bit < kModuleTagCount ? kNames[bit] : "unknown";
}

const char* to_string(Material m) {
  switch (m) {
    case Material::wall:
      return "wall";
    case Material::trim:
      return "trim";
    case Material::glass:
      return "glass";
    case Material::frame:
      return "frame";
    case Material::door:
      return "door";
    case Material::roof:
      return "roof";
    case Material::metal:
      return "metal";
    case Material::sign:
      return "sign";
  }
  return "unknown";
}

const char* to_string(MeshKind k) {
  switch (k) {
    case MeshKind::wall:
      return "wall";
    case MeshKind::window:
      return "window";
    case MeshKind::door:
      return "door";
    case MeshKind::storefront:
      return "storefront";
    case MeshKind::curtain_wall:
      return "curtain_wall";
    case MeshKind::corner:
      return "corner";
    case MeshKind::pilaster:
      return "pilaster";
    case MeshKind::cornice:
      return "cornice";
    case MeshKind::balcony:
      return "balcony";
    case MeshKind::louvre:
      return "louvre";
    case MeshKind::fire_escape:
      return "fire_escape";
    case MeshKind::sign:
      return "sign";
  }
  return "unknown";
}

}  // namespace cityforge::buildings
