// SPDX-License-Identifier: Apache-2.0
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "cityforge/sim/world.hpp"

namespace cityforge::sim {

void World::parallel_for_each_chunk(const Query& q,
                                    const std::function<void(const ChunkView&)>& f) {
  const std::vector<ChunkView> views = chunks(q);
  // One chunk per task: chunks are independent and big enough (up to kChunkCapacity rows).
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, views.size(), 1),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t i = r.begin(); i != r.end(); ++i) {
                        f(views[i]);
                      }
                    });
}

}  // namespace cityforge::sim
