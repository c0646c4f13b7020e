// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cityforge/core/ranks.hpp"

/// The Ranks of a job started by an MPI launcher (mpirun, mpiexec, Slurm's srun), over
/// MPI_COMM_WORLD. Built only where CMake finds MPI (Open MPI or MPICH).
namespace cityforge::mpi {

/// MPI for the life of the object: MPI_Init_thread (funnelled: only the thread that made it
/// calls MPI; oneTBB's workers never do) on construction, MPI_Finalize on destruction. One per
/// process. Messages of any size go in pieces of at most 1 GiB.
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
  [[noreturn]] void abort(int code) const override;
  /// The MPI library's own name and version (MPI_Get_library_version, first line).
  std::string library() const;

 private:
  int m_rank = 0;
  int m_size = 1;
};

}  // namespace cityforge::mpi
