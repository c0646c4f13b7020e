// SPDX-License-Identifier: Apache-2.0
// ThreadSanitizer build only: see cityforge_fork_join.h.
#pragma once

#include <cstddef>

namespace tbb {

template <typename Value>
class blocked_range {
 public:
  using value_type = Value;
  using const_iterator = Value;
  using size_type = std::size_t;

  blocked_range(Value begin, Value end, size_type grainsize = 1)
      : m_begin(begin), m_end(end), m_grainsize(grainsize == 0 ? 1 : grainsize) {}

  [[nodiscard]] Value begin() const { return m_begin; }
  [[nodiscard]] Value end() const { return m_end; }
  [[nodiscard]] size_type size() const { return static_cast<size_type>(m_end - m_begin); }
  [[nodiscard]] size_type grainsize() const { return m_grainsize; }
  [[nodiscard]] bool empty() const { return !(m_begin < m_end); }
  [[nodiscard]] bool is_divisible() const { return size() > m_grainsize; }

 private:
  Value m_begin;
  Value m_end;
  size_type m_grainsize;
};

}  // namespace tbb
