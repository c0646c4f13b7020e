// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cityforge/buildings/style.hpp"
#include "cityforge/core/result.hpp"
#include "cityforge/gltf/tinygltf_model.hpp"
#include "cityforge/materials/textures.hpp"
#include "export/detail/gltf_decals.hpp"

/// Private to the export module: the procedural textures of city.glb's materials
/// (docs/materials.md).
namespace cityforge::exporter::detail {

/// The surface a city.glb material takes, by its name: the chunk parts (roads asphalt, sidewalks
/// paving, ...), "<style>.<material>" and "<style>.roof.<material>" by the style's `surfaces`,
/// "prop.<material>", "rooftop.<material>.<colour>"; nullopt for plain colour (markings, water,
/// signs, tile markers) and for names it does not know.
std::optional<materials::Surface> surface_of(const std::string& material,
                                             const buildings::StyleLibrary* styles);

/// One surface's textures, made and PNG-encoded: base colour, normal, metallic-roughness.
struct SurfaceTextures {
  double size_m = 1.0;       ///< One repeat, metres.
  double mean_linear = 1.0;  ///< The base colour's mean shade (the colour is divided by it).
  std::array<std::vector<std::uint8_t>, 3> png;
};

/// The encoded textures of some surfaces at one size.
struct TextureSet {
  std::array<std::optional<SurfaceTextures>, materials::kSurfaceCount> surfaces;
  /// The decals' pictures (make_decal_set), for the "decal.<kind>" materials.
  DecalSet decals;
};

/// The three maps' names, in SurfaceTextures::png's order.
constexpr std::array<const char*, 3> kTextureMaps{"base_colour", "normal", "metallic_roughness"};

/// A PNG image of `png` bytes named `name`: embedded as a buffer view when `uri` is empty, else
/// referring to the file at `uri` (files shared by many glbs); returns its index.
int add_image(tinygltf::Model& model, const std::vector<std::uint8_t>& png, const std::string& name,
              const std::string& uri);

/// A texture of `image` through `sampler`; returns its index.
int add_texture(tinygltf::Model& model, int image, int sampler);

/// A trilinear sampler (linear magnification, linear mipmaps) wrapping `wrap` (a glTF wrap
/// mode) on both axes; returns its index.
int add_sampler(tinygltf::Model& model, const std::string& name, int wrap);

/// "<surface>.<map>.png": a texture's file name where it is an image file of its own (tiles).
std::string texture_file_name(materials::Surface surface, std::size_t map);

/// The surfaces `model`'s materials take (surface_of).
std::array<bool, materials::kSurfaceCount> surfaces_used(const tinygltf::Model& model,
                                                         const buildings::StyleLibrary* styles);

/// Makes and encodes the textures of the surfaces marked in `used` at size_px, in parallel.
/// Byte-identical on every machine and thread count.
Result<TextureSet> make_texture_set(const std::array<bool, materials::kSurfaceCount>& used,
                                    std::uint32_t size_px, const std::string& where);

/// Gives every material of `model` with a surface (surface_of) that surface's textures from
/// `set` (which must hold it): with an empty uri_prefix the PNGs are embedded as buffer views
/// (one set per surface used), else they are images referring to uri_prefix +
/// texture_file_name (files shared by many glbs, such as the tiles'). One repeating trilinear
/// sampler, KHR_texture_transform scaling the metre-scale TEXCOORD_0 to one repeat per size_m,
/// the material's colour divided by the texture's mean shade (up to 1) so its average
/// brightness stays, and TANGENT on the normal-mapped primitives. The "decal.<kind>" materials
/// take their pictures from set.decals the same way (apply_decals; which must hold them).
void apply_textures(tinygltf::Model& model, const buildings::StyleLibrary* styles,
                    const TextureSet& set, const std::string& uri_prefix);

/// TANGENT (float32 VEC4) of a primitive with POSITION, NORMAL, TEXCOORD_0 and indices: per
/// vertex the direction in which u grows, made orthogonal to the normal; w = +1 where the
/// bitangent (normal x tangent) points up the image (where v falls), else -1 (glTF's convention
/// for normal maps). Returns the new accessor.
int add_tangents(tinygltf::Model& model, const tinygltf::Primitive& prim);

/// surfaces_used, make_texture_set (with the decals_used pictures) and apply_textures with
/// embedded images: city.glb's textures. Nothing when size_px is 0 (decal materials then stay
/// fully transparent). Byte-identical for the same model.
Status add_textures(tinygltf::Model& model, const buildings::StyleLibrary* styles,
                    std::uint32_t size_px, const std::string& where);

}  // namespace cityforge::exporter::detail
