// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <string>
#include <vector>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/result.hpp"
#include "export/detail/tinygltf.hpp"

/// Private to the export module: building blocks of the glTF writers (one buffer, tightly
/// packed 4-byte aligned views, float32 accessors, y-up conversion, quaternions).
namespace cityforge::exporter::detail {

/// Appends raw bytes as a new bufferView (4-byte aligned) of buffer 0 and returns its index.
int add_view(tinygltf::Model& model, const void* data, std::size_t bytes, int target);
/// Appends an accessor over a whole view and returns its index.
int add_accessor(tinygltf::Model& model, int view, int component, int type, std::size_t count);
/// z-up engine (x, y, z) to y-up glTF (x, z, -y): a proper rotation, so windings survive.
std::array<float, 3> to_y_up(const std::array<float, 3>& v);
/// Adds one primitive's accessors (POSITION with min/max, NORMAL, uint32 indices); fails on a
/// non-finite value, naming `where`.
Result<tinygltf::Primitive> add_primitive(tinygltf::Model& model, const Mesh& mesh, int material,
                                          const std::string& where);
/// Appends one float accessor of `n`-component elements (no buffer view target: instance data).
int add_floats(tinygltf::Model& model, const std::vector<float>& v, int type, std::size_t n);

using Quat = std::array<double, 4>;  ///< x, y, z, w
/// Rotation by `angle` about glTF axis 0 (x), 1 (y) or 2 (z).
Quat quat_axis(int axis, double angle);
/// Hamilton product a * b (apply b first, then a).
Quat quat_mul(const Quat& a, const Quat& b);

}  // namespace cityforge::exporter::detail
