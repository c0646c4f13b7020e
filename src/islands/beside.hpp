// SPDX-License-Identifier: Apache-2.0
// Two pieces of independent work at once: the island's passes are one thread each, and a
// second one (the light volume, its image) can run beside the main line on the second core.
#pragma once

#include <exception>
#include <system_error>
#include <thread>
#include <utility>

namespace cityforge::islands {

/// Runs `side` on a second thread while `main` runs on this one and returns when both have
/// ended; `side` runs first, on this thread, when no thread can be had. The two must not touch
/// the same data. An exception `side` throws is thrown here once both have ended.
template <class Side, class Main>
void run_beside(Side&& side, Main&& main) {
  std::exception_ptr failed;
  const auto guarded = [&] {
    try {
      side();
    } catch (...) {
      failed = std::current_exception();
    }
  };
  std::jthread beside;
  try {
    beside = std::jthread(guarded);
  } catch (const std::system_error&) {
    guarded();
  }
  std::forward<Main>(main)();  // If it throws, `beside` is joined on the way out.
  if (beside.joinable()) beside.join();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace cityforge::islands
