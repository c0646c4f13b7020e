// SPDX-License-Identifier: Apache-2.0
// The geodata module's entry point (osm/geodata_api.hpp): the one symbol the program looks up
// after dlopen. Everything else in the module is hidden (-fvisibility=hidden).
#include "osm/geodata/dem_detail.hpp"

namespace cityforge::osm::detail {
namespace {

const GeodataApi kApi{
    kGeodataAbi, frame_open, frame_close, frame_to_local, frame_to_wgs84, read_dem_mosaic,
};

}  // namespace
}  // namespace cityforge::osm::detail

extern "C" __attribute__((visibility("default"))) const cityforge::osm::detail::GeodataApi*
cityforge_geodata_api() {
  return &cityforge::osm::detail::kApi;
}
