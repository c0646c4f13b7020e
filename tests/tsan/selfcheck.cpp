// SPDX-License-Identifier: Apache-2.0
// tests/tsan/run.sh's proof that the ThreadSanitizer build can see a race through our TBB calls:
// a parallel_for whose two bodies add into one shared integer without synchronisation must give
// a report at that line (and a task group writing disjoint cells must give none). If the build
// lost -fsanitize=thread, or the stand-in stopped running pieces on separate threads, the run
// script fails here instead of passing everything silently.
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

int main() {
  const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  // Each body waits (5 s at most) until both have started, so they surely run on two threads
  // at once: a race TSan must see whatever the timing.
  std::atomic<int> started{0};
  long sum = 0;
  tbb::parallel_for(0, 2, [&](int) {
    started.fetch_add(1);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (started.load() < 2 && std::chrono::steady_clock::now() < give_up)
      std::this_thread::yield();
    sum += 1;  // The deliberate race.
  });
  int cells[2] = {0, 0};
  tbb::task_group group;
  group.run([&] { cells[0] = 1; });
  group.run([&] { cells[1] = 2; });
  group.wait();
  std::printf("%ld %d %d\n", sum, started.load(), cells[0] + cells[1]);
  return 0;
}
