// SPDX-License-Identifier: Apache-2.0
// mpi::open_ranks: loads the MPI module (src/mpi/ranks/) and opens MPI through it.
#include "cityforge/core/loadable.hpp"
#include "cityforge/mpi/mpi_ranks.hpp"

#ifndef CITYFORGE_MPI_MODULE
#error "CITYFORGE_MPI_MODULE must name the MPI module the build makes"
#endif

namespace cityforge::mpi {

Result<std::unique_ptr<Ranks>> open_ranks(int* argc, char*** argv) {
  Result<void*> entry =
      load_module({"libcityforge_mpi_ranks.so", CITYFORGE_MPI_MODULE, "CITYFORGE_MPI_MODULE",
                   "cityforge_mpi_ranks_open", "MPI, needed under mpirun"});
  if (!entry) return entry.error();
  using Open = Ranks* (*)(int*, char***);
  return std::unique_ptr<Ranks>(reinterpret_cast<Open>(*entry)(argc, argv));
}

}  // namespace cityforge::mpi
