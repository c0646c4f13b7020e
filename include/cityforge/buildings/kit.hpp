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
ModuleMesh build_module_mesh(const ModuleDef& def, double height_m);

}  // namespace cityforge::buildings
