// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "cityforge/gltf/builder.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"

/// Private to the export module: the building blocks of the glTF writers (one buffer, tightly
/// packed 4-byte aligned views, float32 accessors, y-up conversion, quaternions, GLB), from the
/// glTF library, under the names the writers use.
namespace cityforge::exporter::detail {

using gltf::add_accessor;
using gltf::add_floats;
using gltf::add_primitive;
using gltf::add_view;
using gltf::Quat;
using gltf::quat_axis;
using gltf::quat_mul;
using gltf::serialise_glb;
using gltf::to_y_up;

}  // namespace cityforge::exporter::detail
