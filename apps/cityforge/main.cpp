// SPDX-License-Identifier: Apache-2.0
// The cityforge command line: `cityforge generate [CONFIG.json] -o DIR [--seed N] [--threads N]`.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/buildings/style.hpp"
#include "cityforge/core/format.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/city_pipeline.hpp"
#include "cityforge/pipeline/default_city.hpp"
#include "cityforge/pipeline/import_city.hpp"
#include "crowd_files.hpp"
#include "island_cmd.hpp"
#include "serve.hpp"
#include "simulate.hpp"
#include "wfc_cmd.hpp"

namespace fs = std::filesystem;
using namespace cityforge;

namespace {

constexpr int kExitInvalidInput = 2;
constexpr int kExitFailure = 1;

int fail(const Error& e) {
  std::fprintf(stderr, "cityforge: error: %s\n", e.to_string().c_str());
  return e.code == ErrorCode::invalid_input ? kExitInvalidInput : kExitFailure;
}

// A progress line per stage on a terminal (rewritten in place), plain log lines otherwise.
class Progress final : public pipeline::Observer {
 public:
  explicit Progress(bool quiet) : m_quiet(quiet), m_tty(isatty(fileno(stderr)) != 0) {}
  void stage_started(const std::string& name) override {
    if (m_quiet) return;
    std::lock_guard lock(m_mutex);
    if (m_tty) std::fprintf(stderr, "\r\033[K  %-10s running...", name.c_str());
  }
  void stage_finished(const pipeline::StageStats& s) override { step(s.name, s.wall_s, s.cached); }
  void step(const std::string& name, double wall_s, bool cached = false) {
    if (m_quiet) return;
    std::lock_guard lock(m_mutex);
    if (m_tty) std::fprintf(stderr, "\r\033[K");
    if (cached) {
      std::fprintf(stderr, "  %-10s cached\n", name.c_str());
    } else {
      std::fprintf(stderr, "  %-10s %8.3f s\n", name.c_str(), wall_s);
    }
  }

 private:
  bool m_quiet;
  bool m_tty;
  std::mutex m_mutex;
};

Result<std::string> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error::io(path, "cannot open the file for reading");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return Error::io(path, "read failed");
  return ss.str();
}

// Whether an executable is on PATH.
bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string_view rest(path);
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    if (!dir.empty() && access((fs::path(dir) / name).c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return false;
}

// Converts the SUMO plain XML into sumo/city.net.xml with netconvert (when installed), keeping
// our coordinates, connections and signal programs. netconvert's messages go to
// sumo/netconvert.log. The network is written to a temporary name and renamed when complete.
// Returns a note for the summary.
std::string convert_for_sumo(const fs::path& sumo_dir) {
  if (!on_path("netconvert")) return "netconvert not installed: sumo/city.net.xml not built";
  const fs::path tmp = sumo_dir / "city.net.xml.tmp";
  const fs::path log = sumo_dir / "netconvert.log";
  std::vector<std::string> args = {"netconvert",
                                   "--node-files",
                                   (sumo_dir / "city.nod.xml").string(),
                                   "--edge-files",
                                   (sumo_dir / "city.edg.xml").string(),
                                   "--connection-files",
                                   (sumo_dir / "city.con.xml").string(),
                                   "--tllogic-files",
                                   (sumo_dir / "city.tll.xml").string(),
                                   "--offset.disable-normalization",
                                   "true",
                                   "--no-turnarounds",
                                   "false",
                                   "--junctions.corner-detail",
                                   "5",
                                   "--tls.default-type",
                                   "static",
                                   "--log",
                                   log.string(),
                                   "-o",
                                   tmp.string()};
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Its console output is in the log already.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "netconvert", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  if (spawned != 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    std::error_code ec;
    fs::remove(tmp, ec);
    return "netconvert failed (see " + log.string() + "): sumo/city.net.xml not built";
  }
  std::error_code ec;
  fs::rename(tmp, sumo_dir / "city.net.xml", ec);
  if (ec) return "cannot rename " + tmp.string() + ": " + ec.message();
  return "netconvert built sumo/city.net.xml";
}

struct GenerateOptions {
  std::string config_path;
  std::string out_dir = "out";
  std::optional<std::uint64_t> seed;
  int threads = 0;
  bool quiet = false;
  bool sumo_convert = true;
  std::optional<pipeline::InstanceMode> instances;
};

nlohmann::ordered_json stats_json(const pipeline::CityConfig& cfg, const pipeline::CityResult& r,
                                  const std::vector<pipeline::StageStats>& stages, int threads,
                                  double total_s) {
  using nlohmann::ordered_json;
  const layout::Output& city = *r.layout;
  const auto km = layout::road_length_by_class(city.network);
  ordered_json j;
  j["cityforge_version"] = "0.1.0";
  j["city"] = cfg.name;
  j["seed"] = cfg.seed;
  j["threads"] = threads;
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
  j["instances"] = {{"building_modules", r.buildings->instances.size()},
                    {"props", r.dressing->items.size()},
                    {"road_modules", r.roads->modules.size()},
                    {"rooftop_tiles", rooftop_instances},
                    {"total", r.buildings->instances.size() + r.dressing->items.size() +
                                  r.roads->modules.size() + rooftop_instances}};
  ordered_json st = ordered_json::array();
  for (const auto& s : stages) {
    st.push_back({{"name", s.name},
                  {"wall_s", s.wall_s},
                  {"cached", s.cached},
                  {"peak_rss_mib", static_cast<double>(s.peak_rss_kb) / 1024.0}});
  }
  j["stages"] = st;
  j["total_wall_s"] = total_s;
  j["peak_rss_mib"] = static_cast<double>(pipeline::peak_rss_kb()) / 1024.0;
  return j;
}

// Extra outputs of an imported place: where it is on Earth, its credit, its import census.
struct CityExtras {
  exporter::Origin origin;
  nlohmann::ordered_json import;  // null for generated cities
};

// Exports a built city into memory, then writes every file through a temporary name and a
// rename (stats.json last) and prints the summary. Shared by `generate` and `import`.
int write_city(const pipeline::CityConfig& config_in, const pipeline::CityResult& result,
               std::vector<pipeline::StageStats> stages, Progress& progress,
               const std::string& out_dir, bool quiet, bool sumo_convert, int threads,
               std::chrono::steady_clock::time_point t_start, const CityExtras& extras) {
  const pipeline::CityConfig* cfg = &config_in;
  const pipeline::CityResult* city = &result;
  struct {
    const std::string& out_dir;
    bool quiet;
    bool sumo_convert;
  } opt{out_dir, quiet, sumo_convert};
  const auto t_export = std::chrono::steady_clock::now();
  pipeline::reset_peak_rss();
  progress.stage_started("export");
  Result<std::vector<std::uint8_t>> glb =
      exporter::city_glb(*city->layout, *city->terrain, cfg->exports, city->roads.get(), cfg->roads,
                         city->freeway.get(), city->buildings.get(), city->styles.get(),
                         city->dressing.get(), city->rooftops.get());
  if (!glb) return fail(glb.error());
  Result<std::string> geojson = exporter::layout_geojson(
      *city->layout, extras.origin, city->lots.get(), city->buildings.get(), city->styles.get());
  if (!geojson) return fail(geojson.error());
  const std::string svg = exporter::map_svg(*city->layout, city->buildings.get());
  Result<std::vector<std::uint8_t>> building_ply =
      exporter::building_modules_ply(*city->buildings, *city->styles);
  if (!building_ply) return fail(building_ply.error());
  // One point cloud per prop that occurs, parking spots and the audio grid.
  const dressing::Output& dressed = *city->dressing;
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> prop_plys;
  for (std::uint32_t p = 0; p < dressed.stats.items_by_prop.size(); ++p) {
    if (dressed.stats.items_by_prop[p] == 0) continue;
    Result<std::vector<std::uint8_t>> ply = exporter::prop_ply(dressed, p);
    if (!ply) return fail(ply.error());
    prop_plys.emplace_back("points/props/" + dressing::prop_catalog()[p].id + ".ply",
                           std::move(*ply));
  }
  Result<std::vector<std::uint8_t>> parking = exporter::parking_ply(dressed);
  if (!parking) return fail(parking.error());
  Result<std::vector<std::uint8_t>> audio = exporter::audio_ply(dressed);
  if (!audio) return fail(audio.error());
  // One lane graph: the streets' lanes with the freeway and its ramps joined to them.
  roads::Output with_freeway = *city->roads;
  with_freeway.lanes = freeway::merged_lanes(city->roads->lanes, *city->freeway);
  Result<std::string> lanes = exporter::lanes_json(with_freeway, *city->layout);
  if (!lanes) return fail(lanes.error());
  // SUMO drives our own lanes, connectors and signal plans (not netconvert's guesses).
  Result<exporter::SumoFiles> sumo = exporter::sumo_plain_xml(*city->layout, *city->roads);
  if (!sumo) return fail(sumo.error());
  Result<std::vector<std::uint8_t>> modules_ply =
      exporter::road_modules_ply(city->roads->modules, cfg->roads.module_lengths_m);
  if (!modules_ply) return fail(modules_ply.error());
  pipeline::StageStats ex;
  ex.name = "export";
  ex.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_export).count();
  ex.peak_rss_kb = pipeline::peak_rss_kb();
  progress.step(ex.name, ex.wall_s);
  stages.push_back(ex);

  // 4. Write: each file through a temporary name and a rename; stats.json last.
  const fs::path dir(opt.out_dir);
  for (const char* sub : {"", "sumo", "points", "points/props"}) {
    std::error_code ec;
    fs::create_directories(dir / sub, ec);
    if (ec) {
      return fail(Error::io((dir / sub).string(), "cannot create the folder: " + ec.message()));
    }
  }
  auto write = [&](const char* rel, const void* data, std::size_t size) {
    return exporter::write_file_atomic((dir / rel).string(), data, size);
  };
  auto write_text = [&](const char* rel, const std::string& body) {
    return write(rel, body.data(), body.size());
  };
  for (const Status& s :
       {write("city.glb", glb->data(), glb->size()), write_text("layout.geojson", *geojson),
        write_text("map.svg", svg), write_text("lanes.json", *lanes),
        write("points/road_modules.ply", modules_ply->data(), modules_ply->size()),
        write("points/building_modules.ply", building_ply->data(), building_ply->size()),
        write("points/parking_spots.ply", parking->data(), parking->size()),
        write("points/audio.ply", audio->data(), audio->size()),
        write_text("sumo/city.nod.xml", sumo->nodes), write_text("sumo/city.edg.xml", sumo->edges),
        write_text("sumo/city.con.xml", sumo->connections),
        write_text("sumo/city.tll.xml", sumo->tll)}) {
    if (!s) return fail(s.error());
  }
  for (const auto& [rel, bytes] : prop_plys) {
    if (Status s = write(rel.c_str(), bytes.data(), bytes.size()); !s) return fail(s.error());
  }
  if (Status s = app::write_crowd_files(*cfg, with_freeway, dir, opt.quiet); !s) {
    return fail(s.error());
  }
  const double total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  auto stats = stats_json(*cfg, *city, stages, threads, total_s);
  if (!extras.import.is_null()) stats["import"] = extras.import;
  if (Status s = write_text("stats.json", stats.dump(2) + "\n"); !s) return fail(s.error());
  const std::string sumo_note =
      opt.sumo_convert ? convert_for_sumo(dir / "sumo") : "SUMO conversion skipped (--no-sumo)";

  // 5. Summary.
  if (!opt.quiet) {
    const auto& roads = stats["road_km"];
    std::printf(
        "\n%s: %.1f km of roads (artery %.1f, main %.1f, local %.1f), %zu blocks, "
        "%zu junctions\n",
        cfg->name.c_str(), roads["total"].get<double>(), roads["artery"].get<double>(),
        roads["main"].get<double>(), roads["local"].get<double>(), city->layout->blocks.size(),
        city->layout->network.nodes.size());
    const auto& lt = stats["lots"];
    const auto& bd = stats["buildings"];
    std::printf(
        "lots: %zu lots, %zu parcels; buildings: %zu (%zu floors), %zu module instances, "
        "%.1f %% of modules occluded, %zu entrances, %zu rooms\n",
        lt["lots"].get<std::size_t>(), lt["parcels"].get<std::size_t>(),
        bd["buildings"].get<std::size_t>(), bd["floors"].get<std::size_t>(),
        bd["instances"].get<std::size_t>(), 100.0 * bd["occlusion_reduction"].get<double>(),
        bd["entrances"].get<std::size_t>(), bd["rooms"].get<std::size_t>());
    if (stats.contains("rooftops")) {
      const auto& rt = stats["rooftops"];
      std::printf(
          "rooftops: %zu solved, %zu failed (of %zu roof tops), %zu cells, %zu tiles + %zu props "
          "from %zu base tiles and %zu constraints\n",
          rt["rooftops"].get<std::size_t>(), rt["failed"].get<std::size_t>(),
          rt["roofs_considered"].get<std::size_t>(), rt["cells"].get<std::size_t>(),
          rt["instances"].get<std::size_t>(), rt["props"].get<std::size_t>(),
          rt["base_tiles"].get<std::size_t>(), rt["constraints"].get<std::size_t>());
    }
    const auto& dd = stats["dressing"];
    std::printf(
        "dressing: %zu props (%zu lights), %.1f km of tiled sidewalk, %zu biome stamps, %zu "
        "parking spots, %zu audio points; %zu instances in all\n",
        dd["items"].get<std::size_t>(), dd["lights"].get<std::size_t>(),
        dd["furnished_sidewalk_km"].get<double>(), dd["biome_stamps"].get<std::size_t>(),
        dd["parking_spots"].get<std::size_t>(), dd["audio_points"].get<std::size_t>(),
        stats["instances"]["total"].get<std::size_t>());
    for (const auto& w : city->dressing->warnings)
      std::fprintf(stderr, "cityforge: warning: %s\n", w.c_str());
    std::printf("time: ");
    for (const auto& s : stages)
      std::printf("%s %.3f s, ", s.name.c_str(), s.wall_s);
    std::printf("total %.3f s; peak memory %.0f MiB\n", total_s,
                stats["peak_rss_mib"].get<double>());
    const auto& ln = stats["lanes"];
    const auto& ix = stats["intersections"];
    std::printf(
        "roads: %d signalised, %d stop, %d yield junctions; %zu vehicle lanes (%.1f km), "
        "%zu connectors, %.1f km of sidewalk lanes, %zu crosswalks\n",
        ix["signal"].get<int>(), ix["stop"].get<int>(), ix["yield"].get<int>(),
        ln["vehicle"].get<std::size_t>(), ln["vehicle_lane_km"].get<double>(),
        ln["connectors"].get<std::size_t>(), ln["sidewalk_km"].get<double>(),
        ln["crosswalk"].get<std::size_t>());
    std::printf(
        "\nwrote %s/: city.glb, layout.geojson, lanes.json, map.svg, stats.json, "
        "points/{road,building}_modules.ply, points/props/*.ply, points/{parking_spots,audio}.ply, "
        "sumo/city.{nod,edg,con,tll}.xml\n",
        opt.out_dir.c_str());
    std::printf("SUMO: %s; drive it with sumo-gui -n %s/sumo/city.net.xml\n", sumo_note.c_str(),
                opt.out_dir.c_str());
    std::printf(
        "look at it: open %s/map.svg in a browser, or load %s/city.glb in any glTF viewer\n"
        "(three.js / Babylon.js sandboxes read its instancing; Blender 3.4 shows one copy of "
        "each instanced module: add --instances nodes (small cities) or --instances bake, then "
        "File > Import > glTF 2.0).\n",
        opt.out_dir.c_str(), opt.out_dir.c_str());
  }
  return 0;
}

constexpr const char* kBuiltInSource = "<built-in default-city.json>";

// Reads and checks a city JSON (the built-in default city when `path` is empty) with the style
// and biome files it names, read relative to its folder (stages never touch files).
Result<pipeline::CityConfig> load_city_config(const std::string& config_path) {
  std::string text;
  std::string source = kBuiltInSource;
  if (config_path.empty()) {
    text = std::string(pipeline::default_city_json());
  } else {
    Result<std::string> t = read_file(config_path);
    if (!t) return t.error();
    text = std::move(*t);
    source = config_path;
  }
  Result<pipeline::CityConfig> cfg = pipeline::parse_city_config(text, source);
  if (!cfg) return cfg.error();
  const fs::path base =
      config_path.empty() ? fs::current_path() : fs::path(config_path).parent_path();
  const auto read_all = [&](const std::vector<std::string>& files,
                            std::vector<std::pair<std::string, std::string>>& sources) -> Status {
    if (files.empty()) return Ok{};
    sources.clear();
    for (const std::string& file : files) {
      const fs::path path = fs::path(file).is_absolute() ? fs::path(file) : base / file;
      Result<std::string> t = read_file(path.string());
      if (!t) return t.error();
      sources.emplace_back(path.string(), std::move(*t));
    }
    return Ok{};
  };
  if (Status st = read_all(cfg->buildings.style_files, cfg->buildings.style_sources); !st)
    return st.error();
  if (Status st = read_all(cfg->dressing.biome_files, cfg->dressing.biome_sources); !st)
    return st.error();
  return cfg;
}

int generate(const GenerateOptions& opt) {
  const auto t_start = std::chrono::steady_clock::now();
  // 1. Read and check the config; nothing is written before the whole city exists.
  Result<pipeline::CityConfig> cfg = load_city_config(opt.config_path);
  if (!cfg) return fail(cfg.error());
  const std::string source =
      opt.config_path.empty() ? std::string(kBuiltInSource) : opt.config_path;
  if (opt.seed) cfg->seed = *opt.seed;
  if (opt.instances) cfg->exports.instances = *opt.instances;
  const int threads =
      opt.threads > 0 ? opt.threads : static_cast<int>(tbb::info::default_concurrency());
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  if (!opt.quiet) {
    std::fprintf(stderr, "cityforge: generating '%s' (seed %llu, %d threads)\n", cfg->name.c_str(),
                 static_cast<unsigned long long>(cfg->seed), threads);
  }
  // 2. Stages.
  Progress progress(opt.quiet);
  pipeline::CityPipeline pipe;
  Result<pipeline::CityResult> city = pipe.run(*cfg, &progress);
  if (!city) {
    // A stage's input error names the element ("freeways[0].points[3]"); add the file.
    Error e = city.error();
    if (e.code == ErrorCode::invalid_input && e.where.rfind(source, 0) != 0) {
      e.where = source + ": " + e.where;
    }
    return fail(e);
  }
  std::vector<pipeline::StageStats> stages = city->stages;

  return write_city(*cfg, *city, std::move(stages), progress, opt.out_dir, opt.quiet,
                    opt.sumo_convert, threads, t_start, CityExtras{});
}

struct ImportOptions {
  std::string map_path;
  std::string dem_path;
  std::string bbox;
  std::string config_path;
  std::string out_dir = "out";
  std::optional<std::uint64_t> seed;
  double cell_m = 0.0;
  int threads = 0;
  bool quiet = false;
  bool sumo_convert = true;
  std::optional<pipeline::InstanceMode> instances;
};

nlohmann::ordered_json import_stats(const pipeline::ImportReport& r) {
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

// `cityforge import`: a real place from an OSM extract (and a DEM) through the same stages.
int import_place(const ImportOptions& opt) {
  const auto t_start = std::chrono::steady_clock::now();
  pipeline::ImportSettings settings;
  settings.osm_path = opt.map_path;
  settings.dem_path = opt.dem_path;
  settings.cell_m = opt.cell_m;
  if (!opt.bbox.empty()) {
    Result<osm::GeoBox> box = osm::parse_bbox(opt.bbox);
    if (!box) return fail(box.error());
    settings.bbox = *box;
  }
  // The rules: the built-in default city's (roads, styles, dressing, export), or a city JSON's.
  Result<pipeline::CityConfig> cfg = load_city_config(opt.config_path);
  if (!cfg) return fail(cfg.error());
  if (opt.seed) cfg->seed = *opt.seed;
  if (opt.instances) cfg->exports.instances = *opt.instances;
  cfg->name = fs::path(opt.map_path).filename().string();
  settings.rules = *cfg;
  const int threads =
      opt.threads > 0 ? opt.threads : static_cast<int>(tbb::info::default_concurrency());
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  if (!opt.quiet) {
    std::fprintf(stderr, "cityforge: importing %s%s%s (seed %llu, %d threads)\n",
                 opt.map_path.c_str(), opt.dem_path.empty() ? "" : " on ", opt.dem_path.c_str(),
                 static_cast<unsigned long long>(cfg->seed), threads);
  }
  Progress progress(opt.quiet);
  Result<pipeline::ImportResult> imported = pipeline::import_city(settings, &progress);
  if (!imported) return fail(imported.error());
  for (const std::string& w : imported->report.warnings) {
    if (!opt.quiet) std::fprintf(stderr, "cityforge: warning: %s\n", w.c_str());
  }
  // Geo-reference and credit travel with every output.
  pipeline::CityConfig out_cfg = settings.rules;
  out_cfg.exports.attribution = pipeline::kOsmAttribution;
  out_cfg.exports.georeferenced = true;
  out_cfg.exports.origin_lon_deg = imported->report.lon0;
  out_cfg.exports.origin_lat_deg = imported->report.lat0;
  out_cfg.exports.local_crs = imported->report.local_crs;
  CityExtras extras;
  extras.origin.georeferenced = true;
  extras.origin.lon_deg = imported->report.lon0;
  extras.origin.lat_deg = imported->report.lat0;
  extras.origin.local_crs = imported->report.local_crs;
  extras.origin.attribution = pipeline::kOsmAttribution;
  std::shared_ptr<const osm::Projection> proj = imported->projection;
  extras.origin.to_wgs84 = [proj](Vec2 p) { return proj->to_wgs84(p); };
  extras.import = import_stats(imported->report);
  const int rc = write_city(out_cfg, imported->city, imported->city.stages, progress, opt.out_dir,
                            opt.quiet, opt.sumo_convert, threads, t_start, extras);
  if (rc == 0 && !opt.quiet) {
    std::printf("map data %s (ODbL); the import's census is in %s/stats.json \"import\"\n",
                pipeline::kOsmAttribution, opt.out_dir.c_str());
  }
  return rc;
}

struct BuildingOptions {
  std::string style = "brick_walkup";
  std::string footprint = "rectangle";
  std::string size = "20x14";
  double height_m = 18.0;
  std::string massing = "plain";
  double shape_param = 0.5;
  std::uint64_t seed = 1;
  std::string out = "building.glb";
  bool quiet = false;
};

// `cityforge building`: one building from a style, for iterating on the style as an artist.
int building(const BuildingOptions& opt) {
  const auto t_start = std::chrono::steady_clock::now();
  // 1. Styles: the built-in ones, or the one file when --style names a .json.
  std::vector<std::pair<std::string, std::string>> sources;
  const bool is_file = opt.style.find('/') != std::string::npos ||
                       (opt.style.size() > 5 && opt.style.ends_with(".json"));
  if (is_file) {
    Result<std::string> text = read_file(opt.style);
    if (!text) return fail(text.error());
    sources.emplace_back(opt.style, std::move(*text));
  } else {
    sources = buildings::builtin_style_sources();
  }
  Result<buildings::StyleLibrary> library = pipeline::load_styles(sources);
  if (!library) return fail(library.error());
  const std::int32_t style = is_file ? 0 : library->find(opt.style);
  if (style < 0) {
    std::string names;
    for (const auto& st : library->styles)
      names += (names.empty() ? "" : ", ") + st.name;
    return fail(Error::invalid_input("--style", "unknown style '" + opt.style +
                                                    "'; built-in styles: " + names +
                                                    " (or give a path to a .json BDF)"));
  }
  const buildings::Style& st = library->styles[static_cast<std::size_t>(style)];
  // 2. The DNA: footprint, size, three height layers from the style's levels.
  lots::BuildingDNA dna;
  if (!lots::footprint_shape_from_string(opt.footprint, &dna.shape)) {
    std::string names;
    for (std::size_t i = 0; i < lots::kFootprintShapeCount; ++i)
      names += std::string(i ? ", " : "") + lots::to_string(static_cast<lots::FootprintShape>(i));
    return fail(Error::invalid_input(
        "--footprint", "unknown footprint '" + opt.footprint + "'; expected one of: " + names));
  }
  double w = 0.0;
  double d = 0.0;
  char x = 0;
  char extra = 0;
  if (std::sscanf(opt.size.c_str(), "%lf%c%lf%c", &w, &x, &d, &extra) != 3 || x != 'x' ||
      !(w > 0.0 && w < 1000.0) || !(d > 0.0 && d < 1000.0)) {
    return fail(Error::invalid_input(
        "--size",
        "expected WIDTHxDEPTH in metres, each in (0, 1000), e.g. 24x16; got '" + opt.size + "'"));
  }
  if (!(opt.height_m >= st.ground.height_m && opt.height_m <= 1000.0)) {
    return fail(
        Error::invalid_input("--height", "expected a height in [" + format_g9(st.ground.height_m) +
                                             ", 1000] m (at least the style's ground floor), got " +
                                             format_g9(opt.height_m)));
  }
  dna.size_x_m = w;
  dna.size_y_m = d;
  dna.shape_param = opt.shape_param;
  dna.style = static_cast<std::uint32_t>(style);
  dna.base_m = st.ground.height_m;
  const double above = opt.height_m - dna.base_m;
  dna.crown_m = above >= st.top.height_m + st.typical.height_m ? st.top.height_m : 0.0;
  dna.shaft_m = above - dna.crown_m;
  if (opt.massing == "staggered" || opt.massing == "cubified") {
    dna.massing = opt.massing == "staggered" ? lots::Massing::staggered : lots::Massing::cubified;
    dna.setback_steps = 3;
    dna.setback_m = st.setback_m;
  } else if (opt.massing != "plain") {
    return fail(Error::invalid_input(
        "--massing", "expected plain, cubified or staggered, got '" + opt.massing + "'"));
  }
  if (const double wall = lots::shortest_wall_m(dna.shape, w, d, dna.shape_param);
      wall < st.min_wall_m) {
    std::fprintf(stderr,
                 "cityforge: warning: the shortest wall of this footprint is %.2f m, under the "
                 "style's min_wall_m %.2f m: the city would not build it\n",
                 wall, st.min_wall_m);
  }
  // 3. One lot, one parcel: the footprint's box, its front edge on the street.
  lots::Lot lot;
  lot.area.outer = {{-w / 2, -d / 2}, {w / 2, -d / 2}, {w / 2, d / 2}, {-w / 2, d / 2}};
  lots::Parcel parcel;
  parcel.area = lot.area;
  parcel.frontage = {1, 0, 0, 0};
  parcel.dna = dna;
  lot.parcels.push_back(parcel);
  Result<buildings::Output> out =
      buildings::generate_lot(lot, *library, {}, buildings::Config{}, opt.seed);
  if (!out) return fail(out.error());
  Result<std::vector<std::uint8_t>> glb = exporter::building_glb(*out, *library);
  if (!glb) return fail(glb.error());
  if (Status s = exporter::write_file_atomic(opt.out, glb->data(), glb->size()); !s) {
    return fail(s.error());
  }
  const double ms =
      1000.0 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  if (!opt.quiet) {
    const buildings::Stats& bs = out->stats;
    std::printf("%s: %s %s %gx%g m, %g m high, %zu floors, %zu module instances (", opt.out.c_str(),
                st.name.c_str(), lots::to_string(dna.shape), w, d, opt.height_m, bs.floors,
                bs.instances);
    bool first = true;
    for (std::size_t k = 0; k < buildings::kModuleTagCount; ++k) {
      if (bs.modules_by_tag[k] == 0) continue;
      std::printf("%s%zu %s", first ? "" : ", ", bs.modules_by_tag[k], buildings::tag_name(k));
      first = false;
    }
    std::printf("), %zu rooms, %zu entrances, %zu roof triangles; %.0f ms\n", bs.rooms,
                bs.entrances, bs.roof_triangles, ms);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "cityforge: procedural 3D cities from a boundary, a few artery curves and zoning.\n"
      "Outputs glTF (city.glb), GeoJSON (layout.geojson), an SVG map and stats.json."};
  app.require_subcommand(1);
  app.footer(
      "Run `cityforge generate --help` for the options; the city JSON format is documented\n"
      "in docs/city-config.md.");
  GenerateOptions gen;
  CLI::App* g = app.add_subcommand(
      "generate",
      "Generate a city layout (roads, blocks, zoning, terrain) and export it.\n"
      "With no CONFIG, the built-in default city (data/default-city.json) is used.");
  g->add_option("config", gen.config_path,
                "City JSON: boundary, arteries, zones, water, terrain/layout/export rules");
  g->add_option("-o,--out", gen.out_dir, "Output folder (created if missing)")->default_val("out");
  g->add_option("--seed", gen.seed, "Seed (overrides the config's); same seed, same city");
  g->add_option("--threads", gen.threads,
                "Worker threads (default: all cores); output is identical for any count")
      ->check(CLI::Range(1, 1024));
  g->add_flag("-q,--quiet", gen.quiet, "No progress or summary, errors only");
  std::string instances_mode;
  g->add_option("--instances", instances_mode,
                "How city.glb writes building modules and props: ext (EXT_mesh_gpu_instancing, "
                "default), nodes (a node per instance: Blender 3.4 and other tools without the "
                "extension) or bake (merged meshes per chunk)")
      ->check(CLI::IsMember({"ext", "nodes", "bake"}));
  bool no_sumo = false;
  g->add_flag("--no-sumo", no_sumo,
              "Do not run SUMO's netconvert on sumo/*.xml (it runs when installed)");
  g->footer(
      "Examples:\n"
      "  cityforge generate -o out                      # the built-in default city\n"
      "  cityforge generate data/examples/metropolis-4x5km.json -o out --seed 3\n"
      "Exit codes: 0 done, 2 bad input (the message names the file and the value), 1 other\n"
      "failure. Nothing is written unless the whole city was generated.");
  BuildingOptions one;
  CLI::App* b = app.add_subcommand(
      "building",
      "Generate one building from a style (a built-in name or a BDF .json path) and write it\n"
      "as glTF: for iterating on a style (docs/styles.md).");
  b->add_option("--style", one.style, "Built-in style name or path to a BDF .json")
      ->default_val(one.style);
  b->add_option("--footprint", one.footprint, "Footprint shape (rectangle, l_shape, ...)")
      ->default_val(one.footprint);
  b->add_option("--size", one.size, "WIDTHxDEPTH in metres")->default_val(one.size);
  b->add_option("--height", one.height_m, "Height in metres")->default_val(one.height_m);
  b->add_option("--massing", one.massing, "plain, cubified or staggered")->default_val(one.massing);
  b->add_option("--shape-param", one.shape_param, "Footprint proportion (notch, wing, cut)")
      ->check(CLI::Range(0.2, 0.8))
      ->default_val(one.shape_param);
  b->add_option("--seed", one.seed, "Seed")->default_val(one.seed);
  b->add_option("-o,--out", one.out, "Output .glb")->default_val(one.out);
  b->add_flag("-q,--quiet", one.quiet, "Errors only");
  b->footer(
      "Example:\n"
      "  cityforge building --style art_deco --footprint chamfered --size 30x24 --height 90 "
      "--massing staggered -o deco.glb");
  ImportOptions imp;
  CLI::App* im = app.add_subcommand(
      "import",
      "Build the city of a real place from an OpenStreetMap extract (.osm or .osm.pbf) on its\n"
      "terrain (a DEM: GeoTIFF, SRTM .hgt or ArcInfo ASCII grid) and export it like a\n"
      "generated city (docs/import.md). Map data (c) OpenStreetMap contributors, ODbL.");
  im->add_option("map", imp.map_path, "OSM extract: .osm (XML) or .osm.pbf")->required();
  im->add_option("--dem", imp.dem_path, "Elevation: .tif, .hgt or .asc (default: flat ground)");
  im->add_option("--bbox", imp.bbox,
                 "minlon,minlat,maxlon,maxlat to import (default: the file's bounds)");
  im->add_option("-o,--out", imp.out_dir, "Output folder (created if missing)")->default_val("out");
  im->add_option("--config", imp.config_path,
                 "City JSON whose rules (roads, styles, dressing, export) to use; default: the "
                 "built-in default city's");
  im->add_option("--seed", imp.seed, "Seed for what the map does not say (heights, styles...)");
  im->add_option("--cell", imp.cell_m, "Terrain grid spacing in metres (default: automatic)")
      ->check(CLI::Range(1.0, 500.0));
  im->add_option("--threads", imp.threads,
                 "Worker threads (default: all cores); output is identical for any count")
      ->check(CLI::Range(1, 1024));
  bool imp_no_sumo = false;
  im->add_flag("--no-sumo", imp_no_sumo, "Do not run netconvert on the SUMO plain XML");
  std::string imp_instances;
  im->add_option("--instances", imp_instances, "ext (default), nodes or bake")
      ->check(CLI::IsMember({"ext", "nodes", "bake"}));
  im->add_flag("-q,--quiet", imp.quiet, "Errors only");
  im->footer(
      "Example:\n"
      "  cityforge import tests/data/osm/andorra.osm.pbf --dem tests/data/dem/andorra_srtm3.tif "
      "--bbox 1.515,42.500,1.545,42.515 -o andorra");
  app::WfcOptions wo;
  CLI::App* wc = app.add_subcommand(
      "wfc",
      "Solve a wave function collapse model on a square grid (docs/wfc.md) and write the tile\n"
      "names per cell with the solver's stats (.json) or the tiles as instanced meshes (.glb).");
  wc->add_option("--model", wo.model,
                 "Model JSON path, or a built-in model: builtin:NAME or NAME (cat, city_blocks, "
                 "rooftop, ...)")
      ->required();
  wc->add_option("--size", wo.size, "Cells per axis: X,Y,Z (or X,Y or X), each >= 1")->required();
  wc->add_option("--seed", wo.seed, "Seed; same seed, same solve")->default_val(wo.seed);
  wc->add_option("-o,--out", wo.out, "Output: .json (tiles + stats) or .glb")->required();
  wc->add_option("--trace", wo.trace, "Also write every observe / propagate step to this JSON");
  wc->add_option("--fix", wo.fixed, "Pre-place a tile: x,y,z=TILE (repeatable)");
  wc->add_option("--block", wo.block,
                 "Solve in overlapping blocks of N x N cells with local repair (0: one solve)")
      ->default_val(wo.block);
  wc->add_option("--backtracks", wo.backtracks, "Decisions undone before an attempt gives up")
      ->default_val(wo.backtracks);
  wc->add_option("--restarts", wo.restarts, "Fresh attempts after a failed one")
      ->default_val(wo.restarts);
  wc->add_option("--cell", wo.cell_m, "Cell size in metres in the .glb")->default_val(wo.cell_m);
  wc->add_flag("-q,--quiet", wo.quiet, "Errors only");
  wc->footer(
      "Examples:\n"
      "  cityforge wfc --model city_blocks --size 32,32 --seed 3 -o blocks.glb\n"
      "  cityforge wfc --model builtin:rooftop --size 6,4,2 --fix 2,1,0=bulkhead -o roof.json "
      "--trace steps.json\n"
      "Exit codes: 0 done, 2 bad input or no solution within the budget, 1 other failure.");
  app::IslandOptions io;
  CLI::App* isl = app.add_subcommand(
      "island",
      "Generate a small island level after Oskar Stalberg's island generator (docs/islands.md):\n"
      "an irregular grid, tiles solved by WFC in two passes so every walkable place is reachable,\n"
      "deformed, smoothed and coloured. Writes island.glb, island_nav.json, island_tiles.json\n"
      "and stats.json.");
  isl->add_option("--seed", io.seed, "Seed; same seed, same island (byte for byte)")
      ->default_val(io.seed);
  isl->add_option("--size", io.size, "Radius of the island's hexagon in cells, 2..24")
      ->default_val(io.size);
  isl->add_option("--grid", io.grid,
                  "Grid: mixed (squares and triangles, default), square or triangle")
      ->default_val(io.grid);
  isl->add_option("--layers", io.layers, "Layers of cells (height levels), 2..12")
      ->default_val(io.layers);
  // Checked by app::island (exit 2 like every bad value), not by CLI11 (exit 106).
  isl->add_option("-o,--out", io.out, "Output folder (created if missing); required");
  isl->add_flag("-q,--quiet", io.quiet, "Errors only");
  isl->footer(
      "Examples:\n"
      "  cityforge island --seed 7 -o island\n"
      "  cityforge island --seed 7 --size 10 --grid square -o square_island\n"
      "Exit codes: 0 done, 2 bad input or no island within the solver's budget, 1 other\n"
      "failure. Nothing is written unless the whole island was generated.");
  app::SimulateOptions so;
  CLI::App* sc = app.add_subcommand(
      "simulate",
      "Run the traffic of a generated city headless (vehicles on lanes.json, signals, lane\n"
      "changes, trips, parked cars) and write a recording for the viewer and sim_stats.json.");
  sc->add_option("dir", so.dir, "Folder written by `cityforge generate`")->required();
  sc->add_option("--seconds", so.seconds, "Simulated seconds")
      ->check(CLI::Range(0.0, 1e7))
      ->default_val(so.seconds);
  sc->add_option("--vehicles", so.vehicles,
                 "Moving vehicles kept in the network (clamped to "
                 "45% of the lane capacity)")
      ->default_val(so.vehicles);
  sc->add_option("--threads", so.threads, "Worker threads (default: all cores); same result")
      ->check(CLI::Range(1, 1024));
  sc->add_option("--seed", so.seed, "Seed")->default_val(so.seed);
  sc->add_option("--dt", so.dt_s, "Tick length in seconds")
      ->check(CLI::Range(0.01, 1.0))
      ->default_val(so.dt_s);
  sc->add_option("--trip-share", so.trip_share,
                 "Share of vehicles on A* trips to destinations (the rest roam by density)")
      ->check(CLI::Range(0.0, 1.0))
      ->default_val(so.trip_share);
  sc->add_option("--parked-share", so.parked_share, "Share of parking spots holding a car")
      ->check(CLI::Range(0.0, 1.0))
      ->default_val(so.parked_share);
  sc->add_option("--record-hz", so.record_hz, "Recording frames per simulated second")
      ->check(CLI::Range(0.1, 100.0))
      ->default_val(so.record_hz);
  sc->add_option("-o,--out", so.out, "Recording path (default DIR/traffic.cfrec)");
  bool no_record = false;
  sc->add_flag("--no-record", no_record, "No recording (benchmarks); sim_stats.json goes to DIR");
  sc->add_flag("--audit", so.audit,
               "Check invariants after every tick (overlaps, conflicting movements); slower");
  sc->add_option("--pedestrians", so.pedestrians,
                 "Pedestrians on the sidewalks and crosswalks (0: no crowd)")
      ->default_val(so.pedestrians);
  sc->add_option("--viewer", so.viewer,
                 "Viewer for the levels of detail: x,y,z,yaw_deg (fixed) or a file of "
                 "\"t x y z yaw_deg\" lines (a path); default: the origin, looking east");
  sc->add_option("--event", so.events,
                 "flee@x,y,t[,radius_m[,duration_s]]: pedestrians within the radius flee "
                 "(repeatable)");
  bool no_lod = false;
  sc->add_flag("--no-lod", no_lod, "Every agent at full fidelity (no levels of detail)");
  sc->add_flag("-q,--quiet", so.quiet, "Errors only");
  sc->footer(
      "Example:\n"
      "  cityforge generate -o out && cityforge simulate out --seconds 300 --vehicles 3000\n"
      "Figures go to sim_stats.json next to the recording (docs/traffic.md).");
  app::ServeOptions vo;
  CLI::App* sv = app.add_subcommand(
      "serve",
      "Serve a generated city folder over HTTP at /city/<file> (and a viewer folder at /)\n"
      "until Ctrl-C. Binds 127.0.0.1 only, unless --host names another interface.");
  sv->add_option("dir", vo.dir, "Folder written by `cityforge generate`")->required();
  sv->add_option("--port", vo.port, "TCP port (0: any free one, printed on start)")
      ->check(CLI::Range(0, 65535))
      ->default_val(vo.port);
  sv->add_option("--host", vo.host,
                 "Address to bind (default 127.0.0.1: this machine only; 0.0.0.0 exposes the "
                 "city to the network)")
      ->default_val(vo.host);
  sv->add_option("--root", vo.root,
                 "Viewer folder (built static files) served at / (default: $CITYFORGE_VIEWER, "
                 "else this build's viewer/dist when it exists)");
  sv->add_flag("--live", vo.live,
               "Run the city's traffic and crowd in real time and stream them at ws://.../live "
               "(docs/live.md)");
  sv->add_option("--vehicles", vo.vehicles, "Live: moving vehicles (clamped to the capacity)")
      ->default_val(vo.vehicles);
  sv->add_option("--pedestrians", vo.pedestrians, "Live: pedestrians")->default_val(vo.pedestrians);
  sv->add_option("--seed", vo.seed, "Live: seed")->default_val(vo.seed);
  sv->add_option("--speed", vo.speed, "Live: simulated seconds per wall second")
      ->check(CLI::Range(0.05, 16.0))
      ->default_val(vo.speed);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  gen.sumo_convert = !no_sumo;
  if (!instances_mode.empty()) {
    pipeline::InstanceMode m{};
    if (pipeline::instance_mode_from_string(instances_mode, &m)) gen.instances = m;
  }
  if (g->parsed()) return generate(gen);
  if (im->parsed()) {
    imp.sumo_convert = !imp_no_sumo;
    if (!imp_instances.empty()) {
      pipeline::InstanceMode m{};
      if (pipeline::instance_mode_from_string(imp_instances, &m)) imp.instances = m;
    }
    return import_place(imp);
  }
  if (b->parsed()) return building(one);
  if (wc->parsed()) return app::wfc(wo);
  if (isl->parsed()) return app::island(io);
  if (sv->parsed()) return app::serve(vo);
  if (sc->parsed()) {
    so.record = !no_record;
    so.lod = !no_lod;
    return app::simulate(so);
  }
  return kExitFailure;
}
