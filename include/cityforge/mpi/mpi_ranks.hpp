// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>

#include "cityforge/core/ranks.hpp"
#include "cityforge/core/result.hpp"

/// The ranks of a job started by an MPI launcher (mpirun, mpiexec, Slurm's srun). MPI itself is
/// in a module of its own (libcityforge_mpi_ranks.so, src/mpi/ranks/), loaded by open_ranks, so
/// that a program not started by a launcher never loads the MPI library. Built only where CMake
/// finds MPI (Open MPI or MPICH).
namespace cityforge::mpi {

/// Loads the MPI module and initialises MPI with the program's arguments (MPI_Init_thread
/// asking for MPI_THREAD_SERIALIZED, so that a pipeline stage running on a oneTBB worker may
/// call the collectives one at a time; with less, any_thread() is false and such stages
/// compute everything on every rank). MPI_Finalize when the Ranks is destroyed; one per process.
/// Messages of any size go in pieces of at most 1 GiB. Errors (internal): the module cannot be
/// loaded (the file and the loader's reason).
Result<std::unique_ptr<Ranks>> open_ranks(int* argc, char*** argv);

}  // namespace cityforge::mpi
