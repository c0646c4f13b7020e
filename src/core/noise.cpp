// SPDX-License-Identifier: Apache-2.0
// Based on: K. Perlin, Improving Noise, SIGGRAPH 2002 (quintic fade, gradient lattice).
#include "cityforge/core/noise.hpp"

#include <cmath>

#include "cityforge/core/rng.hpp"

namespace cityforge {
namespace {

constexpr double fade(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }

// A unit gradient for lattice point (i, j), chosen among 16 directions by hashing.
Vec2 lattice_gradient(std::uint64_t key, std::int64_t i, std::int64_t j) {
  const std::uint64_t h =
      hash_combine(hash_combine(key, static_cast<std::uint64_t>(i)), static_cast<std::uint64_t>(j));
  const double angle = static_cast<double>(h & 15U) * (3.14159265358979323846 / 8.0);
  return {std::cos(angle), std::sin(angle)};
}

}  // namespace

double gradient_noise(std::uint64_t key, Vec2 p) {
  const double fx = std::floor(p.x);
  const double fy = std::floor(p.y);
  const auto i = static_cast<std::int64_t>(fx);
  const auto j = static_cast<std::int64_t>(fy);
  const Vec2 f{p.x - fx, p.y - fy};
  const double n00 = dot(lattice_gradient(key, i, j), f);
  const double n10 = dot(lattice_gradient(key, i + 1, j), f - Vec2{1, 0});
  const double n01 = dot(lattice_gradient(key, i, j + 1), f - Vec2{0, 1});
  const double n11 = dot(lattice_gradient(key, i + 1, j + 1), f - Vec2{1, 1});
  const double u = fade(f.x);
  const double v = fade(f.y);
  const double nx0 = n00 + u * (n10 - n00);
  const double nx1 = n01 + u * (n11 - n01);
  // Unit gradients give values within +-sqrt(2)/2; scale to about [-1, 1].
  return (nx0 + v * (nx1 - nx0)) * 1.41421356237309504880;
}

double fractal_noise(std::uint64_t key, Vec2 p, int octaves, double persistence) {
  double sum = 0.0;
  double amp = 1.0;
  double norm = 0.0;
  double freq = 1.0;
  for (int o = 0; o < octaves; ++o) {
    // A fixed irrational offset per octave keeps lattice points of octaves from lining up.
    const Vec2 q{p.x * freq + 17.13 * o, p.y * freq - 31.71 * o};
    sum += amp * gradient_noise(hash_combine(key, static_cast<std::uint64_t>(o)), q);
    norm += amp;
    amp *= persistence;
    freq *= 2.0;
  }
  return norm > 0.0 ? sum / norm : 0.0;
}

}  // namespace cityforge
