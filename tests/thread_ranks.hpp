// SPDX-License-Identifier: Apache-2.0
// Ranks as threads of one process (tests only): the collectives MPI provides, over a barrier,
// so what is shared over ranks is tested in every build, sanitizers included.
#pragma once

#include <barrier>
#include <cstdlib>
#include <string>
#include <vector>

#include "cityforge/core/ranks.hpp"

namespace cityforge::testing {

/// What the ranks of one job share: a barrier and a mailbox.
struct ThreadJob {
  explicit ThreadJob(int n) : size(n), sync(n), slots(static_cast<std::size_t>(n)) {}
  int size;
  std::barrier<> sync;
  std::vector<std::string> slots;
  std::string board;
};

/// One rank of a ThreadJob; each runs on a thread of its own.
class ThreadRanks final : public Ranks {
 public:
  ThreadRanks(ThreadJob& job, int rank) : m_job(&job), m_rank(rank) {}
  int rank() const override { return m_rank; }
  int size() const override { return m_job->size; }
  std::vector<std::string> gather(const std::string& mine) const override {
    m_job->slots[static_cast<std::size_t>(m_rank)] = mine;
    m_job->sync.arrive_and_wait();
    std::vector<std::string> out;
    if (m_rank == 0) out = m_job->slots;
    m_job->sync.arrive_and_wait();
    return out;
  }
  std::string broadcast(const std::string& value) const override {
    if (m_rank == 0) m_job->board = value;
    m_job->sync.arrive_and_wait();
    std::string out = m_job->board;
    m_job->sync.arrive_and_wait();
    return out;
  }
  [[noreturn]] void abort(int) const override { std::abort(); }

 private:
  ThreadJob* m_job;
  int m_rank;
};

}  // namespace cityforge::testing
