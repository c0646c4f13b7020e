// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <tbb/parallel_for.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "cityforge/core/result.hpp"

/// The processes one run is spread over (MPI ranks, DESIGN.md "Scale"), seen by the library as
/// a handful of collective operations on bytes. The library never names MPI: the command line
/// hands it an MPI communicator behind this interface (cityforge_mpi) or single_rank(). Output
/// never depends on the number of ranks: work is assigned to ranks, results are keyed by what
/// they are (a tile, an object id), never by the rank that made them.
namespace cityforge {

/// A group of processes running the same command. Every member function but rank() and size()
/// is collective: every rank calls it, in the same order, or the job hangs.
class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int rank() const = 0;  ///< 0 .. size() - 1.
  virtual int size() const = 0;  ///< >= 1.
  /// Every rank's `mine` on rank 0, in rank order; an empty vector on the other ranks.
  virtual std::vector<std::string> gather(const std::string& mine) const = 0;
  /// Rank 0's `value` on every rank (the others' argument is ignored).
  virtual std::string broadcast(const std::string& value) const = 0;
  /// Every rank's `mine` on every rank, in rank order. By default a gather and a broadcast
  /// through rank 0; MPI does it in one collective (MPI_Allgatherv), with no rank in the middle.
  virtual std::vector<std::string> all_gather(const std::string& mine) const;
  /// Personalised exchange: `to[r]` goes to rank r (to.size() == size(); to[rank()] comes back
  /// as is); returns what every rank sent this one, in rank order. By default through
  /// all_gather (every rank sees every message); MPI sends each to its rank only
  /// (MPI_Alltoallv), so neighbours that talk pay for their own bytes.
  virtual std::vector<std::string> all_to_all(const std::vector<std::string>& to) const;
  /// Ends the whole job at once with `code` (after an error the other ranks cannot be told of,
  /// e.g. one that happened outside a collective).
  [[noreturn]] virtual void abort(int code) const = 0;
  /// Whether the collectives may be called from any thread (one at a time), e.g. from a stage
  /// the pipeline runs on a oneTBB worker. false: only the thread that made the group may call
  /// them, and share_jobs runs every job on every rank instead (the same result).
  virtual bool any_thread() const { return true; }
  /// CPU time this process has spent inside the collectives so far, waits included (the
  /// process's CPU clock: an MPI library polls while it waits). Not collective. What a rank's
  /// own work cost is its CPU time less `cpu_s`: the figure that stays meaningful when a
  /// benchmark runs more ranks than the machine has cores. Zero for groups that do not measure
  /// it (one rank, the tests' threads).
  struct CollectiveTime {
    double cpu_s = 0;
  };
  virtual CollectiveTime collective_time() const { return {}; }
};

/// This process's CPU time so far, all its threads (CLOCK_PROCESS_CPUTIME_ID), in seconds.
double process_cpu_s();

/// Whether an MPI launcher (mpirun, mpiexec, Slurm's srun) started this process: one of the
/// variables Open MPI, MPICH/Hydra, PMI, PMIx or Slurm set for their tasks is in the
/// environment. A program built without MPI must then refuse to run (N copies would each write
/// the whole output).
bool started_by_mpi_launcher();

/// The one-process group: gather returns {mine}, broadcast returns its argument.
const Ranks& single_rank();

/// Collective: Ok on every rank when every rank's `mine` is Ok; otherwise every rank gets the
/// error of the lowest failing rank, its place prefixed with "rank N: " when that is not rank 0
/// (a failure of rank 0 is most often every rank failing alike, on bad input).
Status agree(const Ranks& ranks, const Status& mine);

/// Collective: every rank's `mine` on every rank, in rank order (a gather, then a broadcast).
std::vector<std::string> all_gather(const Ranks& ranks, const std::string& mine);

/// Collective: runs `job(i)` for every i in [0, n) on one rank each and returns every job's
/// bytes, in job order, on every rank. The jobs are dealt heaviest first (by `cost(i)`) to the
/// least loaded rank (a deterministic rule); each rank runs its own in parallel (oneTBB). The
/// result is the same for any rank count as long as `job` is a pure function of i. One rank (or a
/// group without any_thread()): every job here.
std::vector<std::string> share_jobs(const Ranks& ranks, std::size_t n,
                                    const std::function<double(std::size_t)>& cost,
                                    const std::function<std::string(std::size_t)>& job);

/// Plain data into bytes, for what ranks send each other: trivially copyable values and vectors
/// of them, strings; read back in the same order by ByteReader. Same machine type on every rank
/// (a cluster of one architecture), so values go as they lie in memory.
class ByteWriter {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&v);
    m_bytes.append(p, sizeof(T));
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(v.size());
    if (!v.empty()) m_bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void put_string(const std::string& s) {
    put<std::uint64_t>(s.size());
    m_bytes += s;
  }
  const std::string& bytes() const { return m_bytes; }
  std::string take() { return std::move(m_bytes); }
  /// Room for `n` bytes in all (a writer that knows its size spares the regrowth).
  void reserve(std::size_t n) { m_bytes.reserve(n); }

 private:
  std::string m_bytes;
};

/// Reads what a ByteWriter wrote; a short or malformed buffer is an internal error naming
/// `what` (never a read past the end).
class ByteReader {
 public:
  ByteReader(const std::string& bytes, std::string what)
      : m_bytes(bytes), m_what(std::move(what)) {}
  template <class T>
  Status get(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (m_bytes.size() - m_at < sizeof(T)) return short_read();
    std::memcpy(&v, m_bytes.data() + m_at, sizeof(T));
    m_at += sizeof(T);
    return Ok{};
  }
  template <class T>
  Status get_vector(std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::uint64_t n = 0;
    if (Status s = get(n); !s) return s;
    if (n > (m_bytes.size() - m_at) / (sizeof(T) ? sizeof(T) : 1)) return short_read();
    v.resize(n);
    if (n) std::memcpy(v.data(), m_bytes.data() + m_at, n * sizeof(T));
    m_at += n * sizeof(T);
    return Ok{};
  }
  Status get_string(std::string& s) {
    std::uint64_t n = 0;
    if (Status st = get(n); !st) return st;
    if (n > m_bytes.size() - m_at) return short_read();
    s.assign(m_bytes.data() + m_at, n);
    m_at += n;
    return Ok{};
  }
  bool done() const { return m_at == m_bytes.size(); }

 private:
  Status short_read() const {
    return Error::internal(m_what, "message from another rank is shorter than its contents");
  }
  const std::string& m_bytes;
  std::string m_what;
  std::size_t m_at = 0;
};

// Inline, so that the MPI module, which links no library of ours, needs nothing from core.
inline std::vector<std::string> Ranks::all_gather(const std::string& mine) const {
  const std::vector<std::string> parts = gather(mine);
  ByteWriter w;
  for (const std::string& p : parts)
    w.put_string(p);
  const std::string all = broadcast(w.bytes());
  std::vector<std::string> out(static_cast<std::size_t>(size()));
  ByteReader r(all, "all_gather");
  for (std::string& p : out) {
    if (!r.get_string(p)) abort(3);
  }
  return out;
}

inline std::vector<std::string> Ranks::all_to_all(const std::vector<std::string>& to) const {
  ByteWriter w;
  for (const std::string& p : to)
    w.put_string(p);
  const std::vector<std::string> all = all_gather(w.bytes());
  std::vector<std::string> out(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) {
    ByteReader in(all[r], "all_to_all");
    for (int k = 0; k <= rank(); ++k) {
      if (!in.get_string(out[r])) abort(3);
    }
  }
  return out;
}

/// Collective: share_jobs for results of type T. `job(i)` for every i in [0, n), the results in
/// job order on every rank. One rank: in parallel here, nothing serialised. Several: share_jobs
/// deals the jobs by `cost(i)`, each result goes to the other ranks written by
/// `put(ByteWriter&, const T&)` and read back by `get(ByteReader&, T&) -> Status`; a message
/// that does not read back whole is an internal error naming `what`.
template <class T, class Cost, class Job, class Put, class Get>
Result<std::vector<T>> share_results(const Ranks& ranks, std::size_t n, const std::string& what,
                                     Cost&& cost, Job&& job, Put&& put, Get&& get) {
  std::vector<T> out(n);
  if (ranks.size() == 1) {
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { out[i] = job(i); });
    return out;
  }
  const std::vector<std::string> bytes = share_jobs(ranks, n, cost, [&](std::size_t i) {
    ByteWriter w;
    put(w, job(i));
    return w.take();
  });
  for (std::size_t i = 0; i < n; ++i) {
    ByteReader r(bytes[i], what);
    if (Status st = get(r, out[i]); !st) return st.error();
    if (!r.done())
      return Error::internal(what, "message from another rank is longer than its contents");
  }
  return out;
}

}  // namespace cityforge
