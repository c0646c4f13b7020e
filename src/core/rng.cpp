// SPDX-License-Identifier: Apache-2.0
// Based on: M. E. O'Neill, PCG: A Family of Simple Fast Space-Efficient Statistically Good
// Algorithms for Random Number Generation, 2014 (the pcg32 XSH-RR variant), and Steele et al.,
// SplitMix, 2014 for seeding.
#include "cityforge/core/rng.hpp"

namespace cityforge {

std::uint64_t hash_bytes(const void* data, std::size_t size, std::uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t f = 0xcbf29ce484222325ULL ^ h;
  for (std::size_t i = 0; i < size; ++i) {
    f = (f ^ p[i]) * 0x100000001b3ULL;
  }
  return mix64(f);
}

Rng::Rng(Seed seed, Stage stage, std::uint64_t object_id, std::uint64_t stream) {
  std::uint64_t key = mix64(seed);
  key = hash_combine(key, static_cast<std::uint64_t>(stage));
  key = hash_combine(key, object_id);
  key = hash_combine(key, stream);
  m_inc = (mix64(key ^ 0xda3e39cb94b95bdbULL) << 1U) | 1U;
  m_state = 0;
  next_u32();
  m_state += key;
  next_u32();
}

std::uint32_t Rng::next_u32() {
  const std::uint64_t old = m_state;
  m_state = old * 6364136223846793005ULL + m_inc;
  const auto xorshifted = static_cast<std::uint32_t>(((old >> 18U) ^ old) >> 27U);
  const auto rot = static_cast<std::uint32_t>(old >> 59U);
  return (xorshifted >> rot) | (xorshifted << ((32U - rot) & 31U));
}

double Rng::uniform01() {
  // 53 random bits from two draws: exact doubles in [0, 1).
  const std::uint64_t hi = next_u32() >> 5U;
  const std::uint64_t lo = next_u32() >> 6U;
  return static_cast<double>((hi << 26U) | lo) * (1.0 / 9007199254740992.0);
}

std::uint32_t Rng::below(std::uint32_t n) {
  // Lemire-style rejection keeps the result unbiased.
  const std::uint32_t threshold = (0U - n) % n;
  for (;;) {
    const std::uint32_t r = next_u32();
    if (r >= threshold) {
      return r % n;
    }
  }
}

}  // namespace cityforge
