// SPDX-License-Identifier: Apache-2.0
#pragma once

// Private to the materials module: the hashed value noise the surfaces and decals are made of.

#include <cmath>
#include <cstdint>

#include "cityforge/core/rng.hpp"

namespace cityforge::materials::detail {

/// Uniform [0, 1) from a hash of (key, i, j).
inline double hash01(std::uint64_t key, std::int64_t i, std::int64_t j) {
  const std::uint64_t h = mix64(hash_combine(hash_combine(key, static_cast<std::uint64_t>(i)),
                                             static_cast<std::uint64_t>(j)));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

inline std::int64_t wrap(std::int64_t i, std::int64_t period) {
  return ((i % period) + period) % period;
}

inline double fade(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }

/// Value noise in [-1, 1] with pu x pv lattice cells across the tile; (u, v) in tiles.
inline double value_noise(std::uint64_t key, double u, double v, std::int64_t pu, std::int64_t pv) {
  const double x = u * static_cast<double>(pu);
  const double y = v * static_cast<double>(pv);
  const double fx = std::floor(x);
  const double fy = std::floor(y);
  const auto i = static_cast<std::int64_t>(fx);
  const auto j = static_cast<std::int64_t>(fy);
  const double tx = fade(x - fx);
  const double ty = fade(y - fy);
  const auto at = [&](std::int64_t a, std::int64_t b) {
    return 2.0 * hash01(key, wrap(a, pu), wrap(b, pv)) - 1.0;
  };
  const double top = at(i, j) + tx * (at(i + 1, j) - at(i, j));
  const double bottom = at(i, j + 1) + tx * (at(i + 1, j + 1) - at(i, j + 1));
  return top + ty * (bottom - top);
}

/// Fractal value noise, about [-1, 1]: octaves doubling the periods from (pu, pv).
inline double fbm2(std::uint64_t key, double u, double v, std::int64_t pu, std::int64_t pv,
                   int octaves) {
  double sum = 0.0;
  double amp = 1.0;
  double norm = 0.0;
  for (int o = 0; o < octaves; ++o) {
    sum +=
        amp * value_noise(hash_combine(key, static_cast<std::uint64_t>(o)), u, v, pu << o, pv << o);
    norm += amp;
    amp *= 0.5;
  }
  return sum / norm;
}

}  // namespace cityforge::materials::detail
