// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>

#include "buildings/detail/kit_geometry.hpp"
#include "cityforge/buildings/kit.hpp"

/// Internals of the built-in module kit: the clamped parameters and one generator per MeshKind.
namespace cityforge::buildings::detail {

/// MeshParams after the clamping documented at build_module_mesh, plus the module size.
struct KitParams {
  double w = 1.0;       ///< Module width (x).
  double h = 3.0;       ///< Module height (z).
  double depth = 0.35;  ///< Wall panels fill y in [-depth, 0].
  double inset = 0.15;  ///< Glass plane at y = -inset.
  double frame = 0.08;  ///< Frame / mullion width.
  double opening_w = 0.55;
  double opening_h = 0.55;
  double sill_h = 0.3;
  std::uint32_t mullions_x = 1;
  std::uint32_t mullions_y = 0;
  double projection = 0.25;  ///< projection_m, >= 0.
  double reach = 0.25;       ///< Largest y of the module (module_bounds).
};

/// Clamped parameters, or nothing when the width or height is unusable.
std::optional<KitParams> resolve_kit_params(const ModuleDef& def, double height_m);

inline Mesh& part(ModuleMesh& m, Material mat) { return m.parts[static_cast<std::size_t>(mat)]; }

/// The window opening of `k` (centred, bottom at the sill share, clamped inside the panel).
Opening window_opening(const KitParams& k);

// Generators, one per MeshKind (kit_openings.cpp and kit_solids.cpp).
void build_wall(const KitParams& k, ModuleMesh& out);
void build_window(const KitParams& k, ModuleMesh& out);
void build_door(const KitParams& k, ModuleMesh& out);
void build_storefront(const KitParams& k, ModuleMesh& out);
void build_curtain_wall(const KitParams& k, ModuleMesh& out);
void build_balcony(const KitParams& k, ModuleMesh& out);
void build_corner(const KitParams& k, ModuleMesh& out);
void build_pilaster(const KitParams& k, ModuleMesh& out);
void build_cornice(const KitParams& k, ModuleMesh& out);
void build_louvre(const KitParams& k, ModuleMesh& out);
void build_fire_escape(const KitParams& k, ModuleMesh& out);
void build_sign(const KitParams& k, ModuleMesh& out);

}  // namespace cityforge::buildings::detail
