// SPDX-License-Identifier: Apache-2.0
// stats.json of a city run (seeds/000's figures: km of streets, buildings, instances, occlusion
// saving, rooftops, props) and the console summary read from the same JSON.
#include "cityforge/pipeline/city_stats.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "cityforge/core/format.hpp"
#include "cityforge/core/polygon.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/osm/osm.hpp"
#include "cityforge/roads/roads.hpp"

namespace cityforge::pipeline {
namespace {

nlohmann::ordered_json stats_json(const CityConfig& cfg, const CityResult& r) {
  using nlohmann::ordered_json;
  const layout::Output& city = *r.layout;
  const auto km = layout::road_length_by_class(city.network);
  ordered_json j;
  j["cityforge_version"] = "0.1.0";
  j["city"] = cfg.name;
  j["seed"] = cfg.seed;
  ordered_json roads;
  double total_km = 0;
  for (std::size_t c = 0; c < layout::kRoadClassCount; ++c) {
    roads[layout::to_string(static_cast<layout::RoadClass>(c))] = km[c] / 1000.0;
    total_km += km[c] / 1000.0;
  }
  roads["total"] = total_km;
  j["road_km"] = roads;
  j["counts"] = {{"road_nodes", city.network.nodes.size()},
                 {"road_edges", city.network.edges.size()},
                 {"blocks", city.blocks.size()},
                 {"regions", city.regions.size()},
                 {"zones", city.zones.size()},
                 {"arteries", city.routed_arteries.size()},
                 {"terrain_samples", r.terrain->heights.size()}};
  double block_area = 0;
  for (const auto& b : city.blocks)
    block_area += polygon_area(b.area);
  j["block_area_km2"] = block_area / 1e6;
  // Roads: junctions by control, lanes by kind, modules by class and size.
  const roads::Output& rd = *r.roads;
  ordered_json controls = {{"none", 0}, {"yield", 0}, {"stop", 0}, {"signal", 0}};
  for (const auto& x : rd.intersections) {
    controls[roads::to_string(x.control)] = controls[roads::to_string(x.control)].get<int>() + 1;
  }
  std::size_t vehicle = 0, connectors = 0, sidewalk = 0, crosswalk = 0;
  double vehicle_km = 0, sidewalk_km = 0;
  for (const auto& l : rd.lanes.lanes) {
    if ((l.tags & roads::kVehicle) && (l.tags & roads::kIntersection)) {
      ++connectors;
    } else if (l.tags & roads::kVehicle) {
      ++vehicle;
      vehicle_km += l.length_m / 1000.0;
    }
    if (l.tags & roads::kSidewalk) {
      ++sidewalk;
      sidewalk_km += l.length_m / 1000.0;
    }
    if (l.tags & roads::kCrosswalk) ++crosswalk;
  }
  j["intersections"] = controls;
  j["lanes"] = {{"vehicle", vehicle},
                {"connectors", connectors},
                {"sidewalk", sidewalk},
                {"crosswalk", crosswalk},
                {"vehicle_lane_km", vehicle_km},
                {"sidewalk_km", sidewalk_km},
                {"signal_plans", rd.lanes.signals.size()}};
  ordered_json modules;
  for (std::size_t c = 0; c < layout::kRoadClassCount; ++c) {
    std::array<std::size_t, 3> by_size{};
    std::size_t scaled = 0;
    for (const auto& m : rd.modules) {
      if (m.road_class != c || m.in_intersection) continue;
      ++by_size[m.size < 3 ? m.size : 2];
      if (m.scale != 1.0) ++scaled;
    }
    modules[layout::to_string(static_cast<layout::RoadClass>(c))] = {
        {"20m", by_size[0]}, {"10m", by_size[1]}, {"5m", by_size[2]}, {"scaled", scaled}};
  }
  std::size_t junction_fill = 0;
  for (const auto& m : rd.modules)
    junction_fill += m.in_intersection ? 1 : 0;
  modules["junction_fill"] = junction_fill;
  j["road_modules"] = modules;
  const freeway::Output& fw = *r.freeway;
  double deck_km = 0;
  for (const auto& d : fw.decks)
    deck_km += d.length_m / 1000.0;
  std::size_t off = 0;
  for (const auto& ramp : fw.ramps)
    off += ramp.off ? 1 : 0;
  j["freeway"] = {
      {"decks", fw.decks.size()}, {"deck_km", deck_km}, {"pillars", fw.pillars.size()},
      {"lanes", fw.lanes.size()}, {"off_ramps", off},   {"on_ramps", fw.ramps.size() - off},
      {"warnings", fw.warnings}};
  // Lots and buildings (seeds/000: ~7,000 buildings, 8 M instances, 25 % occlusion saving).
  const lots::Stats& ls = r.lots->stats;
  ordered_json by_status;
  for (std::size_t k = 0; k < ls.lots_by_status.size(); ++k)
    by_status[lots::to_string(static_cast<lots::LotStatus>(k))] = ls.lots_by_status[k];
  j["lots"] = {{"lots", ls.lots},
               {"narrow_lots", ls.narrow_lots},
               {"parcels", ls.parcels},
               {"buildings", ls.buildings},
               {"by_status", by_status}};
  const buildings::Stats& bs = r.buildings->stats;
  ordered_json by_tag;
  for (std::size_t k = 0; k < buildings::kModuleTagCount; ++k)
    by_tag[buildings::tag_name(k)] = bs.modules_by_tag[k];
  ordered_json by_shape;
  for (std::size_t k = 0; k < lots::kFootprintShapeCount; ++k)
    by_shape[lots::to_string(static_cast<lots::FootprintShape>(k))] = bs.buildings_by_shape[k];
  ordered_json by_style;
  for (const auto& style : r.styles->styles)
    by_style[style.name] = 0;
  for (const auto& b : r.buildings->buildings) {
    const std::string& name = r.styles->styles[b.style].name;
    by_style[name] = by_style[name].get<std::size_t>() + 1;
  }
  j["buildings"] = {{"buildings", bs.buildings},
                    {"floors", bs.floors},
                    {"instances", bs.instances},
                    {"modules_before_occlusion", bs.modules_before_occlusion},
                    {"modules_occluded", bs.modules_occluded},
                    {"occlusion_reduction", bs.occlusion_reduction()},
                    {"modules_by_tag", by_tag},
                    {"footprints_by_shape", by_shape},
                    {"by_style", by_style},
                    {"entrances", bs.entrances},
                    {"rooms", bs.rooms},
                    {"grammar_fallbacks", bs.grammar_fallbacks},
                    {"roof_triangles", bs.roof_triangles}};
  // Set dressing: counts per prop and category, furnished sidewalk, instance totals.
  const dressing::Stats& ds = r.dressing->stats;
  ordered_json by_prop;
  for (std::size_t p = 0; p < ds.items_by_prop.size(); ++p) {
    if (ds.items_by_prop[p] > 0) by_prop[dressing::prop_catalog()[p].id] = ds.items_by_prop[p];
  }
  ordered_json by_category;
  for (std::size_t c = 0; c < dressing::kCategoryCount; ++c)
    by_category[dressing::to_string(static_cast<dressing::Category>(c))] = ds.items_by_category[c];
  ordered_json zones;
  for (std::size_t k = 0; k < dressing::kZoneKindCount; ++k)
    zones[dressing::to_string(static_cast<dressing::ZoneKind>(k))] = ds.zones_by_kind[k];
  j["dressing"] = {{"items", r.dressing->items.size()},
                   {"by_category", by_category},
                   {"by_prop", by_prop},
                   {"furnished_sidewalk_km", ds.furnished_sidewalk_km},
                   {"lights", ds.lights},
                   {"leftover_zones", zones},
                   {"biome_stamps", ds.biome_stamps},
                   {"parking_spots", ds.parking_spots},
                   {"audio_points", ds.audio_points},
                   {"removed_overlaps", ds.removed_overlaps},
                   {"warnings", r.dressing->warnings}};
  // WFC rooftops (seeds/000: 2,600 rooftops from 33 tiles and ~5,000 constraints).
  const std::size_t rooftop_instances = r.rooftops ? r.rooftops->instances.size() : 0;
  if (r.rooftops) {
    const rooftops::RooftopStats& rs = r.rooftops->stats;
    ordered_json by_tile = ordered_json::object();
    std::vector<std::size_t> per_tile(r.rooftops->tile_names.size(), 0);
    for (const auto& in : r.rooftops->instances) {
      if (in.tile < per_tile.size()) ++per_tile[in.tile];
    }
    for (std::size_t t = 0; t < per_tile.size(); ++t) {
      if (per_tile[t] > 0) by_tile[r.rooftops->tile_names[t]] = per_tile[t];
    }
    j["rooftops"] = {{"enabled", cfg.rooftops.enabled},
                     {"roofs_considered", rs.roofs_considered},
                     {"rooftops", rs.rooftops},
                     {"failed", rs.failed},
                     {"cells", rs.cells},
                     {"instances", rs.instances},
                     {"props", rs.props},
                     {"constraints", rs.constraints},
                     {"base_tiles", rs.base_tiles},
                     {"variants", rs.variants},
                     {"backtracks", rs.backtracks},
                     {"contradictions", rs.contradictions},
                     {"by_tile", by_tile}};
  }
  j["instances"] = {{"building_modules", r.buildings->stats.instances},
                    {"props", r.dressing->items.size()},
                    {"road_modules", r.roads->modules.size()},
                    {"rooftop_tiles", rooftop_instances},
                    {"total", r.buildings->stats.instances + r.dressing->items.size() +
                                  r.roads->modules.size() + rooftop_instances}};
  return j;
}

/// Adds the members of the JSON object `text` to `j`.
void merge_object(nlohmann::ordered_json& j, const std::string& text) {
  const nlohmann::ordered_json more = nlohmann::ordered_json::parse(text);
  for (auto it = more.begin(); it != more.end(); ++it)
    j[it.key()] = *it;
}

nlohmann::ordered_json timings_json(const RunTimings& t) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["threads"] = t.threads;
  j["ranks"] = t.ranks;
  ordered_json st = ordered_json::array();
  for (const auto& s : t.stages) {
    st.push_back({{"name", s.name},
                  {"wall_s", s.wall_s},
                  {"cached", s.cached},
                  {"peak_rss_mib", static_cast<double>(s.peak_rss_kb) / 1024.0},
                  {"resident_mib", static_cast<double>(s.resident_kb) / 1024.0}});
  }
  j["stages"] = st;
  j["total_wall_s"] = t.total_s;
  // The job's peak: the largest rank's (each rank holds its own memory).
  // (VmHWM restarts at every stage: the run's peak is the largest of the stages' and now.)
  std::int64_t peak_kb = pipeline::peak_rss_kb();
  for (const pipeline::StageStats& s : t.stages)
    peak_kb = std::max(peak_kb, s.peak_rss_kb);
  double peak = static_cast<double>(peak_kb) / 1024.0;
  if (!t.per_rank.empty()) {
    ordered_json ranks = ordered_json::array();
    peak = 0.0;
    for (std::size_t r = 0; r < t.per_rank.size(); ++r) {
      ranks.push_back(
          {{"rank", r}, {"peak_rss_mib", t.per_rank[r].first}, {"tiles_s", t.per_rank[r].second}});
      peak = std::max(peak, t.per_rank[r].first);
    }
    j["peak_rss_mib"] = peak;
    j["per_rank"] = ranks;
  } else {
    j["peak_rss_mib"] = peak;
  }
  if (!t.more.empty()) merge_object(j, t.more);
  return j;
}

nlohmann::ordered_json import_stats(const ImportReport& r) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["source"] = r.source;
  j["attribution"] = pipeline::kOsmAttribution;
  j["bounds"] = {r.bounds.min_lon, r.bounds.min_lat, r.bounds.max_lon, r.bounds.max_lat};
  j["origin"] = {{"lon_deg", r.lon0}, {"lat_deg", r.lat0}, {"local_crs", r.local_crs}};
  j["area_km2"] = r.area_km2;
  j["terrain_cell_m"] = r.cell_m;
  j["read"] = {{"nodes", r.read.nodes},
               {"ways", r.read.ways},
               {"relations", r.read.relations},
               {"nodes_kept", r.nodes_kept},
               {"ways_kept", r.ways_kept},
               {"areas_kept", r.areas_kept},
               {"ways_missing_nodes", r.read.ways_missing_nodes},
               {"areas_invalid", r.read.areas_invalid},
               {"relations_incomplete", r.read.relations_incomplete}};
  if (r.dem) {
    j["dem"] = {{"driver", r.dem->driver},
                {"crs", r.dem->crs},
                {"voids_filled", r.dem->voids_filled},
                {"min_m", r.dem->min_m},
                {"max_m", r.dem->max_m}};
  } else {
    j["dem"] = nullptr;
  }
  j["cut_and_fill"] = {{"samples_changed", r.condition.samples_changed},
                       {"max_cut_m", r.condition.max_cut_m},
                       {"max_fill_m", r.condition.max_fill_m}};
  const osm::RoadCensus& rc = r.roads;
  j["roads"] = {{"highway_ways", rc.highway_ways},     {"vehicle_ways", rc.vehicle_ways},
                {"path_ways", rc.path_ways},           {"skipped_ways", rc.skipped_ways},
                {"tunnel_ways", rc.tunnel_ways},       {"edges", rc.edges},
                {"signal_nodes", rc.signal_nodes},     {"signals_mapped", rc.signals_mapped},
                {"crossing_nodes", rc.crossing_nodes}, {"crossings_mapped", rc.crossings_mapped}};
  const osm::BuildingCensus& bc = r.buildings;
  ordered_json roofs;
  for (std::size_t k = 0; k < lots::kRoofShapeCount; ++k)
    roofs[lots::to_string(static_cast<lots::RoofShape>(k))] = bc.roofs_by_shape[k];
  j["buildings"] = {{"building_areas", bc.building_areas},
                    {"part_areas", bc.part_areas},
                    {"buildings", bc.buildings},
                    {"parts_used", bc.parts_used},
                    {"skipped_invalid", bc.skipped_invalid},
                    {"skipped_tiny", bc.skipped_tiny},
                    {"heights_tagged", bc.heights_tagged},
                    {"heights_drawn", bc.heights_drawn},
                    {"roofs", roofs}};
  const osm::FeatureCensus& fc = r.features;
  j["features"] = {{"ground_areas", fc.ground_areas},
                   {"water_areas", fc.water_areas},
                   {"props_mapped", fc.props_mapped},
                   {"trees_mapped", fc.trees_mapped},
                   {"barrier_ways", fc.barrier_ways}};
  j["warning_count"] = r.warnings.size();
  j["warnings"] = r.warnings;
  return j;
}

std::string summary(const CityConfig& cfg, const CityResult& city, const RunTimings& timings,
                    const nlohmann::ordered_json& stats) {
  std::string out;
  const auto& roads = stats["road_km"];
  append_printf(out,
                "\n%s: %.1f km of roads (artery %.1f, main %.1f, local %.1f), %zu blocks, "
                "%zu junctions\n",
                cfg.name.c_str(), roads["total"].get<double>(), roads["artery"].get<double>(),
                roads["main"].get<double>(), roads["local"].get<double>(),
                city.layout->blocks.size(), city.layout->network.nodes.size());
  const auto& lt = stats["lots"];
  const auto& bd = stats["buildings"];
  append_printf(out,
                "lots: %zu lots, %zu parcels; buildings: %zu (%zu floors), %zu module instances, "
                "%.1f %% of modules occluded, %zu entrances, %zu rooms\n",
                lt["lots"].get<std::size_t>(), lt["parcels"].get<std::size_t>(),
                bd["buildings"].get<std::size_t>(), bd["floors"].get<std::size_t>(),
                bd["instances"].get<std::size_t>(), 100.0 * bd["occlusion_reduction"].get<double>(),
                bd["entrances"].get<std::size_t>(), bd["rooms"].get<std::size_t>());
  if (stats.contains("rooftops")) {
    const auto& rt = stats["rooftops"];
    append_printf(out,
                  "rooftops: %zu solved, %zu failed (of %zu roof tops), %zu cells, %zu tiles + %zu "
                  "props from %zu base tiles and %zu constraints\n",
                  rt["rooftops"].get<std::size_t>(), rt["failed"].get<std::size_t>(),
                  rt["roofs_considered"].get<std::size_t>(), rt["cells"].get<std::size_t>(),
                  rt["instances"].get<std::size_t>(), rt["props"].get<std::size_t>(),
                  rt["base_tiles"].get<std::size_t>(), rt["constraints"].get<std::size_t>());
  }
  const auto& dd = stats["dressing"];
  append_printf(
      out,
      "dressing: %zu props (%zu lights), %.1f km of tiled sidewalk, %zu biome stamps, %zu "
      "parking spots, %zu audio points; %zu instances in all\n",
      dd["items"].get<std::size_t>(), dd["lights"].get<std::size_t>(),
      dd["furnished_sidewalk_km"].get<double>(), dd["biome_stamps"].get<std::size_t>(),
      dd["parking_spots"].get<std::size_t>(), dd["audio_points"].get<std::size_t>(),
      stats["instances"]["total"].get<std::size_t>());
  out += "time: ";
  for (const auto& s : timings.stages)
    append_printf(out, "%s %.3f s, ", s.name.c_str(), s.wall_s);
  append_printf(out, "total %.3f s; peak memory %.0f MiB%s\n", timings.total_s,
                stats["timings"]["peak_rss_mib"].get<double>(),
                timings.ranks > 1 ? " (the largest rank)" : "");
  const auto& ln = stats["lanes"];
  const auto& ix = stats["intersections"];
  append_printf(out,
                "roads: %d signalised, %d stop, %d yield junctions; %zu vehicle lanes (%.1f km), "
                "%zu connectors, %.1f km of sidewalk lanes, %zu crosswalks\n",
                ix["signal"].get<int>(), ix["stop"].get<int>(), ix["yield"].get<int>(),
                ln["vehicle"].get<std::size_t>(), ln["vehicle_lane_km"].get<double>(),
                ln["connectors"].get<std::size_t>(), ln["sidewalk_km"].get<double>(),
                ln["crosswalk"].get<std::size_t>());
  return out;
}

}  // namespace

CityStats city_stats(const CityConfig& config, const CityResult& city, const RunTimings& timings,
                     const ImportReport* import, const std::string& sections) {
  nlohmann::ordered_json stats = stats_json(config, city);
  if (import != nullptr) stats["import"] = import_stats(*import);
  if (!sections.empty()) merge_object(stats, sections);
  stats["timings"] = timings_json(timings);
  // Where the set dressing's time went (this rank's run of it; none when it came from the cache).
  const bool dressing_cached =
      std::any_of(timings.stages.begin(), timings.stages.end(),
                  [](const StageStats& s) { return s.name == "dressing" && s.cached; });
  if (city.dressing != nullptr && !city.dressing->step_seconds.empty() && !dressing_cached) {
    nlohmann::ordered_json steps;
    for (const auto& [name, seconds] : city.dressing->step_seconds)
      steps[name] = seconds;
    stats["timings"]["dressing_steps_s"] = steps;
  }
  CityStats out;
  out.json = stats.dump(2) + "\n";
  out.summary = summary(config, city, timings, stats);
  return out;
}

}  // namespace cityforge::pipeline
