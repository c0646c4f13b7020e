// SPDX-License-Identifier: Apache-2.0
#pragma once

// The 8 symmetries of the square (4 quarter turns about +z, times the reflection x -> -x) acting
// on square-grid labels, cells of multi-cell footprints and tile variants; shared by the model
// expansion (model.cpp), learning (learn.cpp) and the JSON reader.

#include <array>
#include <cstdint>
#include <string>

#include "cityforge/wfc/wfc.hpp"

namespace cityforge::wfc::detail {

/// A square symmetry: reflect x -> -x (if m), then turn r quarter turns counter-clockwise.
/// Index e = r + 4 * m.
struct Transform {
  std::uint8_t r = 0;
  bool m = false;
  int index() const { return r + (m ? 4 : 0); }
  static Transform of(int e) { return {static_cast<std::uint8_t>(e & 3), e >= 4}; }
};

/// a after b (b applied first). Reflection reverses the sense of a turn: M R^k = R^-k M.
inline Transform compose(Transform a, Transform b) {
  const int rb = a.m ? (4 - b.r) & 3 : b.r;
  return {static_cast<std::uint8_t>((a.r + rb) & 3), a.m != b.m};
}
inline Transform inverse(Transform t) {
  // (R^r M)^-1 = M R^-r = R^r M when reflected; R^-r otherwise.
  if (t.m) return t;
  return {static_cast<std::uint8_t>((4 - t.r) & 3), false};
}

/// Where label d (0 +x, 1 -x, 2 +y, 3 -y, 4 +z, 5 -z) points after t.
inline Label apply(Transform t, Label d) {
  if (d >= 4) return d;
  // One quarter turn: +x -> +y -> -x -> -y -> +x.
  static constexpr Label kTurn[4] = {2, 3, 1, 0};
  Label out = t.m && d < 2 ? static_cast<Label>(d ^ 1U) : d;
  for (int k = 0; k < t.r; ++k)
    out = kTurn[out];
  return out;
}

/// Bit e set when the transform of index e leaves a tile of class `s` unchanged.
inline std::uint8_t stabilizer(Symmetry s) {
  switch (s) {
    case Symmetry::X:
      return 0xFF;
    case Symmetry::I:  // identity, half turn, x -> -x, y -> -y
      return (1U << 0) | (1U << 2) | (1U << 4) | (1U << 6);
    case Symmetry::D:  // identity, half turn, both diagonal reflections
      return (1U << 0) | (1U << 2) | (1U << 5) | (1U << 7);
    case Symmetry::T:  // identity, x -> -x
      return (1U << 0) | (1U << 4);
    case Symmetry::L:  // identity, x <-> y
      return (1U << 0) | (1U << 7);
    case Symmetry::F:
      return 1U << 0;
  }
  return 1U << 0;
}

/// The transforms a model of `dimensions` axes uses: 1D only the reflection, 2D/3D all 8.
inline std::uint8_t group(std::uint32_t dimensions) {
  return dimensions >= 2 ? 0xFF : static_cast<std::uint8_t>((1U << 0) | (1U << 4));
}

/// The canonical transform of t's class (t composed with the stabilizer): the first in index
/// order, so the unturned variant is always the identity.
inline Transform canonical(Symmetry s, std::uint32_t dimensions, Transform t) {
  const std::uint8_t stab = stabilizer(s) & group(dimensions);
  for (int e = 0; e < 8; ++e) {
    for (int k = 0; k < 8; ++k) {
      if (((stab >> k) & 1U) == 0) continue;
      if (compose(t, Transform::of(k)).index() == e) return Transform::of(e);
    }
  }
  return t;
}

/// Footprint of a size after t (odd turns swap x and y).
inline std::array<std::uint32_t, 3> turned_size(const std::uint8_t size[3], Transform t) {
  if (t.r & 1U) return {size[1], size[0], size[2]};
  return {size[0], size[1], size[2]};
}

/// Cell `p` of a footprint `from` (in its own axes) after t, in the turned footprint.
inline std::array<std::uint32_t, 3> turned_cell(const std::array<std::uint32_t, 3>& from,
                                                const std::array<std::uint32_t, 3>& p,
                                                Transform t) {
  // Work on doubled offsets from the footprint's centre so turns stay integral.
  int x = 2 * static_cast<int>(p[0]) + 1 - static_cast<int>(from[0]);
  int y = 2 * static_cast<int>(p[1]) + 1 - static_cast<int>(from[1]);
  if (t.m) x = -x;
  for (int k = 0; k < t.r; ++k) {
    const int nx = -y;
    y = x;
    x = nx;
  }
  const std::uint32_t wx = (t.r & 1U) ? from[1] : from[0];
  const std::uint32_t wy = (t.r & 1U) ? from[0] : from[1];
  return {static_cast<std::uint32_t>((x + static_cast<int>(wx) - 1) / 2),
          static_cast<std::uint32_t>((y + static_cast<int>(wy) - 1) / 2), p[2]};
}

/// Unit step of a square label.
inline std::array<int, 3> step(Label d) {
  static constexpr int kStep[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                      {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
  return {kStep[d][0], kStep[d][1], kStep[d][2]};
}

/// "+x" .. "-z" for square models (label_count 2, 4 or 6), else "label N".
inline std::string label_name(Label d, std::uint32_t label_count) {
  static constexpr const char* kNames[6] = {"+x", "-x", "+y", "-y", "+z", "-z"};
  if (label_count <= 6 && d < 6) return kNames[d];
  return "label " + std::to_string(d);
}

/// "\"name\"" for messages (appended piecewise: g++ 12 flags "\"" + std::string with a false
/// -Wrestrict).
inline std::string in_quotes(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  out += s;
  out += '"';
  return out;
}

/// "#r1", "#r0m", "" for the identity.
inline std::string transform_suffix(Transform t) {
  std::string s;
  if (t.index() == 0) return s;
  s += "#r";
  s += static_cast<char>('0' + t.r);
  if (t.m) s += 'm';
  return s;
}

/// Whether a model's labels are those of a square grid (0 +x, 1 -x, ...).
inline bool is_square_model(const Model& model) {
  if (model.label_count != 2 && model.label_count != 4 && model.label_count != 6) return false;
  if (model.opposite.size() != model.label_count) return false;
  for (std::uint32_t d = 0; d < model.label_count; ++d) {
    if (model.opposite[d] != (d ^ 1U)) return false;
  }
  return true;
}

/// For square models: the part of the same multi-cell variant across t's side d, or kNoTile
/// when that side leads out of the footprint. `footprint` is the variant's turned size.
inline bool inside_footprint(const std::array<std::uint32_t, 3>& footprint,
                             const std::uint8_t part[3], Label d,
                             std::array<std::uint32_t, 3>& out) {
  const auto s = step(d);
  for (int a = 0; a < 3; ++a) {
    const int v = static_cast<int>(part[a]) + s[static_cast<std::size_t>(a)];
    if (v < 0 || v >= static_cast<int>(footprint[static_cast<std::size_t>(a)])) return false;
    out[static_cast<std::size_t>(a)] = static_cast<std::uint32_t>(v);
  }
  return true;
}

}  // namespace cityforge::wfc::detail
