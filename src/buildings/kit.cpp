// SPDX-License-Identifier: Apache-2.0
// The built-in module kit (seeds/000, 25:25): parameter clamping, bounds and the dispatch to
// one generator per MeshKind (kit_openings.cpp, kit_solids.cpp).
#include "cityforge/buildings/kit.hpp"

#include <algorithm>
#include <cmath>

#include "buildings/detail/kit_modules.hpp"

namespace cityforge::buildings {
namespace detail {
namespace {

constexpr std::uint32_t kMaxBars = 16;
constexpr double kMinReach = 0.1;

double finite_or(double v, double fallback) { return std::isfinite(v) ? v : fallback; }

double reach_of(MeshKind kind, double projection) {
  switch (kind) {
    case MeshKind::fire_escape:
      return projection > 0.8 ? projection : 1.2;
    case MeshKind::sign:
      return std::max(projection, 0.6);
    default:
      return std::max(projection, kMinReach);
  }
}

}  // namespace

std::optional<KitParams> resolve_kit_params(const ModuleDef& def, double height_m) {
  if (!(std::isfinite(def.width_m) && def.width_m > 0.0 && std::isfinite(height_m) &&
        height_m > 0.0)) {
    return std::nullopt;
  }
  const MeshParams defaults;
  const MeshParams& p = def.params;
  KitParams k;
  k.w = def.width_m;
  k.h = height_m;
  k.depth = std::max(finite_or(p.depth_m, defaults.depth_m), 0.02);
  k.inset = std::clamp(finite_or(p.inset_m, defaults.inset_m), 0.0, k.depth - 0.02);
  k.frame = std::clamp(finite_or(p.frame_m, defaults.frame_m), 0.0, 0.5);
  k.opening_w = std::clamp(finite_or(p.opening_w, defaults.opening_w), 0.02, 0.98);
  k.opening_h = std::clamp(finite_or(p.opening_h, defaults.opening_h), 0.02, 0.98);
  k.sill_h = std::clamp(finite_or(p.sill_h, defaults.sill_h), 0.0, 0.95);
  k.mullions_x = std::min(p.mullions_x, kMaxBars);
  k.mullions_y = std::min(p.mullions_y, kMaxBars);
  k.projection = std::clamp(finite_or(p.projection_m, defaults.projection_m), 0.0, 5.0);
  k.reach = reach_of(def.mesh, k.projection);
  return k;
}

Opening window_opening(const KitParams& k) {
  const double margin_z = std::max(0.01, 0.02 * k.h);
  const double ow = k.opening_w * k.w;
  Opening o;
  o.x0 = 0.5 * (k.w - ow);
  o.x1 = 0.5 * (k.w + ow);
  o.z0 = std::min(k.sill_h * k.h, k.h - margin_z);
  o.z1 = std::min(o.z0 + k.opening_h * k.h, k.h - margin_z);
  return o;
}

}  // namespace detail

std::size_t ModuleMesh::triangle_count() const {
  std::size_t n = 0;
  for (const Mesh& m : parts) {
    n += m.triangle_count();
  }
  return n;
}

ModuleMesh build_module_mesh(const ModuleDef& def, double height_m) {
  ModuleMesh out;
  const auto k = detail::resolve_kit_params(def, height_m);
  if (!k) {
    return out;
  }
  switch (def.mesh) {
    case MeshKind::wall:
      detail::build_wall(*k, out);
      break;
    case MeshKind::window:
      detail::build_window(*k, out);
      break;
    case MeshKind::door:
      detail::build_door(*k, out);
      break;
    case MeshKind::storefront:
      detail::build_storefront(*k, out);
      break;
    case MeshKind::curtain_wall:
      detail::build_curtain_wall(*k, out);
      break;
    case MeshKind::corner:
      detail::build_corner(*k, out);
      break;
    case MeshKind::pilaster:
      detail::build_pilaster(*k, out);
      break;
    case MeshKind::cornice:
      detail::build_cornice(*k, out);
      break;
    case MeshKind::balcony:
      detail::build_balcony(*k, out);
      break;
    case MeshKind::louvre:
      detail::build_louvre(*k, out);
      break;
    case MeshKind::fire_escape:
      detail::build_fire_escape(*k, out);
      break;
    case MeshKind::sign:
      detail::build_sign(*k, out);
      break;
  }
  return out;
}

ModuleBounds module_bounds(const ModuleDef& def, double height_m) {
  ModuleBounds b;
  const auto k = detail::resolve_kit_params(def, height_m);
  if (!k) {
    return b;
  }
  const bool wide = def.mesh == MeshKind::corner || def.mesh == MeshKind::pilaster;
  const double e = wide ? k->projection : 0.0;
  b.min = {-e, -k->depth, 0.0};
  b.max = {k->w + e, k->reach, k->h};
  return b;
}

}  // namespace cityforge::buildings
