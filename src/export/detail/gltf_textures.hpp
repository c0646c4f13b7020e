// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cityforge/buildings/style.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "cityforge/materials/textures.hpp"

/// Private to the export module: the procedural textures of city.glb's materials
/// (docs/materials.md).
namespace cityforge::exporter::detail {

/// The surface a city.glb material takes, by its name: the chunk parts (roads asphalt, sidewalks
/// paving, ...), "<style>.<material>" and "<style>.roof.<material>" by the style's `surfaces`,
/// "prop.<material>", "rooftop.<material>.<colour>"; nullopt for plain colour (markings, water,
/// signs, tile markers) and for names it does not know.
std::optional<materials::Surface> surface_of(const std::string& material,
                                             const buildings::StyleLibrary* styles);

/// Gives every material of `model` with a surface (surface_of) that surface's textures at
/// size_px: base colour, normal and metallic-roughness images embedded as PNG buffer views
/// (one set per surface used), one repeating trilinear sampler, and KHR_texture_transform
/// scaling the metre-scale TEXCOORD_0 to one repeat per repeat_m metres. The material's colour
/// is divided by the texture's mean shade (up to 1) so its average brightness stays. Nothing
/// when size_px is 0. Byte-identical for the same model.
Status add_textures(tinygltf::Model& model, const buildings::StyleLibrary* styles,
                    std::uint32_t size_px, const std::string& where);

}  // namespace cityforge::exporter::detail
