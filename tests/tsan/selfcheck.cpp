// SPDX-License-Identifier: Apache-2.0
// tests/tsan/run.sh's proof that the ThreadSanitizer build can see a race through our TBB calls:
// a parallel_for whose body adds into one shared integer without synchronisation must give a
// report at that line (and a task group writing disjoint cells must give none). If the build
// lost -fsanitize=thread, or the stand-in stopped running pieces on separate threads, the run
// script fails here instead of passing everything silently.
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include <cstdio>
#include <vector>

int main() {
  const tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
  long sum = 0;
  std::vector<int> ones(4096, 1);
  tbb::parallel_for(std::size_t{0}, ones.size(), [&](std::size_t i) {
    sum += ones[i];  // The deliberate race.
  });
  int cells[2] = {0, 0};
  tbb::task_group group;
  group.run([&] { cells[0] = 1; });
  group.run([&] { cells[1] = 2; });
  group.wait();
  std::printf("%ld %d\n", sum, cells[0] + cells[1]);
  return 0;
}
