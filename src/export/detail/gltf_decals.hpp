// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "cityforge/materials/decals.hpp"

/// Private to the export module: the procedural images of the decal materials ("decal.<kind>",
/// gltf_props.cpp) in city.glb and the tiles (docs/materials.md, "Decals").
namespace cityforge::exporter::detail {

/// The decal a material named "decal.<kind>" shows; nullopt for other names.
std::optional<materials::Decal> decal_of(const std::string& material);

/// One decal's images, made and PNG-encoded.
struct DecalImages {
  double roughness = 0.9;
  std::vector<std::uint8_t> base_colour;  ///< RGBA PNG.
  std::vector<std::uint8_t> normal;       ///< RGB PNG, empty when the decal has no normal map.
};

/// The encoded images of some decals at one size.
struct DecalSet {
  std::array<std::optional<DecalImages>, materials::kDecalCount> decals;
};

/// "decal_<kind>.<map>.png" (map "base_colour" or "normal"): a decal image's file name where
/// it is a file of its own (tiles).
std::string decal_file_name(materials::Decal decal, bool normal);

/// The decals `model`'s materials show (decal_of).
std::array<bool, materials::kDecalCount> decals_used(const tinygltf::Model& model);

/// Makes and encodes the images of the decals marked in `used` at size_px, in parallel.
/// Byte-identical on every machine and thread count.
Result<DecalSet> make_decal_set(const std::array<bool, materials::kDecalCount>& used,
                                std::uint32_t size_px, const std::string& where);

/// Gives every decal material of `model` its images from `set` (which must hold them): with an
/// empty uri_prefix embedded as buffer views, else images referring to uri_prefix +
/// decal_file_name. A clamping trilinear sampler (a decal is one picture over its quad), the
/// base colour factor white and opaque (the picture brings colour and alpha; alphaMode BLEND
/// from gltf_props), the decal's roughness, no metalness; the crack's normal map with TANGENT
/// on its primitives.
void apply_decals(tinygltf::Model& model, const DecalSet& set, const std::string& uri_prefix);

}  // namespace cityforge::exporter::detail
