// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cityforge/core/ranks.hpp"

/// The Ranks of a job started by an MPI launcher (mpirun, mpiexec, Slurm's srun), over
/// MPI_COMM_WORLD: the MPI module (libcityforge_mpi_ranks.so), loaded by mpi::open_ranks.
/// Built only where CMake finds MPI (Open MPI or MPICH).
namespace cityforge::mpi {

/// MPI for the life of the object: MPI_Init_thread on construction, MPI_Finalize on
/// destruction. One per process. It asks for MPI_THREAD_SERIALIZED, so that a pipeline stage
/// running on a oneTBB worker may call the collectives (one call at a time: the stages that
/// share work never run at once); with less, any_thread() is false and such stages compute
/// everything on every rank. Messages of any size go in pieces of at most 1 GiB.
class MpiRanks final : public Ranks {
 public:
  /// Initialises MPI with the program's arguments.
  MpiRanks(int* argc, char*** argv);
  ~MpiRanks() override;
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  std::vector<std::string> gather(const std::string& mine) const override;
  std::string broadcast(const std::string& value) const override;
  /// MPI_Allgatherv when the whole fits MPI's int counts; else through rank 0 in pieces.
  std::vector<std::string> all_gather(const std::string& mine) const override;
  std::vector<std::string> all_to_all(const std::vector<std::string>& to) const override;
  [[noreturn]] void abort(int code) const override;
  /// The MPI library's own name and version (MPI_Get_library_version, first line).
  std::string library() const;
  bool any_thread() const override { return m_any_thread; }
  CollectiveTime collective_time() const override { return m_time; }

 private:
  friend class Timed;
  mutable CollectiveTime m_time;
  mutable int m_depth = 0;  ///< Collectives in progress (the fallbacks call others).
  bool m_any_thread = false;
  int m_rank = 0;
  int m_size = 1;
};

}  // namespace cityforge::mpi
