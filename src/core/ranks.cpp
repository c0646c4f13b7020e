// SPDX-License-Identifier: Apache-2.0
// The one-process group and the collectives built on gather and broadcast.
#include "cityforge/core/ranks.hpp"

#include <cstdlib>

namespace cityforge {
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
  const std::vector<std::string> parts = ranks.gather(mine);
  ByteWriter w;
  for (const std::string& p : parts)
    w.put_string(p);
  const std::string all = ranks.broadcast(w.bytes());
  std::vector<std::string> out(static_cast<std::size_t>(ranks.size()));
  ByteReader r(all, "all_gather");
  for (std::string& p : out) {
    if (!r.get_string(p)) ranks.abort(3);
  }
  return out;
}

Status agree(const Ranks& ranks, const Status& mine) {
  if (ranks.size() == 1) return mine;
  const std::vector<std::string> parts = ranks.gather(error_bytes(mine));
  // Rank 0 picks the first failure and tells everyone.
  std::string verdict = error_bytes(Ok{});
  for (std::size_t r = 0; r < parts.size(); ++r) {
    if (!parts[r].empty() && parts[r][0] != 0) {
      ByteReader in(parts[r], "agree");
      std::uint8_t failed = 0;
      std::int32_t code = 0;
      Error e;
      if (!in.get(failed) || !in.get(code) || !in.get_string(e.where) ||
          !in.get_string(e.message)) {
        e = Error::internal("rank " + std::to_string(r), "sent an unreadable error");
      } else {
        e.code = static_cast<ErrorCode>(code);
        // Rank 0 failing is usually every rank failing alike (bad input): no prefix then.
        if (r > 0) e.where = "rank " + std::to_string(r) + ": " + e.where;
      }
      verdict = error_bytes(Status(e));
      break;
    }
  }
  const std::string decided = ranks.broadcast(verdict);
  ByteReader in(decided, "agree");
  std::uint8_t failed = 0;
  if (!in.get(failed)) ranks.abort(3);
  if (failed == 0) return Ok{};
  std::int32_t code = 0;
  Error e;
  if (!in.get(code) || !in.get_string(e.where) || !in.get_string(e.message)) ranks.abort(3);
  e.code = static_cast<ErrorCode>(code);
  return e;
}

}  // namespace cityforge
