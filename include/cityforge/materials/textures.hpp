// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/core/result.hpp"

/// Procedural PBR textures made by our own code (no art is shipped or downloaded): for each kind
/// of surface a tileable base colour, normal and metallic-roughness image covering a square of
/// the world, so that with the exporters' metre-scale texture coordinates (core/mesh.hpp) one
/// texture repeat is size_m metres. The images are detail maps: the base colour is a grey shade
/// multiplied by the material's own colour (a style's palette, a prop's paint), the roughness
/// and metalness channels multiply the material's factors, so one brick texture serves every
/// brick colour. Pure functions of (surface, size in pixels): byte-identical everywhere.
namespace cityforge::materials {

enum class Surface : std::uint8_t {
  brick,     ///< Running bond, 4 bricks per metre, 14 courses, recessed mortar.
  plaster,   ///< Render: soft blotches and a fine trowel texture.
  concrete,  ///< Cast in place: 1 m formwork joints, tie holes, pores.
  glass,     ///< Glazing: a faint waviness, smooth.
  metal,     ///< Brushed sheet metal.
  wood,      ///< Vertical boards with grain.
  asphalt,   ///< Aggregate speckle and wheel-worn patches.
  paving,    ///< 0.5 m slabs with joints.
  roofing,   ///< Membrane strips with welded seams every metre.
  grass,     ///< Blades and clumps.
  soil,      ///< Earth with pebbles.
  sand,      ///< Fine grain with wind ripples.
};
inline constexpr std::size_t kSurfaceCount = 12;
const char* to_string(Surface s);
/// The surface named `name` (to_string's names); false when there is none.
bool surface_from_string(std::string_view name, Surface* out);

/// An 8-bit RGB (or, with channels = 4, RGBA: the decals) image, rows from the top (glTF's
/// v = 0), tightly packed.
struct Image {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::uint32_t channels = 3;     ///< 3: RGB; 4: RGBA (straight, not premultiplied, alpha).
  std::vector<std::uint8_t> rgb;  ///< width * height * channels bytes.
};

/// The textures of one surface.
struct Textures {
  Surface surface = Surface::brick;
  double size_m = 1.0;  ///< World square one repeat covers (the images tile seamlessly).
  Image base_colour;    ///< sRGB grey detail, multiplied by the material's colour.
  /// Tangent-space normal map (glTF: +x along u, +y up the image, +z out of the surface).
  Image normal;
  Image metallic_roughness;  ///< glTF channels: G roughness, B metalness (multipliers); R 255.
  /// Mean of the base colour in linear light: a writer divides the material's colour by it
  /// (up to 1) so the textured surface keeps the colour's average brightness.
  double mean_linear = 1.0;
};

/// The world size of one repeat of a surface's textures (metres).
double repeat_m(Surface s);

/// The textures of `s` at size_px x size_px (a power of two from 16 to 2048; others are
/// refused with an error naming `where`).
Result<Textures> make_textures(Surface s, std::uint32_t size_px, const std::string& where);

/// How encode_png trades time for size. compact: zlib level 6 and libpng's adaptive row filters
/// (textures, written once). fast: every row filtered against the row above and zlib's
/// run-length strategy, about a quarter of the time for a third more bytes on smooth images
/// (the island's light volume, on the path of an interactive edit).
enum class PngEncoding : std::uint8_t { compact, fast };

/// The image as a PNG file (8-bit RGB, or RGBA for 4 channels; no time stamp or text:
/// byte-identical for equal images). Errors name `where`.
Result<std::vector<std::uint8_t>> encode_png(const Image& image, const std::string& where,
                                             PngEncoding encoding = PngEncoding::compact);

}  // namespace cityforge::materials
