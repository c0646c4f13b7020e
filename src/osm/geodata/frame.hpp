// SPDX-License-Identifier: Apache-2.0
// The module side of the local frame (geodata_api.hpp): one PROJ context and transformer per
// frame, calls serialised by a mutex (a PJ object is not safe to use from two threads at once).
#pragma once

#include <proj.h>

#include <memory>
#include <mutex>
#include <string>

#include "osm/geodata_api.hpp"

namespace cityforge::osm::detail {

struct GeoFrame {
  std::mutex mutex;
  PJ_CONTEXT* ctx = nullptr;
  PJ* pj = nullptr;
  GeoFrame() = default;
  GeoFrame(const GeoFrame&) = delete;
  GeoFrame& operator=(const GeoFrame&) = delete;
  ~GeoFrame() {
    if (pj) proj_destroy(pj);
    if (ctx) proj_context_destroy(ctx);
  }
};

GeoFrame* frame_open(const std::string& pipeline, std::string* error, bool* internal);
void frame_close(GeoFrame* frame);
Vec2 frame_to_local(GeoFrame& frame, double lon_deg, double lat_deg);
std::pair<double, double> frame_to_wgs84(GeoFrame& frame, Vec2 p);

/// A frame owned by the module's own code (the DEM readers).
struct FrameCloser {
  void operator()(GeoFrame* f) const { frame_close(f); }
};
using FramePtr = std::unique_ptr<GeoFrame, FrameCloser>;

}  // namespace cityforge::osm::detail
