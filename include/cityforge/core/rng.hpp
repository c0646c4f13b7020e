// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string_view>

namespace cityforge {

/// The user's seed. Every random draw is derived from it by hashing (seed, stage, object id).
using Seed = std::uint64_t;

/// Which stage a draw belongs to; part of every generator's key so stages never share streams.
enum class Stage : std::uint32_t {
  inputs = 1,
  terrain = 2,
  layout = 3,
  roads = 4,
  lots = 5,
  buildings = 6,
  wfc = 7,
  dressing = 8,
  freeway = 9,
  sim = 10,
  islands = 11,
  crowd = 12,
  test = 1000,
};

/// SplitMix64 finaliser: a strong 64-bit mix, the building block of all our hashes.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}
/// Combines a running hash with one more value (order matters).
constexpr std::uint64_t hash_combine(std::uint64_t h, std::uint64_t v) {
  return mix64(h ^ (mix64(v) + 0x632be59bd9b4e019ULL + (h << 6U) + (h >> 2U)));
}
/// FNV-1a over bytes, then mixed: stable across platforms and runs (unlike std::hash).
std::uint64_t hash_bytes(const void* data, std::size_t size, std::uint64_t h = 0);
inline std::uint64_t hash_string(std::string_view s, std::uint64_t h = 0) {
  return hash_bytes(s.data(), s.size(), h);
}

/// PCG32 (O'Neill 2014) seeded by hashing (seed, stage, object id, sub-stream). Same key gives
/// the same sequence on every platform and thread count. Uses no std distributions.
class Rng {
 public:
  Rng(Seed seed, Stage stage, std::uint64_t object_id, std::uint64_t stream = 0);

  /// Uniform 32 random bits.
  std::uint32_t next_u32();
  /// Uniform in [0, 1).
  double uniform01();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
  /// Uniform integer in [0, n), n > 0, without modulo bias.
  std::uint32_t below(std::uint32_t n);
  /// True with probability p.
  bool chance(double p) { return uniform01() < p; }

 private:
  std::uint64_t m_state = 0;
  std::uint64_t m_inc = 0;
};

}  // namespace cityforge
