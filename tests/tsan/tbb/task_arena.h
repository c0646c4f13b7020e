// SPDX-License-Identifier: Apache-2.0
// ThreadSanitizer build only: see cityforge_fork_join.h. An arena of N threads limits the
// parallel algorithms called inside execute() to N threads.
#pragma once

#include "cityforge_fork_join.h"

namespace tbb {

class task_arena {
 public:
  explicit task_arena(int max_concurrency) : m_concurrency(max_concurrency) {}

  template <typename F>
  decltype(auto) execute(F&& f) {
    struct Scope {
      int n;
      explicit Scope(int c) : n(c) { cityforge_tsan::push_limit(n); }
      ~Scope() { cityforge_tsan::pop_limit(n); }
    } scope(m_concurrency);
    return f();
  }

 private:
  int m_concurrency;
};

namespace this_task_arena {
/// The thread's index in the fork_join running it (0 outside one, as the caller's).
inline int current_thread_index() { return cityforge_tsan::thread_index; }
/// Threads a parallel algorithm may use now.
inline int max_concurrency() { return cityforge_tsan::concurrency(); }
}  // namespace this_task_arena

}  // namespace tbb
