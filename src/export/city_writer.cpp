// SPDX-License-Identifier: Apache-2.0
// The city folder of `cityforge generate` and `cityforge import`: each output made and written
// under a temporary name in turn, the tileset, then every file renamed into place, stats.json
// last.
#include "cityforge/export/city_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>
#include <utility>

#include "cityforge/core/atomic_file.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/export/opendrive.hpp"
#include "cityforge/export/tiles.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/osm/osm.hpp"
#include "cityforge/pipeline/city_stats.hpp"
#include "cityforge/pipeline/config_file.hpp"

namespace cityforge::exporter {
namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// What stats.json and the extra files need of the export once its files are staged.
struct Exported {
  OpenDriveStats opendrive;
  std::size_t opendrive_bytes = 0;
  double opendrive_s = 0.0;  ///< Time to write the OpenDRIVE map (stats.json "timings").
};

/// The lane graph of lanes.json: the streets' lanes with the freeway and its ramps joined to
/// them, and the junctions (their control). Made again where it is needed rather than held; the
/// rest of the road stage's output (sections, modules, sidewalks, markings) is not copied:
/// lanes_json and the extra files read nothing else.
roads::Output lanes_with_freeway(const pipeline::CityResult& city) {
  roads::Output out;
  out.intersections = city.roads->intersections;
  out.lanes = freeway::merged_lanes(city.roads->lanes, *city.freeway);
  return out;
}

/// What makes a building's facade modules again (buildings::instances_of): the buildings
/// stage's inputs. Points into `cfg` and `city`.
buildings::LotInputs facade_inputs(const pipeline::CityConfig& cfg,
                                   const pipeline::CityResult& city) {
  return {.lots = city.lots.get(),
          .library = city.styles.get(),
          .tags = &cfg.buildings.tag_volumes,
          .ground = city.terrain.get(),
          .config = cfg.buildings.generator,
          .seed = cfg.seed};
}

/// What makes the road and block surface meshes and the markings (roads::surface_mesh): made
/// where they are cut, a batch at a time, not held by a stage. Points into `cfg`, `city` and
/// `markings` (made of the same city).
roads::SurfaceSource surface_source(const pipeline::CityConfig& cfg,
                                    const pipeline::CityResult& city,
                                    const roads::SectionMarkings& markings) {
  return {.city = city.layout.get(),
          .ground = city.terrain.get(),
          .roads = city.roads.get(),
          .config = &cfg.roads,
          .markings = &markings};
}

/// What city.glb and the tileset are made of; `facades` from facade_inputs, `surfaces` from
/// surface_source.
CityGlbInputs glb_inputs(const pipeline::CityConfig& cfg, const pipeline::CityResult& city,
                         const buildings::LotInputs* facades,
                         const roads::SurfaceSource* surfaces) {
  return {.terrain = *city.terrain,
          .layout = *city.layout,
          .settings = cfg.exports,
          .roads = city.roads.get(),
          .road_surfaces = surfaces,
          .freeway = city.freeway.get(),
          .buildings = city.buildings.get(),
          .styles = city.styles.get(),
          .dressing = city.dressing.get(),
          .rooftops = city.rooftops.get(),
          .lots = city.lots.get(),
          .facades = facades};
}

/// Makes every file of the city folder but the tileset and stats.json, one at a time, and
/// stages each (written under a temporary name, StagedFiles) as soon as it is made, so the
/// process never holds them all: the whole run's peak memory was the city plus every output at
/// once (city.glb, the PLYs, lanes, SUMO and OpenDRIVE), held through the tile writing.
Result<Exported> export_city(const pipeline::CityConfig& cfg, const pipeline::CityResult& city,
                             const Origin& origin, bool with_glb, int opendrive_minor,
                             const fs::path& dir, StagedFiles& files) {
  const auto stage = [&](const char* rel, const auto& bytes) {
    return files.write((dir / rel).string(), bytes.data(), bytes.size());
  };
  // Makes one file, stages it and frees it.
  const auto make = [&](const char* rel, auto&& made) -> Status {
    if (!made) return made.error();
    return stage(rel, *made);
  };
  Exported out;
  const buildings::LotInputs facades = facade_inputs(cfg, city);
  if (with_glb) {
    const roads::SectionMarkings markings(*city.layout, *city.roads, *city.terrain, cfg.roads);
    const roads::SurfaceSource surfaces = surface_source(cfg, city, markings);
    if (Status st = make("city.glb", city_glb(glb_inputs(cfg, city, nullptr, &surfaces))); !st) {
      return st.error();
    }
  }
  if (Status st = make("layout.geojson", layout_geojson(*city.layout, origin, city.lots.get(),
                                                        city.buildings.get(), city.styles.get()));
      !st) {
    return st.error();
  }
  if (Status st = stage("map.svg", map_svg(*city.layout, city.buildings.get())); !st) {
    return st.error();
  }
  // The big files (lanes, OpenDRIVE, point clouds): written as they are made, a megabyte at a
  // time.
  const auto stream = [&](const std::string& rel, const FileParts& parts) {
    return files.write_parts((dir / rel).string(), parts);
  };
  if (Status st = stream("lanes.json",
                         [&](const ByteSink& sink) {
                           return lanes_json(sink, lanes_with_freeway(city), *city.layout);
                         });
      !st) {
    return st.error();
  }
  if (Status st = stream("points/road_modules.ply",
                         [&](const ByteSink& sink) {
                           return road_modules_ply(city.roads->modules, cfg.roads.module_lengths_m,
                                                   sink);
                         });
      !st) {
    return st.error();
  }
  if (Status st = stream("points/building_modules.ply",
                         [&](const ByteSink& sink) {
                           return building_modules_ply(*city.buildings, *city.styles, &facades,
                                                       sink);
                         });
      !st) {
    return st.error();
  }
  // One point cloud per prop that occurs, parking spots and the audio grid.
  const dressing::Output& dressed = *city.dressing;
  if (Status st = stream("points/parking_spots.ply",
                         [&](const ByteSink& sink) { return parking_ply(dressed, sink); });
      !st) {
    return st.error();
  }
  if (Status st = stream("points/audio.ply",
                         [&](const ByteSink& sink) { return audio_ply(dressed, sink); });
      !st) {
    return st.error();
  }
  // SUMO drives our own lanes, connectors and signal plans (not netconvert's guesses).
  {
    Result<SumoFiles> sumo = sumo_plain_xml(*city.layout, *city.roads);
    if (!sumo) return sumo.error();
    for (const Status& st :
         {stage("sumo/city.nod.xml", sumo->nodes), stage("sumo/city.edg.xml", sumo->edges),
          stage("sumo/city.con.xml", sumo->connections), stage("sumo/city.tll.xml", sumo->tll)}) {
      if (!st) return st.error();
    }
  }
  // The driving-simulator map of the same streets (CARLA, esmini, netconvert).
  {
    OpenDriveOptions odr;
    odr.rev_minor = opendrive_minor;
    odr.name = cfg.name;
    odr.geo_proj = origin.local_crs.empty() ? cfg.exports.local_crs : origin.local_crs;
    const auto t_odr = std::chrono::steady_clock::now();
    OpenDriveFiles xodr;
    if (Status st = stream("opendrive/city.xodr",
                           [&](const ByteSink& sink) -> Status {
                             Result<OpenDriveFiles> made =
                                 opendrive(sink, *city.layout, *city.roads, *city.terrain,
                                           cfg.roads, odr, city.freeway.get());
                             if (!made) return made.error();
                             xodr = std::move(*made);
                             return Ok{};
                           });
        !st) {
      return st.error();
    }
    out.opendrive_s = seconds_since(t_odr);
    out.opendrive = xodr.stats;
    out.opendrive_bytes = xodr.xodr_bytes;
    if (Status st = stage("opendrive/city.json", xodr.side_json); !st) return st.error();
  }
  for (std::uint32_t p = 0; p < dressed.stats.items_by_prop.size(); ++p) {
    if (dressed.stats.items_by_prop[p] == 0) continue;
    const std::string rel = "points/props/" + dressing::prop_catalog()[p].id + ".ply";
    if (Status st = stream(rel, [&](const ByteSink& sink) { return prop_ply(dressed, p, sink); });
        !st) {
      return st.error();
    }
  }
  return out;
}

/// stats.json's "opendrive" member (counts and sizes of the map).
std::string opendrive_member(const Exported& ex) {
  const OpenDriveStats& o = ex.opendrive;
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "\"opendrive\": {\"bytes\": %zu, \"roads\": %zu, \"connecting_roads\": %zu, "
                "\"junctions\": %zu, \"signalised_junctions\": %zu, \"traffic_lights\": %zu, "
                "\"signs\": %zu, \"controllers\": %zu, \"crosswalks\": %zu, \"bridges\": %zu, "
                "\"tunnels\": %zu, "
                "\"geometries\": %zu, \"elevations\": %zu, \"shapes\": %zu}",
                ex.opendrive_bytes, o.roads, o.connecting_roads, o.junctions,
                o.signalised_junctions, o.traffic_lights, o.signs, o.controllers, o.crosswalks,
                o.bridges, o.tunnels, o.geometries, o.elevations, o.shapes);
  return buf;
}

/// stats.json's "tiles" member (counts and sizes, the same for any thread or rank count).
std::string tiles_member(const TilesetStats& t) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "\"tiles\": {\"tiles\": %zu, \"leaves\": %zu, \"parents\": %zu, \"depth\": %zu, "
                "\"bytes\": %zu, \"max_leaf_bytes\": %zu, \"root_bytes\": %zu, \"buildings\": %zu, "
                "\"textures\": %zu, \"texture_bytes\": %zu, \"root_geometric_error_m\": %.6g}",
                t.tiles, t.leaves, t.parents, t.depth, t.bytes, t.max_leaf_bytes, t.root_bytes,
                t.buildings, t.textures, t.texture_bytes, t.root_geometric_error_m);
  return buf;
}

/// The tile writer's thread-seconds per phase (rank 0's), for stats.json "timings".
std::string tiles_timings(const TilesetStats& t) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "\"tiles_thread_seconds\": {\"chunking_s\": %.3f, \"leaves_s\": %.3f, "
                "\"standins_s\": %.3f, \"parents_s\": %.3f, \"write_s\": %.3f}",
                t.chunking_s, t.leaves_s, t.standins_s, t.parents_s, t.write_s);
  return buf;
}

}  // namespace

Result<CityWriteReport> write_city(const pipeline::CityConfig& config,
                                   const pipeline::CityResult& city,
                                   const CityWriteOptions& options, const Origin& origin,
                                   const pipeline::ImportReport* import) {
  const CityLog& log = options.log;
  const Ranks& ranks = options.ranks != nullptr ? *options.ranks : single_rank();
  const bool lead = ranks.rank() == 0;
  // 1. The export (rank 0): each file made and staged in turn, the "export" step.
  std::vector<pipeline::StageStats> stages = city.stages;
  const auto t_export = std::chrono::steady_clock::now();
  pipeline::release_free_memory();
  pipeline::reset_peak_rss();
  if (log.stages != nullptr) log.stages->stage_started("export");
  const fs::path dir(options.out_dir);
  StagedFiles staged;  // Moved into place only once the tileset is written too.
  Result<Exported> ex = Exported{};
  if (lead) {
    for (const char* sub : {"", "sumo", "opendrive", "points", "points/props"})
      remove_stale_temporaries((dir / sub).string());
    ex = export_city(config, city, origin, options.city_glb, options.opendrive_minor, dir, staged);
  }
  if (Status st = agree(ranks, ex ? Status(Ok{}) : Status(ex.error())); !st) return st.error();
  const auto finish_step = [&](const char* name, std::chrono::steady_clock::time_point t0) {
    pipeline::StageStats step;
    step.name = name;
    step.wall_s = seconds_since(t0);
    step.peak_rss_kb = pipeline::peak_rss_kb();
    pipeline::release_free_memory();
    step.resident_kb = pipeline::resident_kb();
    if (log.stages != nullptr) log.stages->stage_finished(step);
    stages.push_back(step);
  };
  finish_step("export", t_export);  // It hands freed memory back.
  pipeline::reset_peak_rss();
  // The tileset: its own step, written tile by tile into a folder renamed into place at the end.
  std::optional<TilesetStats> tiles;
  if (options.tiles) {
    const auto t_tiles = std::chrono::steady_clock::now();
    if (log.stages != nullptr) log.stages->stage_started("tiles");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error::io(dir.string(), "cannot create the folder: " + ec.message());
    TilesetOptions topt;
    topt.tile_bytes = config.exports.tile_bytes;
    topt.meshopt = config.exports.tile_compression == pipeline::TileCompression::meshopt;
    topt.anchor = config.exports.georeferenced
                      ? GeoAnchor{config.exports.origin_lon_deg, config.exports.origin_lat_deg,
                                  config.exports.anchor_height_m}
                      : GeoAnchor{config.exports.anchor_lon_deg, config.exports.anchor_lat_deg,
                                  config.exports.anchor_height_m};
    topt.ranks = &ranks;
    const buildings::LotInputs facades = facade_inputs(config, city);
    const roads::SectionMarkings markings(*city.layout, *city.roads, *city.terrain, config.roads);
    const roads::SurfaceSource surfaces = surface_source(config, city, markings);
    topt.before_tile = options.before_tile;
    topt.staged = lead ? &staged : nullptr;  // Into place with the other files, at the end.
    Result<TilesetStats> written = write_tileset(glb_inputs(config, city, &facades, &surfaces),
                                                 (dir / "tiles").string(), topt);
    if (!written) return written.error();
    tiles = *written;
    finish_step("tiles", t_tiles);
  }

  // 2. Write (rank 0): the extra files and stats.json (with every rank's peak memory and tile
  //    time) staged after the others, then every file and the tileset moved into place
  //    together, so an interrupted run leaves the folder's previous output as it was.
  ByteWriter mine;
  std::int64_t peak_kb = pipeline::peak_rss_kb();  // Restarted at every stage: the largest.
  for (const pipeline::StageStats& s : stages)
    peak_kb = std::max(peak_kb, s.peak_rss_kb);
  mine.put(static_cast<double>(peak_kb) / 1024.0);
  mine.put(tiles ? tiles->rank_seconds : 0.0);
  const std::vector<std::string> per_rank = ranks.gather(mine.bytes());
  Status wrote = Ok{};
  pipeline::CityStats stats;
  if (lead) {
    if (options.extra_files) {
      const std::string layout = (dir / "layout.geojson").string();
      const std::string staged_layout = staged.staged_path(layout);
      Result<std::vector<CityFile>> extra = options.extra_files(
          config, lanes_with_freeway(city), staged_layout.empty() ? layout : staged_layout, log);
      if (!extra) wrote = extra.error();
      for (std::size_t k = 0; wrote && extra && k < extra->size(); ++k)
        wrote = staged.write((dir / (*extra)[k].path).string(), (*extra)[k].bytes);
    }
    if (wrote) {
      pipeline::RunTimings timings;
      timings.threads = options.threads;
      timings.ranks = ranks.size();
      timings.stages = stages;
      timings.total_s = seconds_since(options.started);
      if (ranks.size() > 1) {
        for (const std::string& bytes : per_rank) {
          ByteReader r(bytes, "rank figures");
          double peak = 0.0;
          double tiles_s = 0.0;
          if (!r.get(peak) || !r.get(tiles_s)) break;
          timings.per_rank.emplace_back(peak, tiles_s);
        }
      }
      char odr_s[64];
      std::snprintf(odr_s, sizeof odr_s, "{\"opendrive_s\": %.3f", ex->opendrive_s);
      timings.more = odr_s;
      if (tiles) timings.more += ", " + tiles_timings(*tiles);
      timings.more += "}";
      std::string sections = "{" + opendrive_member(*ex);
      if (tiles) sections += ", " + tiles_member(*tiles);
      sections += "}";
      stats = pipeline::city_stats(config, city, timings, import, sections);
      wrote = staged.write((dir / "stats.json").string(), stats.json);
    }
    if (wrote) wrote = staged.commit();
  }
  if (Status st = agree(ranks, wrote); !st) return st.error();
  CityWriteReport report;
  if (!lead) return report;
  report.sumo_note = options.sumo_convert ? convert_for_sumo((dir / "sumo").string())
                                          : "SUMO conversion skipped (--no-sumo)";
  if (log.warning) {
    for (const std::string& w : city.dressing->warnings)
      log.warning(w);
  }

  // 3. The summary.
  std::string text = stats.summary;
  if (tiles) {
    text += "\ntiles: " + std::to_string(tiles->tiles) + " (" + std::to_string(tiles->leaves) +
            " leaves, depth " + std::to_string(tiles->depth) + "), " +
            std::to_string(tiles->bytes / 1000000) + " MB in " + options.out_dir +
            "/tiles/ (OGC 3D Tiles 1.1: cityforge serve " + options.out_dir +
            ", CesiumJS, Cesium for Unreal/Unity)";
    if (ranks.size() > 1) text += ", built by " + std::to_string(ranks.size()) + " ranks";
  }
  text += "\nwrote " + options.out_dir + "/: " + (options.city_glb ? "city.glb, " : "") +
          "layout.geojson, lanes.json, map.svg, stats.json, "
          "points/{road,building}_modules.ply, points/props/*.ply, "
          "points/{parking_spots,audio}.ply, sumo/city.{nod,edg,con,tll}.xml, "
          "opendrive/city.{xodr,json}\n";
  text += "SUMO: " + report.sumo_note + "; drive it with sumo-gui -n " + options.out_dir +
          "/sumo/city.net.xml\n";
  text += "look at it: open " + options.out_dir + "/map.svg in a browser, or load " +
          options.out_dir +
          "/city.glb in any glTF viewer\n"
          "(three.js / Babylon.js sandboxes read its instancing; Blender 3.4 shows one copy of "
          "each instanced module: add --instances nodes (small cities) or --instances bake, then "
          "File > Import > glTF 2.0).\n";
  report.summary = std::move(text);
  return report;
}

Result<CityWriteReport> generate_city(const pipeline::CityConfig& config, const std::string& source,
                                      const CityWriteOptions& options) {
  if (options.tiles) {
    if (Status st = check_tileset_folder((fs::path(options.out_dir) / "tiles").string()); !st) {
      return st.error();
    }
  }
  pipeline::CityPipeline pipe;
  pipe.set_ranks(options.ranks);
  Result<pipeline::CityResult> city = pipe.run(config, options.log.stages);
  const Ranks& ranks = options.ranks != nullptr ? *options.ranks : single_rank();
  if (Status st = agree(ranks, city ? Status(Ok{}) : Status(city.error())); !st) {
    return pipeline::with_config_source(st.error(), source);
  }
  return write_city(config, *city, options);
}

Result<CityWriteReport> import_place(const pipeline::ImportSettings& request,
                                     const CityWriteOptions& options) {
  if (options.tiles) {
    if (Status st = check_tileset_folder((fs::path(options.out_dir) / "tiles").string()); !st) {
      return st.error();
    }
  }
  pipeline::ImportSettings settings = request;
  settings.rules.name = fs::path(request.osm_path).filename().string();
  pipeline::CityPipeline pipe;
  pipe.set_ranks(options.ranks);
  Result<pipeline::ImportResult> imported = pipe.import(settings, options.log.stages);
  const Ranks& ranks = options.ranks != nullptr ? *options.ranks : single_rank();
  if (Status st = agree(ranks, imported ? Status(Ok{}) : Status(imported.error())); !st) {
    return st.error();
  }
  if (options.log.warning) {
    for (const std::string& w : imported->report.warnings)
      options.log.warning(w);
  }
  // Geo-reference and credit travel with every output.
  const pipeline::ImportReport& report = imported->report;
  pipeline::CityConfig config = settings.rules;
  config.exports.attribution = pipeline::kOsmAttribution;
  config.exports.georeferenced = true;
  config.exports.origin_lon_deg = report.lon0;
  config.exports.origin_lat_deg = report.lat0;
  config.exports.local_crs = report.local_crs;
  Origin origin;
  origin.georeferenced = true;
  origin.lon_deg = report.lon0;
  origin.lat_deg = report.lat0;
  origin.local_crs = report.local_crs;
  origin.attribution = pipeline::kOsmAttribution;
  std::shared_ptr<const osm::Projection> proj = imported->projection;
  origin.to_wgs84 = [proj](Vec2 p) { return proj->to_wgs84(p); };
  Result<CityWriteReport> written = write_city(config, imported->city, options, origin, &report);
  if (!written) return written.error();
  written->summary += std::string("map data ") + pipeline::kOsmAttribution +
                      " (ODbL); the import's census is in " + options.out_dir +
                      "/stats.json \"import\"\n";
  return written;
}

}  // namespace cityforge::exporter
