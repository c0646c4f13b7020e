// SPDX-License-Identifier: Apache-2.0
// ThreadSanitizer build only: see cityforge_fork_join.h. The range is cut into pieces of at most
// its grain size (TBB's simple_partitioner), which our bodies must not depend on anyway.
#pragma once

#include <cstddef>

#include "blocked_range.h"
#include "cityforge_fork_join.h"
#include "partitioner.h"

namespace tbb {

template <typename Value, typename Body>
void parallel_for(const blocked_range<Value>& range, const Body& body) {
  if (range.empty()) return;
  const std::size_t grain = range.grainsize();
  const std::size_t pieces = (range.size() + grain - 1) / grain;
  cityforge_tsan::fork_join(pieces, [&](std::size_t p) {
    const Value b = static_cast<Value>(range.begin() + static_cast<Value>(p * grain));
    const std::size_t left = range.size() - p * grain;
    const Value e = static_cast<Value>(b + static_cast<Value>(left < grain ? left : grain));
    body(blocked_range<Value>(b, e, grain));
  });
}

/// With a partitioner (auto, simple, static or affinity): the same pieces.
template <typename Value, typename Body, typename Partitioner>
void parallel_for(const blocked_range<Value>& range, const Body& body, Partitioner&& /*p*/) {
  parallel_for(range, body);
}

template <typename Index, typename Function>
void parallel_for(Index first, Index last, const Function& f) {
  if (!(first < last)) return;
  const std::size_t n = static_cast<std::size_t>(last - first);
  cityforge_tsan::fork_join(
      n, [&](std::size_t i) { f(static_cast<Index>(first + static_cast<Index>(i))); });
}

}  // namespace tbb
