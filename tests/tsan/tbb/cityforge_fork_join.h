// SPDX-License-Identifier: Apache-2.0
// The ThreadSanitizer build's stand-in for the part of oneTBB that cityforge uses (README
// "Reliability", tests/tsan/README.md). Debian's libtbb is not built with -fsanitize=thread, so
// TSan cannot see the hand-off between a task's creator and the worker that runs it and reports
// races that are not there, in TBB and in our task bodies alike. Here every task runs on a
// std::thread that the caller joins (pthread_create / pthread_join: TSan sees those edges), so
// what TSan reports is a real race in our code. Built only by the `tsan` preset
// (CITYFORGE_TSAN_TBB); the same call sites compile against the real oneTBB everywhere else.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tbb {
namespace cityforge_tsan {

/// The active limits of every live global_control / task_arena: the smallest one wins, as in TBB.
struct Limits {
  std::mutex mutex;
  std::multiset<int> active;
};

inline Limits& limits() {
  static Limits l;
  return l;
}

/// Threads a parallel algorithm may use now (the calling thread included).
inline int concurrency() {
  Limits& l = limits();
  const std::lock_guard<std::mutex> lock(l.mutex);
  if (!l.active.empty()) return std::max(1, *l.active.begin());
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

inline void push_limit(int n) {
  Limits& l = limits();
  const std::lock_guard<std::mutex> lock(l.mutex);
  l.active.insert(n);
}

inline void pop_limit(int n) {
  Limits& l = limits();
  const std::lock_guard<std::mutex> lock(l.mutex);
  const auto it = l.active.find(n);
  if (it != l.active.end()) l.active.erase(it);
}

/// What tbb::this_task_arena::current_thread_index() says: as TBB's arena slots, no two threads
/// running at once share an index (0: the program's threads; a helper takes the lowest free one
/// from 1 while it runs, nested loops included).
inline thread_local int thread_index = 0;
struct Slots {
  std::mutex mutex;
  std::vector<bool> used;  // used[i]: index i + 1 is taken.
};
inline Slots& slots() {
  static Slots s;
  return s;
}
inline int take_slot() {
  Slots& s = slots();
  const std::lock_guard<std::mutex> lock(s.mutex);
  std::size_t i = 0;
  while (i < s.used.size() && s.used[i])
    ++i;
  if (i == s.used.size()) s.used.push_back(false);
  s.used[i] = true;
  return static_cast<int>(i) + 1;
}
inline void give_slot(int index) {
  Slots& s = slots();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.used[static_cast<std::size_t>(index) - 1] = false;
}

/// Runs job(0) .. job(count - 1), each exactly once, on up to concurrency() threads that take the
/// next index from a shared counter; rethrows the first exception after every thread is joined.
inline void fork_join(std::size_t count, const std::function<void(std::size_t)>& job) {
  if (count == 0) return;
  const std::size_t threads = std::min(count, static_cast<std::size_t>(concurrency()));
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  const auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        job(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t)
    helpers.emplace_back([&work] {
      thread_index = take_slot();
      work();
      give_slot(thread_index);
    });
  work();
  for (std::thread& h : helpers)
    h.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace cityforge_tsan
}  // namespace tbb
