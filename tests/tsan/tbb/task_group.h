// SPDX-License-Identifier: Apache-2.0
// ThreadSanitizer build only: see cityforge_fork_join.h. Tasks start at wait() (a schedule TBB
// may also choose, on one thread), each on its own thread up to the concurrency limit.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "cityforge_fork_join.h"

namespace tbb {

class task_group {
 public:
  task_group() = default;
  task_group(const task_group&) = delete;
  task_group& operator=(const task_group&) = delete;
  ~task_group() { wait(); }

  template <typename F>
  void run(F&& f) {
    m_tasks.emplace_back(std::forward<F>(f));
  }

  void wait() {
    std::vector<std::function<void()>> tasks;
    tasks.swap(m_tasks);
    cityforge_tsan::fork_join(tasks.size(), [&](std::size_t i) { tasks[i](); });
  }

 private:
  std::vector<std::function<void()>> m_tasks;
};

}  // namespace tbb
