// SPDX-License-Identifier: Apache-2.0
// The MPI module's entry point (cityforge/mpi/mpi_ranks.hpp): the one symbol mpi::open_ranks
// looks up after dlopen. Everything else in the module is hidden (-fvisibility=hidden).
#include "mpi/ranks/mpi_ranks.hpp"

extern "C" __attribute__((visibility("default"))) cityforge::Ranks* cityforge_mpi_ranks_open(
    int* argc, char*** argv) {
  return new cityforge::mpi::MpiRanks(argc, argv);
}
