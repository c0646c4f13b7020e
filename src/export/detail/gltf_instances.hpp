// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cityforge/core/mesh.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "export/detail/tinygltf.hpp"

/// Private to the export module: writing instances of kit meshes (facade modules, props) in one
/// of three ways, so every tool can read the city (pipeline::InstanceMode).
namespace cityforge::exporter::detail {

/// A kit mesh in its own frame (engine axes, z up), split by glTF material index.
struct KitMesh {
  std::string name;
  std::vector<std::pair<int, Mesh>> parts;  ///< (material, mesh), non-empty meshes only.
  /// TEXCOORD_1 per part (parallel to `parts`, one per position), or empty: none. Facade
  /// modules: 0..1 across the module (docs/materials.md).
  std::vector<std::vector<std::array<float, 2>>> uv1;
  int gltf_mesh = -1;  ///< Made on first use (ext and nodes modes).
};

/// One instance: position (engine metres), yaw about +z, scale along the kit's x, y, z.
struct Placement {
  std::array<float, 3> position{};
  float yaw_rad = 0.0f;
  std::array<float, 3> scale{1.0f, 1.0f, 1.0f};
};

/// Per-instance attributes written in ext mode as EXT_mesh_gpu_instancing "_NAME" accessors:
/// float32 (`wide`) or unsigned short.
struct InstanceAttribute {
  std::string name;  ///< With its leading underscore, e.g. "_ROOM".
  bool wide = true;
  std::vector<float> floats;
  std::vector<std::uint16_t> shorts;
};

/// Writes groups of instances under parent nodes.
///  - ext: one node "<parent>.<kit name>" per group with EXT_mesh_gpu_instancing (TRANSLATION
///    float, ROTATION normalised shorts, SCALE float, plus the attributes).
///  - nodes: one child node per instance with its own translation, rotation and scale.
///  - bake: the transformed triangles merged into one mesh per parent ("<parent>.baked", a
///    primitive per material), written by finish().
class InstanceWriter {
 public:
  InstanceWriter(tinygltf::Model& model, pipeline::InstanceMode mode)
      : m_model(model), m_mode(mode) {}
  Status add(int parent, KitMesh& kit, const std::vector<Placement>& placements,
             const std::vector<InstanceAttribute>& attributes);
  /// Writes the baked meshes (bake mode); a no-op otherwise. Call once after the last add().
  Status finish();

 private:
  Status ensure_mesh(KitMesh& kit);
  tinygltf::Model& m_model;
  pipeline::InstanceMode m_mode;
  /// bake: per parent node, per material, the merged mesh.
  std::map<int, std::map<int, Mesh>> m_baked;
  /// bake: their TEXCOORD_1 where a kit with one was merged (zeros for the vertices of kits
  /// without), else empty.
  std::map<int, std::map<int, std::vector<std::array<float, 2>>>> m_baked_uv1;
};

}  // namespace cityforge::exporter::detail
