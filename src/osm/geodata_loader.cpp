// SPDX-License-Identifier: Apache-2.0
// Loads the geodata module (geodata_api.hpp) on first use, once per process.
#include <mutex>
#include <string>

#include "cityforge/core/loadable.hpp"
#include "osm/geodata_api.hpp"

#ifndef CITYFORGE_GEODATA_MODULE
#error "CITYFORGE_GEODATA_MODULE must name the geodata module the build makes"
#endif

namespace cityforge::osm::detail {
namespace {

Result<const GeodataApi*> load() {
  const LoadableModule m{"libcityforge_geodata.so", CITYFORGE_GEODATA_MODULE,
                         "CITYFORGE_GEODATA_MODULE", kGeodataEntry,
                         "GDAL and PROJ, needed to import a place"};
  Result<void*> entry = load_module(m);
  if (!entry) return entry.error();
  const GeodataApi* api = reinterpret_cast<GeodataEntry>(*entry)();
  if (api == nullptr || api->abi != kGeodataAbi) {
    return Error::internal(m.file_name, "expected the geodata module of this build (ABI " +
                                            std::to_string(kGeodataAbi) +
                                            "); rebuild cityforge so the program and module match");
  }
  return api;
}

}  // namespace

Result<const GeodataApi*> geodata() {
  static std::once_flag once;
  static Result<const GeodataApi*> loaded = Error::internal("geodata module", "not loaded");
  std::call_once(once, [] { loaded = load(); });
  return loaded;
}

}  // namespace cityforge::osm::detail
