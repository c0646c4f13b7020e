// SPDX-License-Identifier: Apache-2.0
// The procedural textures of city.glb: which material takes which surface, and the images,
// textures and sampler that give it (docs/materials.md).
// Based on: The Khronos Group, glTF 2.0 Specification (images in buffer views, samplers,
// metallic-roughness materials); KHR_texture_transform extension specification.
#include "export/detail/gltf_textures.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <string_view>
#include <vector>

#include "export/detail/gltf_model.hpp"

namespace cityforge::exporter::detail {
namespace {

using materials::Surface;

constexpr const char* kTransform = "KHR_texture_transform";

/// The chunk parts' surfaces (part_name's names); absent: plain colour.
const std::map<std::string_view, Surface>& part_surfaces() {
  static const std::map<std::string_view, Surface> kParts = {
      {"terrain", Surface::grass},         {"road_artery", Surface::asphalt},
      {"road_main", Surface::asphalt},     {"road_local", Surface::asphalt},
      {"sidewalk", Surface::paving},       {"block", Surface::paving},
      {"volume", Surface::concrete},       {"roof", Surface::roofing},
      {"parapet", Surface::concrete},      {"freeway", Surface::concrete},
      {"ground_grass", Surface::grass},    {"ground_park", Surface::grass},
      {"ground_forest", Surface::soil},    {"ground_scrub", Surface::grass},
      {"ground_farmland", Surface::soil},  {"ground_sand", Surface::sand},
      {"ground_bare", Surface::soil},      {"ground_pavement", Surface::paving},
      {"ground_cemetery", Surface::grass}, {"path", Surface::paving},
  };
  return kParts;
}

/// The prop materials' surfaces (dressing::to_string(PropMaterial)'s names).
const std::map<std::string_view, Surface>& prop_surfaces() {
  static const std::map<std::string_view, Surface> kProps = {
      {"concrete", Surface::concrete}, {"paving", Surface::paving}, {"metal", Surface::metal},
      {"wood", Surface::wood},         {"bark", Surface::wood},     {"glass", Surface::glass},
  };
  return kProps;
}

/// A building material's surface in `style` (its `surfaces`), by material name.
std::optional<Surface> style_surface(const buildings::Style& style, std::string_view material) {
  for (std::size_t m = 0; m < buildings::kMaterialCount; ++m) {
    if (material == buildings::to_string(static_cast<buildings::Material>(m)))
      return style.surfaces[m];
  }
  return std::nullopt;
}

std::string_view before_dot(std::string_view s) { return s.substr(0, s.find('.')); }

/// KHR_texture_transform scaling metres to repeats.
tinygltf::ExtensionMap repeat_every(double metres) {
  tinygltf::Value::Object transform;
  const double s = 1.0 / metres;
  transform["scale"] =
      tinygltf::Value(tinygltf::Value::Array{tinygltf::Value(s), tinygltf::Value(s)});
  tinygltf::ExtensionMap ext;
  ext[kTransform] = tinygltf::Value(std::move(transform));
  return ext;
}

/// A float accessor's elements (tightly packed, as add_primitive writes them).
template <std::size_t N>
std::vector<std::array<float, N>> read_floats(const tinygltf::Model& model, int accessor) {
  const tinygltf::Accessor& a = model.accessors[static_cast<std::size_t>(accessor)];
  const tinygltf::BufferView& v = model.bufferViews[static_cast<std::size_t>(a.bufferView)];
  std::vector<std::array<float, N>> out(a.count);
  std::memcpy(out.data(), model.buffers[0].data.data() + v.byteOffset + a.byteOffset,
              a.count * N * sizeof(float));
  return out;
}

}  // namespace

int add_tangents(tinygltf::Model& model, const tinygltf::Primitive& prim) {
  const auto p = read_floats<3>(model, prim.attributes.at("POSITION"));
  const auto n = read_floats<3>(model, prim.attributes.at("NORMAL"));
  const auto uv = read_floats<2>(model, prim.attributes.at("TEXCOORD_0"));
  const tinygltf::Accessor& ia = model.accessors[static_cast<std::size_t>(prim.indices)];
  const tinygltf::BufferView& iv = model.bufferViews[static_cast<std::size_t>(ia.bufferView)];
  std::vector<std::uint32_t> idx(ia.count);
  std::memcpy(idx.data(), model.buffers[0].data.data() + iv.byteOffset + ia.byteOffset,
              ia.count * 4);
  std::vector<std::array<double, 3>> du(p.size(), {0.0, 0.0, 0.0});
  std::vector<std::array<double, 3>> dv(p.size(), {0.0, 0.0, 0.0});
  for (std::size_t t = 0; t + 2 < idx.size(); t += 3) {
    const std::uint32_t a = idx[t], b = idx[t + 1], c = idx[t + 2];
    std::array<double, 3> e1{}, e2{};
    for (std::size_t k = 0; k < 3; ++k) {
      e1[k] = double{p[b][k]} - p[a][k];
      e2[k] = double{p[c][k]} - p[a][k];
    }
    const double s1 = double{uv[b][0]} - uv[a][0], t1 = double{uv[b][1]} - uv[a][1];
    const double s2 = double{uv[c][0]} - uv[a][0], t2 = double{uv[c][1]} - uv[a][1];
    const double det = s1 * t2 - s2 * t1;
    if (!(std::fabs(det) > 1e-12)) continue;
    for (std::size_t k = 0; k < 3; ++k) {
      // Area-weighted (not divided by det's magnitude, only its sign).
      const double su = (e1[k] * t2 - e2[k] * t1) * (det > 0.0 ? 1.0 : -1.0);
      const double sv = (e2[k] * s1 - e1[k] * s2) * (det > 0.0 ? 1.0 : -1.0);
      for (const std::uint32_t v : {a, b, c}) {
        du[v][k] += su;
        dv[v][k] += sv;
      }
    }
  }
  std::vector<std::array<float, 4>> tangents(p.size());
  for (std::size_t v = 0; v < p.size(); ++v) {
    const std::array<double, 3> nv{n[v][0], n[v][1], n[v][2]};
    auto along = du[v];
    const double d = along[0] * nv[0] + along[1] * nv[1] + along[2] * nv[2];
    for (std::size_t k = 0; k < 3; ++k)
      along[k] -= d * nv[k];
    double len = std::sqrt(along[0] * along[0] + along[1] * along[1] + along[2] * along[2]);
    if (!(len > 1e-9)) {
      // No texture gradient here (a sliver): any direction in the surface.
      along = std::fabs(nv[0]) < 0.9
                  ? std::array<double, 3>{1.0 - nv[0] * nv[0], -nv[0] * nv[1], -nv[0] * nv[2]}
                  : std::array<double, 3>{-nv[1] * nv[0], 1.0 - nv[1] * nv[1], -nv[1] * nv[2]};
      len = std::sqrt(along[0] * along[0] + along[1] * along[1] + along[2] * along[2]);
    }
    for (std::size_t k = 0; k < 3; ++k)
      along[k] /= len;
    // Bitangent n x t against the direction in which v falls (up the image).
    const std::array<double, 3> bt{nv[1] * along[2] - nv[2] * along[1],
                                   nv[2] * along[0] - nv[0] * along[2],
                                   nv[0] * along[1] - nv[1] * along[0]};
    const double up = -(bt[0] * dv[v][0] + bt[1] * dv[v][1] + bt[2] * dv[v][2]);
    tangents[v] = {static_cast<float>(along[0]), static_cast<float>(along[1]),
                   static_cast<float>(along[2]), up < 0.0 ? -1.0f : 1.0f};
  }
  const int view = add_view(model, tangents.data(), tangents.size() * sizeof(tangents[0]),
                            TINYGLTF_TARGET_ARRAY_BUFFER);
  return add_accessor(model, view, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC4,
                      tangents.size());
}

std::optional<materials::Surface> surface_of(const std::string& material,
                                             const buildings::StyleLibrary* styles) {
  const auto part = part_surfaces().find(material);
  if (part != part_surfaces().end()) return part->second;
  const std::string_view name = material;
  const std::string_view head = before_dot(name);
  if (head.size() == name.size()) return std::nullopt;
  std::string_view rest = name.substr(head.size() + 1);
  if (head == "prop") {
    const auto p = prop_surfaces().find(rest);
    return p != prop_surfaces().end() ? std::optional<Surface>(p->second) : std::nullopt;
  }
  if (head == "rooftop") {
    // "rooftop.<building material>.<colour>": the built-in defaults of a style.
    return style_surface(buildings::Style{}, before_dot(rest));
  }
  if (styles == nullptr) return std::nullopt;
  const std::int32_t s = styles->find(head);
  if (s < 0) return std::nullopt;
  if (rest.starts_with("roof.")) rest.remove_prefix(5);
  return style_surface(styles->styles[static_cast<std::size_t>(s)], rest);
}

int add_image(tinygltf::Model& model, const std::vector<std::uint8_t>& png, const std::string& name,
              const std::string& uri) {
  tinygltf::Image image;
  image.name = name;
  image.mimeType = "image/png";
  if (uri.empty()) {
    image.bufferView = add_view(model, png.data(), png.size(), 0);
  } else {
    image.uri = uri;
  }
  model.images.push_back(std::move(image));
  return static_cast<int>(model.images.size() - 1);
}

int add_texture(tinygltf::Model& model, int image, int sampler) {
  tinygltf::Texture t;
  t.source = image;
  t.sampler = sampler;
  model.textures.push_back(t);
  return static_cast<int>(model.textures.size() - 1);
}

int add_sampler(tinygltf::Model& model, const std::string& name, int wrap) {
  tinygltf::Sampler sampler;
  sampler.name = name;
  sampler.magFilter = TINYGLTF_TEXTURE_FILTER_LINEAR;
  sampler.minFilter = TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR;
  sampler.wrapS = wrap;
  sampler.wrapT = wrap;
  model.samplers.push_back(sampler);
  return static_cast<int>(model.samplers.size() - 1);
}

std::string texture_file_name(Surface surface, std::size_t map) {
  return std::string(materials::to_string(surface)) + "." + kTextureMaps.at(map) + ".png";
}

std::array<bool, materials::kSurfaceCount> surfaces_used(const tinygltf::Model& model,
                                                         const buildings::StyleLibrary* styles) {
  std::array<bool, materials::kSurfaceCount> used{};
  for (const tinygltf::Material& m : model.materials) {
    if (const std::optional<Surface> s = surface_of(m.name, styles)) {
      used[static_cast<std::size_t>(*s)] = true;
    }
  }
  return used;
}

Result<TextureSet> make_texture_set(const std::array<bool, materials::kSurfaceCount>& used,
                                    std::uint32_t size_px, const std::string& where) {
  TextureSet set;
  std::array<std::optional<Error>, materials::kSurfaceCount> errors;
  tbb::parallel_for(std::size_t{0}, materials::kSurfaceCount, [&](std::size_t s) {
    if (!used[s]) return;
    Result<materials::Textures> t =
        materials::make_textures(static_cast<Surface>(s), size_px, where);
    if (!t) {
      errors[s] = t.error();
      return;
    }
    SurfaceTextures e;
    e.size_m = t->size_m;
    e.mean_linear = t->mean_linear;
    const std::array<const materials::Image*, 3> images{&t->base_colour, &t->normal,
                                                        &t->metallic_roughness};
    for (std::size_t k = 0; k < images.size(); ++k) {
      Result<std::vector<std::uint8_t>> png = materials::encode_png(*images[k], where);
      if (!png) {
        errors[s] = png.error();
        return;
      }
      e.png[k] = std::move(*png);
    }
    set.surfaces[s] = std::move(e);
  });
  for (const std::optional<Error>& e : errors) {
    if (e) return *e;
  }
  return set;
}

void apply_textures(tinygltf::Model& model, const buildings::StyleLibrary* styles,
                    const TextureSet& set, const std::string& uri_prefix) {
  std::vector<std::optional<Surface>> of(model.materials.size());
  std::array<bool, materials::kSurfaceCount> used{};
  for (std::size_t m = 0; m < model.materials.size(); ++m) {
    of[m] = surface_of(model.materials[m].name, styles);
    if (of[m]) used[static_cast<std::size_t>(*of[m])] = true;
  }
  // The decals' pictures first: a model may have decals and no surface.
  apply_decals(model, set.decals, uri_prefix);
  if (std::none_of(used.begin(), used.end(), [](bool u) { return u; })) return;
  // 1. Images (in surface order), textures and the sampler.
  const int sampler_index = add_sampler(model, "repeat", TINYGLTF_TEXTURE_WRAP_REPEAT);
  std::array<std::array<int, 3>, materials::kSurfaceCount> texture{};
  for (std::size_t s = 0; s < materials::kSurfaceCount; ++s) {
    if (!used[s]) continue;
    const SurfaceTextures& e = set.surfaces.at(s).value();
    const auto surface = static_cast<Surface>(s);
    for (std::size_t k = 0; k < 3; ++k) {
      const int image = add_image(
          model, e.png[k], std::string(materials::to_string(surface)) + "." + kTextureMaps[k],
          uri_prefix.empty() ? std::string() : uri_prefix + texture_file_name(surface, k));
      texture[s][k] = add_texture(model, image, sampler_index);
    }
  }
  // 2. The materials.
  for (std::size_t m = 0; m < model.materials.size(); ++m) {
    if (!of[m]) continue;
    const auto s = static_cast<std::size_t>(*of[m]);
    const SurfaceTextures& e = *set.surfaces[s];
    tinygltf::Material& mat = model.materials[m];
    tinygltf::PbrMetallicRoughness& pbr = mat.pbrMetallicRoughness;
    for (std::size_t c = 0; c < 3; ++c)
      pbr.baseColorFactor[c] = std::min(1.0, pbr.baseColorFactor[c] / e.mean_linear);
    pbr.baseColorTexture.index = texture[s][0];
    pbr.baseColorTexture.extensions = repeat_every(e.size_m);
    mat.normalTexture.index = texture[s][1];
    mat.normalTexture.extensions = repeat_every(e.size_m);
    pbr.metallicRoughnessTexture.index = texture[s][2];
    pbr.metallicRoughnessTexture.extensions = repeat_every(e.size_m);
  }
  // 3. Tangents where a normal map is used (glTF: a normal-mapped primitive should bring them).
  for (tinygltf::Mesh& mesh : model.meshes) {
    for (tinygltf::Primitive& prim : mesh.primitives) {
      if (prim.material < 0 || !of[static_cast<std::size_t>(prim.material)]) continue;
      if (prim.attributes.count("TEXCOORD_0") == 0U || prim.indices < 0) continue;
      prim.attributes["TANGENT"] = add_tangents(model, prim);
    }
  }
  if (std::find(model.extensionsUsed.begin(), model.extensionsUsed.end(), kTransform) ==
      model.extensionsUsed.end()) {
    model.extensionsUsed.emplace_back(kTransform);
  }
}

Status add_textures(tinygltf::Model& model, const buildings::StyleLibrary* styles,
                    std::uint32_t size_px, const std::string& where) {
  if (size_px == 0 || model.materials.empty()) return Ok{};
  Result<TextureSet> set = make_texture_set(surfaces_used(model, styles), size_px, where);
  if (!set) return set.error();
  Result<DecalSet> decals = make_decal_set(decals_used(model), size_px, where);
  if (!decals) return decals.error();
  set->decals = std::move(*decals);
  apply_textures(model, styles, *set, "");
  return Ok{};
}

}  // namespace cityforge::exporter::detail
