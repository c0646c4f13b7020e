// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include "cityforge/core/vec.hpp"

namespace cityforge {

/// 2D gradient noise (Perlin-style, quintic fade) in about [-1, 1]; the lattice gradients come
/// from hashing (key, cell), so the field is a pure function of (key, p): no tables, no state.
double gradient_noise(std::uint64_t key, Vec2 p);

/// Fractal sum of `octaves` gradient-noise layers: frequency doubles and amplitude is
/// multiplied by `persistence` per octave; normalised to about [-1, 1].
double fractal_noise(std::uint64_t key, Vec2 p, int octaves, double persistence);

}  // namespace cityforge
