// SPDX-License-Identifier: Apache-2.0
// The decal materials' images (docs/materials.md, "Decals"): each decal a transparent picture
// over its quad, through a clamping sampler, blended over the surface under it.
// Based on: The Khronos Group, glTF 2.0 Specification (alphaMode BLEND, samplers, images by
// URI or buffer view).
#include "export/detail/gltf_decals.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <string_view>

#include "export/detail/gltf_model.hpp"
#include "export/detail/gltf_textures.hpp"

namespace cityforge::exporter::detail {
namespace {

using materials::Decal;

}  // namespace

std::optional<Decal> decal_of(const std::string& material) {
  constexpr std::string_view kPrefix = "decal.";
  const std::string_view name = material;
  if (!name.starts_with(kPrefix)) return std::nullopt;
  Decal d{};
  if (!materials::decal_from_string(name.substr(kPrefix.size()), &d)) return std::nullopt;
  return d;
}

std::string decal_file_name(Decal decal, bool normal) {
  return std::string("decal_") + materials::to_string(decal) +
         (normal ? ".normal.png" : ".base_colour.png");
}

std::array<bool, materials::kDecalCount> decals_used(const tinygltf::Model& model) {
  std::array<bool, materials::kDecalCount> used{};
  for (const tinygltf::Material& m : model.materials) {
    if (const std::optional<Decal> d = decal_of(m.name)) used[static_cast<std::size_t>(*d)] = true;
  }
  return used;
}

Result<DecalSet> make_decal_set(const std::array<bool, materials::kDecalCount>& used,
                                std::uint32_t size_px, const std::string& where) {
  std::array<std::optional<Error>, materials::kDecalCount> errors;
  DecalSet set;
  tbb::parallel_for(std::size_t{0}, materials::kDecalCount, [&](std::size_t i) {
    if (!used[i]) return;
    Result<materials::DecalTextures> t =
        materials::make_decal(static_cast<Decal>(i), size_px, where);
    if (!t) {
      errors[i] = t.error();
      return;
    }
    DecalImages images;
    images.roughness = t->roughness;
    Result<std::vector<std::uint8_t>> base = materials::encode_png(t->base_colour, where);
    if (!base) {
      errors[i] = base.error();
      return;
    }
    images.base_colour = std::move(*base);
    if (t->has_normal) {
      Result<std::vector<std::uint8_t>> normal = materials::encode_png(t->normal, where);
      if (!normal) {
        errors[i] = normal.error();
        return;
      }
      images.normal = std::move(*normal);
    }
    set.decals[i] = std::move(images);
  });
  for (const std::optional<Error>& e : errors) {
    if (e) return *e;
  }
  return set;
}

void apply_decals(tinygltf::Model& model, const DecalSet& set, const std::string& uri_prefix) {
  const std::array<bool, materials::kDecalCount> used = decals_used(model);
  if (std::none_of(used.begin(), used.end(), [](bool u) { return u; })) return;
  // 1. One clamping sampler: a decal's picture must not wrap round onto its opposite border.
  const int sampler_index = add_sampler(model, "decal", TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE);
  // 2. Images and textures of the decals used, in decal order.
  std::array<std::array<int, 2>, materials::kDecalCount> texture{};
  for (std::size_t i = 0; i < materials::kDecalCount; ++i) {
    texture[i] = {-1, -1};
    if (!used[i] || !set.decals[i]) continue;
    const auto d = static_cast<Decal>(i);
    const DecalImages& images = *set.decals[i];
    for (const bool normal : {false, true}) {
      const std::vector<std::uint8_t>& png = normal ? images.normal : images.base_colour;
      if (png.empty()) continue;
      const std::string file = decal_file_name(d, normal);
      const std::string name = file.substr(0, file.size() - 4);  // without ".png"
      const int image =
          add_image(model, png, name, uri_prefix.empty() ? std::string() : uri_prefix + file);
      texture[i][normal ? 1 : 0] = add_texture(model, image, sampler_index);
    }
  }
  // 3. The materials.
  std::vector<bool> normal_mapped(model.materials.size(), false);
  for (std::size_t m = 0; m < model.materials.size(); ++m) {
    tinygltf::Material& mat = model.materials[m];
    const std::optional<Decal> d = decal_of(mat.name);
    if (!d) continue;
    const auto i = static_cast<std::size_t>(*d);
    if (texture[i][0] < 0) continue;
    tinygltf::PbrMetallicRoughness& pbr = mat.pbrMetallicRoughness;
    pbr.baseColorFactor = {1.0, 1.0, 1.0, 1.0};
    pbr.baseColorTexture.index = texture[i][0];
    pbr.roughnessFactor = set.decals[i]->roughness;
    pbr.metallicFactor = 0.0;
    mat.alphaMode = "BLEND";
    mat.doubleSided = false;
    if (texture[i][1] >= 0) {
      mat.normalTexture.index = texture[i][1];
      normal_mapped[m] = true;
    }
  }
  // 4. Tangents where a normal map is used.
  for (tinygltf::Mesh& mesh : model.meshes) {
    for (tinygltf::Primitive& prim : mesh.primitives) {
      if (prim.material < 0 || !normal_mapped[static_cast<std::size_t>(prim.material)]) continue;
      if (prim.attributes.count("TEXCOORD_0") == 0U || prim.indices < 0) continue;
      if (prim.attributes.count("TANGENT") != 0U) continue;
      prim.attributes["TANGENT"] = add_tangents(model, prim);
    }
  }
}

}  // namespace cityforge::exporter::detail
