// SPDX-License-Identifier: Apache-2.0
// Loadable modules: parts of the program that bring heavy shared libraries (GDAL and PROJ for
// imports, MPI for runs under mpirun) are built as modules of their own and loaded with dlopen
// by the first call that needs them, so that no other command pays for loading those libraries
// at start-up (README, Performance). System libraries used by a few commands are opened the
// same way (open_system_library).
#pragma once

#include <string>

#include "cityforge/core/result.hpp"

namespace cityforge {

/// Where a module is and what it is for.
struct LoadableModule {
  std::string file_name;   ///< "libcityforge_geodata.so".
  std::string built_path;  ///< Where this build put it (absolute).
  std::string env_var;     ///< An environment variable that, when set, names the file instead.
  std::string entry;       ///< The one exported symbol looked up.
  std::string purpose;     ///< For errors: "GDAL and PROJ, needed for imports".
};

/// Loads `m` (RTLD_NOW | RTLD_LOCAL, never unloaded) and returns its entry symbol. Looked for
/// where m.env_var says when it is set, else beside the running program (a copied or installed
/// build), then at m.built_path. Errors (internal) name each file tried and what the loader
/// said. Not cached: callers load once (std::call_once) and keep the entry.
Result<void*> load_module(const LoadableModule& m);

/// A system library opened with dlopen (RTLD_LAZY | RTLD_LOCAL, never unloaded) rather than
/// linked, so that starting the program does not pay for it (GEOS, METIS).
struct SystemLibrary {
  std::string name;        ///< The file asked for.
  void* handle = nullptr;  ///< Null when it could not be loaded.
  std::string error;       ///< "cannot load NAME (PURPOSE): what the loader said"; or empty.
};
/// Opens the file that `env_var` names when it is set, else `soname` (the loader's search).
/// `purpose` says what the library is for and which Debian package brings it.
SystemLibrary open_system_library(const char* env_var, const char* soname,
                                  const std::string& purpose);

}  // namespace cityforge
