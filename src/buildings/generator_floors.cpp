// SPDX-License-Identifier: Apache-2.0
// Floor slicing from the style's level dictionary (seeds/000, 27:27).

#include <algorithm>
#include <cmath>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {

const Level& level_of(const Style& style, LevelKind kind) {
  switch (kind) {
    case LevelKind::ground:
      return style.ground;
    case LevelKind::top:
      return style.top;
    case LevelKind::typical:
      break;
  }
  return style.typical;
}

std::vector<Floor> slice_floors(const std::vector<Volume>& volumes, const Style& style) {
  std::vector<Floor> floors;
  const double typical = std::max(0.5, style.typical.height_m);
  std::uint32_t next = 0;
  for (std::size_t v = 0; v < volumes.size(); ++v) {
    const double h = volumes[v].z1_m - volumes[v].z0_m;
    if (h <= 0.0) {
      continue;
    }
    const bool top_volume = v + 1 == volumes.size();
    // Imported parts standing on the ground each start at the ground floor (generated
    // buildings have one volume on the ground, their first).
    if (v > 0 && volumes[v].z0_m <= 0.0) {
      next = 0;
    }
    // 1. Nominal heights: ground first in the building, top last in the top volume; pick the
    //    floor count whose nominal total is closest to the volume height (at least one).
    auto nominal = [&](std::uint32_t n) {
      std::vector<std::pair<LevelKind, double>> seq;
      for (std::uint32_t i = 0; i < n; ++i) {
        LevelKind k = LevelKind::typical;
        if (next + i == 0) {
          k = LevelKind::ground;
        } else if (top_volume && i + 1 == n) {
          k = LevelKind::top;
        }
        seq.emplace_back(k, std::max(0.5, level_of(style, k).height_m));
      }
      return seq;
    };
    auto total = [](const std::vector<std::pair<LevelKind, double>>& seq) {
      double t = 0.0;
      for (const auto& s : seq) {
        t += s.second;
      }
      return t;
    };
    const auto guess = static_cast<std::uint32_t>(std::max(1.0, std::floor(h / typical)));
    std::uint32_t best_n = 1;
    double best_err = 1e300;
    for (std::uint32_t n = std::max<std::uint32_t>(1U, guess > 2 ? guess - 2 : 1U); n <= guess + 2;
         ++n) {
      const double err = std::abs(total(nominal(n)) - h);
      if (err < best_err - 1e-9) {
        best_err = err;
        best_n = n;
      }
    }
    // 2. Stretch evenly so the last boundary hits z1 exactly.
    const auto seq = nominal(best_n);
    const double scale = h / total(seq);
    double z = volumes[v].z0_m;
    for (std::uint32_t i = 0; i < best_n; ++i) {
      Floor f;
      f.index = next++;
      f.volume = static_cast<std::uint32_t>(v);
      f.level = seq[i].first;
      f.z0_m = z;
      z = i + 1 == best_n ? volumes[v].z1_m : z + seq[i].second * scale;
      f.z1_m = z;
      floors.push_back(f);
    }
  }
  return floors;
}

}  // namespace cityforge::buildings::detail
