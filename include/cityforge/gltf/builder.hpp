// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "cityforge/core/result.hpp"

/// A small glTF 2.0 writer with no city types and no third-party types, for generators that
/// are not cities (the islands): materials, accessors in one buffer, triangle meshes and nodes,
/// serialised as GLB. The exporters build their larger files on the same code through
/// cityforge/gltf/tinygltf_model.hpp. Coordinates are glTF's (y up); to_y_up converts the
/// engine's z-up frame.
namespace cityforge::gltf {

/// z-up engine (x, y, z) to y-up glTF (x, z, -y): a proper rotation, so windings survive. -0
/// becomes +0, so min/max never read "-0.0".
std::array<float, 3> to_y_up(const std::array<float, 3>& v);

using Quat = std::array<double, 4>;  ///< x, y, z, w
/// Rotation by `angle` (radians) about glTF axis 0 (x), 1 (y) or 2 (z).
Quat quat_axis(int axis, double angle);
/// Hamilton product a * b (apply b first, then a).
Quat quat_mul(const Quat& a, const Quat& b);

/// A value of the asset's extras object (an integer stays an integer in the JSON; a vector is
/// an array of numbers).
using Extra = std::variant<bool, int, double, std::string, std::vector<double>>;

/// A metallic-roughness material; unset members keep glTF's defaults.
struct Material {
  std::string name;
  std::array<double, 4> base_colour{1.0, 1.0, 1.0, 1.0};  ///< Linear RGB and alpha.
  double metallic = 1.0;                                  ///< [Limit: 0 .. 1]
  double roughness = 1.0;                                 ///< [Limit: 0 .. 1]
  bool blend = false;  ///< alphaMode BLEND (the alpha is see-through); else OPAQUE.
};

/// One triangle primitive: accessors by attribute name ("POSITION", "NORMAL", "COLOR_0", ...).
struct Primitive {
  std::map<std::string, int> attributes;
  int indices = -1;   ///< Accessor of the triangle corners; -1: none.
  int material = -1;  ///< -1: glTF's default material.
};

/// A node; the first node added is the scene's root.
struct Node {
  std::string name;
  int mesh = -1;  ///< -1: none.
  std::vector<int> children{};
};

/// Builds one glTF model (asset version 2.0, generator "cityforge") in memory. Indices returned
/// by add_* are glTF indices, in order of addition; every accessor gets its own tightly packed,
/// 4-byte aligned view of the one buffer. Same calls give byte-identical files.
class Builder {
 public:
  Builder();
  ~Builder();
  Builder(Builder&&) noexcept;
  Builder& operator=(Builder&&) noexcept;
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  /// Room for `bytes` of buffer data, so adding views does not move what is there (a hint; the
  /// file is the same with or without it).
  void reserve(std::size_t bytes);
  /// Sets the asset's extras object (keys are written sorted).
  void set_extras(const std::map<std::string, Extra>& extras);
  int add_material(const Material& material);
  /// A float32 VEC3 accessor over an ARRAY_BUFFER view; with `bounds`, its min and max (glTF
  /// requires them for POSITION).
  int add_vec3(std::span<const std::array<float, 3>> values, bool bounds);
  /// A float32 VEC2 accessor over an ARRAY_BUFFER view (texture coordinates).
  int add_vec2(std::span<const std::array<float, 2>> values);
  /// A normalised uint8 VEC4 accessor over an ARRAY_BUFFER view (colours, 0..255 as 0..1).
  int add_vec4_u8(std::span<const std::array<std::uint8_t, 4>> values);
  /// A uint32 SCALAR accessor over an ELEMENT_ARRAY_BUFFER view (triangle corners).
  int add_indices(std::span<const std::uint32_t> indices);
  /// An image stored in the buffer (a view without a target), e.g. a PNG file's bytes with
  /// `mime_type` "image/png"; returns its index in `images`.
  int add_image(const std::string& name, std::span<const std::uint8_t> bytes,
                const std::string& mime_type);
  /// A mesh of triangle primitives.
  int add_mesh(const std::string& name, const std::vector<Primitive>& primitives);
  int add_node(const Node& node);
  /// The GLB file: one scene `scene_name` holding node 0. The builder is spent afterwards.
  /// Errors name "<scene_name>.glb".
  Result<std::vector<std::uint8_t>> glb(const std::string& scene_name);

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace cityforge::gltf
