// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cityforge/core/result.hpp"
#include "cityforge/materials/textures.hpp"

/// Procedural decal images (issue 31; seeds/000: grime and tyre marks of the photoreal
/// showcase): RGBA pictures of dirt laid over the city's surfaces by the set dressing's decal
/// quads. Unlike the surfaces (textures.hpp) a decal is one picture over its whole quad
/// (texture coordinates 0..1), it does not tile, and its alpha falls to 0 at every border so the
/// quad's edges never show. The colour is the decal's own (the material's factor stays white).
/// Pure functions of (decal, size in pixels): byte-identical everywhere.
namespace cityforge::materials {

enum class Decal : std::uint8_t {
  grime,       ///< Soot and splash on a facade's foot: dark at the bottom, streaks fading upward.
  tyre_marks,  ///< Two dark rubber tracks along +u (the travel direction), darkest near u = 1.
  oil,         ///< A dark blotch with a ragged rim and drips; glossy (low roughness).
  crack,       ///< Thin branching dark lines across the quad, with a normal map of the groove.
};
inline constexpr std::size_t kDecalCount = 4;
/// "grime", "tyre_marks", "oil", "crack" (the materials are "decal.<name>").
const char* to_string(Decal d);
/// The decal named `name` (to_string's names); false when there is none.
bool decal_from_string(std::string_view name, Decal* out);

/// The images of one decal.
struct DecalTextures {
  Decal decal = Decal::grime;
  /// RGBA, sRGB colour with straight alpha; alpha is 0 on the outermost pixel ring. Image rows
  /// run down v: for the vertical grime decal row 0 is its top, the last row the ground.
  Image base_colour;
  /// Tangent-space normal map (RGB, as Textures::normal) where has_normal, else empty.
  Image normal;
  bool has_normal = false;
  double roughness = 0.9;  ///< The material's roughness factor (no metalness).
};

/// The images of `d` at size_px x size_px (a power of two from 16 to 2048; others are refused
/// with an error naming `where`). All four at 256 px take a few tens of milliseconds.
Result<DecalTextures> make_decal(Decal d, std::uint32_t size_px, const std::string& where);

}  // namespace cityforge::materials
