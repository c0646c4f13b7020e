// SPDX-License-Identifier: Apache-2.0
// The one-process group and the collectives built on gather and broadcast.
#include "cityforge/core/ranks.hpp"

#include <tbb/parallel_for.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

namespace cityforge {

double process_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

namespace {

class SingleRank final : public Ranks {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> gather(const std::string& mine) const override { return {mine}; }
  std::string broadcast(const std::string& value) const override { return value; }
  [[noreturn]] void abort(int code) const override { std::exit(code); }
};

std::string error_bytes(const Status& s) {
  ByteWriter w;
  w.put<std::uint8_t>(s.ok() ? 0 : 1);
  if (!s.ok()) {
    w.put<std::int32_t>(static_cast<std::int32_t>(s.error().code));
    w.put_string(s.error().where);
    w.put_string(s.error().message);
  }
  return w.take();
}

/// What error_bytes wrote; nullopt for a short message or an unknown error code.
std::optional<Status> read_status(const std::string& bytes) {
  ByteReader in(bytes, "agree");
  std::uint8_t failed = 0;
  if (!in.get(failed)) return std::nullopt;
  if (failed == 0) return Status(Ok{});
  std::int32_t code = 0;
  Error e;
  if (!in.get(code) || !in.get_string(e.where) || !in.get_string(e.message)) return std::nullopt;
  if (code < static_cast<std::int32_t>(ErrorCode::invalid_input) ||
      code > static_cast<std::int32_t>(ErrorCode::internal)) {
    return std::nullopt;
  }
  e.code = static_cast<ErrorCode>(code);
  return Status(e);
}

}  // namespace

bool started_by_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK",
                        "MPI_LOCALNRANKS", "SLURM_STEP_NUM_TASKS"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

const Ranks& single_rank() {
  static const SingleRank one;
  return one;
}

std::vector<std::string> all_gather(const Ranks& ranks, const std::string& mine) {
  if (ranks.size() == 1) return {mine};
  return ranks.all_gather(mine);
}

std::vector<std::string> share_jobs(const Ranks& ranks, std::size_t n,
                                    const std::function<double(std::size_t)>& cost,
                                    const std::function<std::string(std::size_t)>& job) {
  std::vector<std::string> out(n);
  const bool shared = ranks.size() > 1 && ranks.any_thread();
  if (!shared) {
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { out[i] = job(i); });
    return out;
  }
  // Heaviest job first to the least loaded rank (the lowest on a tie; jobs of equal cost in
  // index order): every rank computes the same deal. Dealt this way, neighbouring heavy jobs
  // (one town's blocks) spread over the ranks instead of filling one rank's run.
  const auto size = static_cast<std::size_t>(ranks.size());
  std::vector<std::pair<double, std::size_t>> order(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double c = cost(i);
    order[i] = {std::isfinite(c) ? std::max(0.0, c) : 0.0, i};
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> load(size, 0.0);
  std::vector<std::vector<std::size_t>> dealt(size);
  for (const auto& [c, i] : order) {
    const std::size_t r =
        static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[r] += c;
    dealt[r].push_back(i);
  }
  for (std::vector<std::size_t>& d : dealt)
    std::sort(d.begin(), d.end());
  const std::vector<std::size_t>& mine_jobs = dealt[static_cast<std::size_t>(ranks.rank())];
  tbb::parallel_for(std::size_t{0}, mine_jobs.size(),
                    [&](std::size_t k) { out[mine_jobs[k]] = job(mine_jobs[k]); });
  ByteWriter mine;
  for (const std::size_t i : mine_jobs)
    mine.put_string(out[i]);
  const std::vector<std::string> parts = all_gather(ranks, mine.bytes());
  for (std::size_t r = 0; r < parts.size(); ++r) {
    ByteReader in(parts[r], "share_jobs");
    for (const std::size_t i : dealt[r]) {
      if (!in.get_string(out[i])) ranks.abort(3);
    }
  }
  return out;
}

Status agree(const Ranks& ranks, const Status& mine) {
  if (ranks.size() == 1) return mine;
  const std::vector<std::string> parts = ranks.gather(error_bytes(mine));
  // Rank 0 picks the first failure and tells everyone.
  std::string verdict = error_bytes(Ok{});
  for (std::size_t r = 0; r < parts.size(); ++r) {
    std::optional<Status> st = read_status(parts[r]);
    if (st && st->ok()) continue;
    Error e =
        st ? st->error() : Error::internal("rank " + std::to_string(r), "sent an unreadable error");
    // Rank 0 failing is usually every rank failing alike (bad input): no prefix then.
    if (st && r > 0) e.where = "rank " + std::to_string(r) + ": " + e.where;
    verdict = error_bytes(Status(e));
    break;
  }
  std::optional<Status> decided = read_status(ranks.broadcast(verdict));
  if (!decided) ranks.abort(3);
  return *decided;
}

}  // namespace cityforge
