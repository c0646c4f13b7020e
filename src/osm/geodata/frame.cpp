// SPDX-License-Identifier: Apache-2.0
// The local metric frame through PROJ (the module side of osm::Projection). The frame is a PROJ
// pipeline of plain +proj steps (degrees to radians, then tmerc), so it needs no proj.db.
#include "osm/geodata/frame.hpp"

namespace cityforge::osm::detail {

GeoFrame* frame_open(const std::string& pipeline, std::string* error, bool* internal) {
  auto frame = std::make_unique<GeoFrame>();
  frame->ctx = proj_context_create();
  if (!frame->ctx) {
    *error = "PROJ could not create a context";
    *internal = true;
    return nullptr;
  }
  proj_log_level(frame->ctx, PJ_LOG_NONE);
  frame->pj = proj_create(frame->ctx, pipeline.c_str());
  if (!frame->pj) {
    *error = proj_context_errno_string(frame->ctx, proj_context_errno(frame->ctx));
    *internal = false;
    return nullptr;
  }
  return frame.release();
}

void frame_close(GeoFrame* frame) { delete frame; }

Vec2 frame_to_local(GeoFrame& frame, double lon_deg, double lat_deg) {
  std::lock_guard<std::mutex> lock(frame.mutex);
  const PJ_COORD out = proj_trans(frame.pj, PJ_FWD, proj_coord(lon_deg, lat_deg, 0.0, 0.0));
  return Vec2{out.xy.x, out.xy.y};
}

std::pair<double, double> frame_to_wgs84(GeoFrame& frame, Vec2 p) {
  std::lock_guard<std::mutex> lock(frame.mutex);
  const PJ_COORD out = proj_trans(frame.pj, PJ_INV, proj_coord(p.x, p.y, 0.0, 0.0));
  return {out.xy.x, out.xy.y};
}

}  // namespace cityforge::osm::detail
