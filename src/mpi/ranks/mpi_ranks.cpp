// SPDX-License-Identifier: Apache-2.0
// Ranks over MPI_COMM_WORLD: gather by point-to-point messages to rank 0 and broadcast, both in
// pieces of at most 1 GiB (MPI counts are ints).
#include "mpi/ranks/mpi_ranks.hpp"

#include <mpi.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace cityforge::mpi {
namespace {

constexpr std::size_t kPiece = std::size_t{1} << 30;
constexpr int kTagSize = 71;
constexpr int kTagData = 72;

void send_bytes(const std::string& bytes, int to) {
  std::uint64_t n = bytes.size();
  MPI_Send(&n, 1, MPI_UINT64_T, to, kTagSize, MPI_COMM_WORLD);
  for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
    const int len = static_cast<int>(std::min(kPiece, bytes.size() - at));
    MPI_Send(bytes.data() + at, len, MPI_BYTE, to, kTagData, MPI_COMM_WORLD);
  }
}

std::string receive_bytes(int from) {
  std::uint64_t n = 0;
  MPI_Recv(&n, 1, MPI_UINT64_T, from, kTagSize, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string bytes(n, '\0');
  for (std::size_t at = 0; at < bytes.size(); at += kPiece) {
    const int len = static_cast<int>(std::min(kPiece, bytes.size() - at));
    MPI_Recv(bytes.data() + at, len, MPI_BYTE, from, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return bytes;
}

// The process's CPU clock: core's process_cpu_s, which this module cannot call (it links MPI
// alone, and leaves no symbol for the program to provide).
double cpu_now() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

/// Adds a collective's CPU time to the group's (the outermost call only: the fallbacks through
/// rank 0 call gather and broadcast).
class Timed {
 public:
  explicit Timed(const MpiRanks& r) : m_r(r) {
    if (m_r.m_depth++ == 0) m_cpu = cpu_now();
  }
  ~Timed() {
    if (--m_r.m_depth == 0) m_r.m_time.cpu_s += cpu_now() - m_cpu;
  }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  const MpiRanks& m_r;
  double m_cpu = 0;
};

MpiRanks::MpiRanks(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
  m_any_thread = provided >= MPI_THREAD_SERIALIZED;
  MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m_size);
}

MpiRanks::~MpiRanks() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::vector<std::string> MpiRanks::gather(const std::string& mine) const {
  const Timed timed(*this);
  if (m_rank != 0) {
    send_bytes(mine, 0);
    return {};
  }
  std::vector<std::string> all(static_cast<std::size_t>(m_size));
  all[0] = mine;
  for (int r = 1; r < m_size; ++r)
    all[static_cast<std::size_t>(r)] = receive_bytes(r);
  return all;
}

std::string MpiRanks::broadcast(const std::string& value) const {
  const Timed timed(*this);
  std::uint64_t n = value.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::string out = m_rank == 0 ? value : std::string(n, '\0');
  for (std::size_t at = 0; at < out.size(); at += kPiece) {
    const int len = static_cast<int>(std::min(kPiece, out.size() - at));
    MPI_Bcast(out.data() + at, len, MPI_BYTE, 0, MPI_COMM_WORLD);
  }
  return out;
}

std::vector<std::string> MpiRanks::all_gather(const std::string& mine) const {
  const Timed timed(*this);
  const auto size = static_cast<std::size_t>(m_size);
  std::vector<std::uint64_t> sizes(size);
  const std::uint64_t n = mine.size();
  MPI_Allgather(&n, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  std::uint64_t total = 0;
  for (const std::uint64_t k : sizes)
    total += k;
  if (total > kPiece) return Ranks::all_gather(mine);  // Every rank sees the same total.
  std::vector<int> counts(size);
  std::vector<int> at(size);
  int offset = 0;
  for (std::size_t r = 0; r < size; ++r) {
    counts[r] = static_cast<int>(sizes[r]);
    at[r] = offset;
    offset += counts[r];
  }
  std::string all(total, '\0');
  MPI_Allgatherv(mine.data(), static_cast<int>(n), MPI_BYTE, all.data(), counts.data(), at.data(),
                 MPI_BYTE, MPI_COMM_WORLD);
  std::vector<std::string> out(size);
  for (std::size_t r = 0; r < size; ++r)
    out[r].assign(all, static_cast<std::size_t>(at[r]), sizes[r]);
  return out;
}

std::vector<std::string> MpiRanks::all_to_all(const std::vector<std::string>& to) const {
  const Timed timed(*this);
  const auto size = static_cast<std::size_t>(m_size);
  if (to.size() != size) abort(3);
  std::vector<std::uint64_t> sizes(size);
  std::vector<std::uint64_t> incoming(size);
  std::uint64_t out_total = 0;
  for (std::size_t r = 0; r < size; ++r) {
    sizes[r] = to[r].size();
    out_total += sizes[r];
  }
  MPI_Alltoall(sizes.data(), 1, MPI_UINT64_T, incoming.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  std::uint64_t in_total = 0;
  for (const std::uint64_t k : incoming)
    in_total += k;
  // Counts and offsets are ints: past that, every rank takes the all-gather way (a collective
  // choice, so no rank waits in the other one).
  int big = out_total > kPiece || in_total > kPiece ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (big != 0) return Ranks::all_to_all(to);
  std::vector<int> send_counts(size), send_at(size), recv_counts(size), recv_at(size);
  std::string send;
  send.reserve(out_total);
  int s_off = 0;
  int r_off = 0;
  for (std::size_t r = 0; r < size; ++r) {
    send_counts[r] = static_cast<int>(sizes[r]);
    send_at[r] = s_off;
    s_off += send_counts[r];
    send += to[r];
    recv_counts[r] = static_cast<int>(incoming[r]);
    recv_at[r] = r_off;
    r_off += recv_counts[r];
  }
  std::string recv(in_total, '\0');
  MPI_Alltoallv(send.data(), send_counts.data(), send_at.data(), MPI_BYTE, recv.data(),
                recv_counts.data(), recv_at.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::vector<std::string> out(size);
  for (std::size_t r = 0; r < size; ++r)
    out[r].assign(recv, static_cast<std::size_t>(recv_at[r]), incoming[r]);
  return out;
}

void MpiRanks::abort(int code) const {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

std::string MpiRanks::library() const {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(std::max(len, 0)));
  const std::size_t nl = s.find_first_of("\n,");
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace cityforge::mpi
