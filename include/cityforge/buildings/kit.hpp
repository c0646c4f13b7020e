// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>

#include "cityforge/buildings/style.hpp"
#include "cityforge/core/mesh.hpp"

/// The built-in module kit: procedural meshes for facade modules, so the default city needs no
/// external art (the "building module template generator" of seeds/000, 25:25).
namespace cityforge::buildings {

/// A module mesh split by material (parts[Material]); empty parts are allowed.
/// Module frame (metres): x along the facade from 0 to width, z up from 0 to height, y out of
/// the building; the facade plane is y = 0. Wall panels fill y in [-depth, 0]; frames, sills,
/// cornices, canopies, balconies, pilasters and fire escapes may stick out to y > 0; glass sits
/// at y = -inset. Corner and pilaster modules may extend up to projection_m beyond x = 0 and
/// x = width so two corner pieces meeting at a convex corner close it. Triangles are
/// counter-clockwise seen from outside; normals are unit length; every part is closed enough
/// that no back face shows from the street side.
struct ModuleMesh {
  std::array<Mesh, kMaterialCount> parts;
  std::size_t triangle_count() const;
};

/// Builds the mesh of `def` at its natural size (width_m x height), where `height_m` is the
/// module height to use (def.height_m, or the floor height when def.height_m is 0).
/// Deterministic; the same def gives byte-identical meshes.
/// Non-finite parameters fall back to the MeshParams defaults; depth_m is raised to >= 0.02,
/// inset_m clamped to [0, depth_m - 0.02], shares to [0.02, 0.98] (sill_h to [0, 0.95]),
/// projection_m to [0, 5], mullion counts to <= 16 (and fewer when the bars would fill more
/// than half the glass). Openings are centred along x and clamped inside the panel.
/// Returns empty parts when width_m or height_m is not a positive finite number.
ModuleMesh build_module_mesh(const ModuleDef& def, double height_m);

/// Axis-aligned box (module frame, metres) holding every vertex of build_module_mesh(def,
/// height_m): x in [-e, width_m + e] with e = projection_m for corner and pilaster modules (0
/// otherwise), z in [0, height_m], y in [-depth_m, reach], where reach is projection_m but at
/// least 0.1 m (sills and frames stick out a little even at projection 0), at least 0.6 m for
/// sign modules, and 1.2 m for fire_escape modules unless projection_m > 0.8. Uses the clamped
/// parameters described at build_module_mesh; all zero when that returns empty parts.
struct ModuleBounds {
  std::array<double, 3> min{};
  std::array<double, 3> max{};
};
ModuleBounds module_bounds(const ModuleDef& def, double height_m);

}  // namespace cityforge::buildings
