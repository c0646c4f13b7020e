// SPDX-License-Identifier: Apache-2.0
// Rooms behind windows (seeds/000, 32:27-32:47): along each facade of each floor, runs of
// contiguous window modules are cut into rooms of one to three modules.

#include <algorithm>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings::detail {
namespace {

constexpr std::uint32_t kMaxRoomModules = 3;

}  // namespace

std::uint32_t assign_rooms(BuildingWork& work, Seed seed, std::uint32_t lot) {
  const Style& style = *work.style;
  std::uint32_t next_room = 0;
  const std::uint64_t object = hash_combine(lot, work.local);
  for (const Facade& f : work.facades) {
    std::uint64_t stream = hash_combine(work.floors[f.floor].index, f.volume);
    stream = hash_combine(hash_combine(stream, f.ring), f.edge);
    Rng rng{seed, Stage::buildings, object, stream};
    std::uint32_t k = f.first;
    const std::uint32_t end = f.first + f.count;
    auto is_window = [&](std::uint32_t i) {
      const Placed& p = work.placed[i];
      return !p.removed && (style.modules[p.module].tags & kTagWindow) != 0U;
    };
    while (k < end) {
      if (!is_window(k)) {
        work.placed[k].room = kNoRoom;
        ++k;
        continue;
      }
      // 1. The run of contiguous windows starting here.
      std::uint32_t run_end = k;
      while (run_end < end && is_window(run_end)) {
        ++run_end;
      }
      // 2. Cut it into rooms of up to three modules.
      while (k < run_end) {
        const std::uint32_t left = run_end - k;
        const std::uint32_t size = 1U + rng.below(std::min(left, kMaxRoomModules));
        for (std::uint32_t i = 0; i < size; ++i) {
          work.placed[k + i].room = next_room;
        }
        ++next_room;
        k += size;
      }
    }
  }
  return next_room;
}

}  // namespace cityforge::buildings::detail
