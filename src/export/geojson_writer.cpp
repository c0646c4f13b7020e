// SPDX-License-Identifier: Apache-2.0
// layout.geojson: roads, blocks and zones as a GeoJSON FeatureCollection in local metres.
// Based on: RFC 7946, The GeoJSON Format (rings closed, exterior counter-clockwise).
//
// Written by hand rather than through nlohmann::json because the style guide asks for %.9g
// numbers, which nlohmann's shortest round-trip printer does not produce. One feature per line.

#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cityforge/core/json_text.hpp"
#include "cityforge/export/export.hpp"

namespace cityforge::exporter {

namespace {

/// Local metres -> WGS84 for imported places (null for invented cities: coordinates stay local).
using ToWgs84 = std::function<std::pair<double, double>(Vec2)>;
std::vector<Vec2> to_output(const std::vector<Vec2>& pts, const ToWgs84& f) {
  if (!f) return pts;
  std::vector<Vec2> out;
  out.reserve(pts.size());
  for (const Vec2& p : pts) {
    const auto [lon, lat] = f(p);
    out.push_back(Vec2{lon, lat});
  }
  return out;
}

void polygon_geometry(JsonText& j, const Polygon& in, const std::string& where, const ToWgs84& f) {
  Polygon poly;
  poly.outer = to_output(in.outer, f);
  for (const Ring& h : in.holes)
    poly.holes.push_back(to_output(h, f));
  j.key("geometry");
  j.raw("{");
  j.key("type", true);
  j.string("Polygon");
  j.key("coordinates");
  j.raw("[");
  j.ring(poly.outer, where + ".outer");
  for (std::size_t h = 0; h < poly.holes.size(); ++h) {
    j.raw(",");
    j.ring(poly.holes[h], where + ".holes[" + std::to_string(h) + "]");
  }
  j.raw("]}");
}

/// `{"type":"Feature","properties":{"layer":"<layer>"`: the start every feature shares.
void begin_feature(JsonText& j, std::string_view layer) {
  j.raw("{");
  j.key("type", true);
  j.string("Feature");
  j.key("properties");
  j.raw("{");
  j.key("layer", true);
  j.string(layer);
}

void road_feature(JsonText& j, const layout::RoadEdge& e, std::size_t index, const ToWgs84& f) {
  const std::string where = "network.edges[" + std::to_string(index) + "]";
  begin_feature(j, "road");
  j.key("id");
  j.integer(e.id);
  j.key("class");
  j.string(layout::to_string(e.road_class));
  j.key("width_m");
  j.number(e.width_m, where + ".width_m");
  j.key("lanes_per_direction");
  j.integer(e.lanes_per_direction);
  j.key("sidewalk_width_m");
  j.number(e.sidewalk_width_m, where + ".sidewalk_width_m");
  j.key("speed_limit_kmh");
  j.number(e.speed_limit_kmh, where + ".speed_limit_kmh");
  j.key("length_m");
  j.number(e.length_m, where + ".length_m");
  j.key("traffic_density");
  j.number(e.traffic_density, where + ".traffic_density");
  j.key("pedestrian_density");
  j.number(e.pedestrian_density, where + ".pedestrian_density");
  j.key("from");
  j.integer(e.from);
  j.key("to");
  j.integer(e.to);
  j.key("artery_index");
  j.integer(e.artery_index);
  if (e.osm_way != 0) {
    j.key("osm_way");
    j.integer(e.osm_way);
    j.key("highway_index");
    j.integer(e.highway);
    j.key("lanes_backward");
    j.integer(e.lanes_back());
    j.key("oneway");
    j.raw(e.lanes_back() == 0 ? "true" : "false");
    j.key("osm_layer");
    j.integer(e.layer);
    j.key("bridge");
    j.raw(e.bridge ? "true" : "false");
    j.key("tunnel");
    j.raw(e.tunnel ? "true" : "false");
    j.key("lit");
    j.raw(e.lit ? "true" : "false");
  }
  j.raw("}");
  j.key("geometry");
  j.raw("{");
  j.key("type", true);
  j.string("LineString");
  j.key("coordinates");
  j.line(to_output(e.points, f), where + ".points");
  j.raw("}}");
}

void block_feature(JsonText& j, const layout::Block& b, std::size_t index, const ToWgs84& f) {
  const std::string where = "blocks[" + std::to_string(index) + "]";
  begin_feature(j, "block");
  j.key("id");
  j.integer(b.id);
  j.key("zone");
  j.string(layout::to_string(b.zone));
  j.key("zone_index");
  j.integer(b.zone_index);
  j.key("target_height_m");
  j.number(b.target_height_m, where + ".target_height_m");
  j.key("density");
  j.number(b.density, where + ".density");
  j.key("frontage");
  j.raw("[");
  for (std::size_t i = 0; i < b.frontage.size(); ++i) {
    if (i > 0) {
      j.raw(",");
    }
    j.integer(b.frontage[i]);
  }
  j.raw("]}");
  polygon_geometry(j, b.area, where + ".area", f);
  j.raw("}");
}

void zone_feature(JsonText& j, const layout::Zone& z, std::size_t index, const ToWgs84& f) {
  const std::string where = "zones[" + std::to_string(index) + "]";
  begin_feature(j, "zone");
  j.key("index");
  j.integer(static_cast<long long>(index));
  j.key("name");
  j.string(z.name);
  j.key("zone");
  j.string(layout::to_string(z.kind));
  j.key("min_height_m");
  j.number(z.min_height_m, where + ".min_height_m");
  j.key("max_height_m");
  j.number(z.max_height_m, where + ".max_height_m");
  j.key("density");
  j.number(z.density, where + ".density");
  j.raw("}");
  polygon_geometry(j, z.area, where + ".area", f);
  j.raw("}");
}

void lot_feature(JsonText& j, const lots::Lot& lot, const ToWgs84& f) {
  const std::string where = "lots[" + std::to_string(lot.id) + "]";
  begin_feature(j, "lot");
  j.key("id");
  j.integer(lot.id);
  j.key("block");
  j.integer(lot.block);
  j.key("status");
  j.string(lots::to_string(lot.status));
  j.key("narrow");
  j.raw(lot.narrow ? "true" : "false");
  j.key("zone");
  j.string(layout::to_string(lot.zone));
  j.key("target_height_m");
  j.number(lot.target_height_m, where + ".target_height_m");
  j.key("parcels");
  j.integer(static_cast<long long>(lot.parcels.size()));
  j.raw("}");
  polygon_geometry(j, lot.area, where + ".area", f);
  j.raw("}");
}

void building_feature(JsonText& j, const buildings::Building& b,
                      const buildings::StyleLibrary& styles, const ToWgs84& f) {
  const std::string where = "buildings[" + std::to_string(b.id) + "]";
  begin_feature(j, "building");
  j.key("id");
  j.integer(b.id);
  j.key("lot");
  j.integer(b.lot);
  j.key("style");
  j.string(b.style < styles.styles.size() ? styles.styles[b.style].name : "");
  j.key("shape");
  j.string(lots::to_string(b.shape));
  j.key("height_m");
  j.number(b.height_m, where + ".height_m");
  j.key("floors");
  j.integer(b.floors);
  j.key("base_z_m");
  j.number(b.base_z_m, where + ".base_z_m");
  j.key("tiers");
  j.integer(static_cast<long long>(b.volumes.size()));
  j.key("rooms");
  j.integer(b.rooms);
  j.raw("}");
  polygon_geometry(j, b.volumes.empty() ? Polygon{} : b.volumes.front().footprint,
                   where + ".footprint", f);
  j.raw("}");
}

void metadata(JsonText& j, const Origin& origin) {
  j.key("cityforge");
  j.raw("{");
  j.key("units", true);
  j.string("m");
  j.key("crs");
  j.string(origin.to_wgs84
               ? "WGS 84 longitude, latitude in degrees (RFC 7946); the engine's local frame is "
                 "origin.local_crs (metres, x east, y north)"
           : origin.georeferenced
               ? "local metres: x east, y north from the origin (lon_deg, lat_deg); not WGS 84 "
                 "despite RFC 7946, project with a local tangent plane"
               : "local metres: x east, y north; invented city, not georeferenced, not WGS 84 "
                 "despite RFC 7946");
  j.key("origin");
  j.raw("{");
  j.key("georeferenced", true);
  j.raw(origin.georeferenced ? "true" : "false");
  j.key("lon_deg");
  j.number(origin.lon_deg, "origin.lon_deg");
  j.key("lat_deg");
  j.number(origin.lat_deg, "origin.lat_deg");
  if (!origin.local_crs.empty()) {
    j.key("local_crs");
    j.string(origin.local_crs);
  }
  j.raw("}");
  if (origin.to_wgs84) {
    // Tells readers (crowd files, the viewer) to map lon / lat back onto the local frame.
    j.key("coordinates");
    j.string("wgs84");
  }
  if (!origin.attribution.empty()) {
    j.key("attribution");
    j.string(origin.attribution);
  }
  j.raw("}");
}

}  // namespace

Result<std::string> layout_geojson(const layout::Output& city, const Origin& origin,
                                   const lots::Output* lots, const buildings::Output* buildings,
                                   const buildings::StyleLibrary* styles) {
  JsonText j;
  j.raw("{");
  j.key("type", true);
  j.string("FeatureCollection");
  metadata(j, origin);
  j.key("features");
  j.raw("[");
  // Roads, blocks, zones, lots, buildings, each in index order; one feature per line.
  bool first = true;
  const auto next = [&] {
    j.raw(first ? "\n" : ",\n");
    first = false;
  };
  for (std::size_t i = 0; i < city.network.edges.size(); ++i) {
    next();
    road_feature(j, city.network.edges[i], i, origin.to_wgs84);
  }
  for (std::size_t i = 0; i < city.blocks.size(); ++i) {
    next();
    block_feature(j, city.blocks[i], i, origin.to_wgs84);
  }
  for (std::size_t i = 0; i < city.zones.size(); ++i) {
    next();
    zone_feature(j, city.zones[i], i, origin.to_wgs84);
  }
  if (lots != nullptr) {
    for (const lots::Lot& lot : lots->lots) {
      next();
      lot_feature(j, lot, origin.to_wgs84);
    }
  }
  if (buildings != nullptr && styles != nullptr) {
    for (const buildings::Building& b : buildings->buildings) {
      next();
      building_feature(j, b, *styles, origin.to_wgs84);
    }
  }
  j.raw("\n]}\n");
  if (j.error()) {
    return *j.error();
  }
  return std::move(j.str());
}

}  // namespace cityforge::exporter
