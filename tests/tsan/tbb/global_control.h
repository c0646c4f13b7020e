// SPDX-License-Identifier: Apache-2.0
// ThreadSanitizer build only: see cityforge_fork_join.h.
#pragma once

#include <cstddef>

#include "cityforge_fork_join.h"

namespace tbb {

class global_control {
 public:
  enum parameter { max_allowed_parallelism, thread_stack_size };

  global_control(parameter p, std::size_t value)
      : m_parameter(p), m_value(static_cast<int>(value)) {
    if (m_parameter == max_allowed_parallelism) cityforge_tsan::push_limit(m_value);
  }
  ~global_control() {
    if (m_parameter == max_allowed_parallelism) cityforge_tsan::pop_limit(m_value);
  }
  global_control(const global_control&) = delete;
  global_control& operator=(const global_control&) = delete;

  static std::size_t active_value(parameter p) {
    return p == max_allowed_parallelism ? static_cast<std::size_t>(cityforge_tsan::concurrency())
                                        : 0;
  }

 private:
  parameter m_parameter;
  int m_value;
};

}  // namespace tbb
