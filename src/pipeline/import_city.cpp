// SPDX-License-Identifier: Apache-2.0
// `cityforge import`: an OSM extract and a DEM through the city graph. The OSM stages (read,
// terrain from the DEM, network, condition, lots from the mapped buildings, features) take the
// place of the generated ones; roads, styles, buildings, rooftops and set dressing are the same
// stages as in `generate`, with the same cache, stats and observer. The order is the data's:
// the terrain is cut under the roads before anything drapes on it.
#include "cityforge/pipeline/import_city.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/detail/city_stages.hpp"

namespace cityforge::pipeline {
namespace {

using detail::add_stage;
using detail::given;
using detail::reads;

/// The local box of a WGS84 box: the extent of its projected outline (edges sampled, as the
/// meridians and parallels bend in transverse Mercator).
Aabb2 local_box(const osm::GeoBox& box, const osm::Projection& proj) {
  Aabb2 out{{1e300, 1e300}, {-1e300, -1e300}};
  constexpr int kSteps = 16;
  for (int i = 0; i <= kSteps; ++i) {
    const double t = static_cast<double>(i) / kSteps;
    const double lon = box.min_lon + t * (box.max_lon - box.min_lon);
    const double lat = box.min_lat + t * (box.max_lat - box.min_lat);
    for (const Vec2 p : {proj.to_local(lon, box.min_lat), proj.to_local(lon, box.max_lat),
                         proj.to_local(box.min_lon, lat), proj.to_local(box.max_lon, lat)}) {
      out.min.x = std::min(out.min.x, p.x);
      out.min.y = std::min(out.min.y, p.y);
      out.max.x = std::max(out.max.x, p.x);
      out.max.y = std::max(out.max.y, p.y);
    }
  }
  return out;
}

double area_km2(const Aabb2& area) {
  return (area.max.x - area.min.x) * (area.max.y - area.min.y) / 1e6;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& from,
            const char* prefix) {
  for (const std::string& w : from)
    to.push_back(std::string(prefix) + w);
}

/// The extract, projected around the centre of its bounds.
struct Place {
  osm::Extract extract;
  std::shared_ptr<const osm::Projection> projection;
  Aabb2 area;
};

/// The DEM files of an import as its terrain stage is handed them, sorted (osm::dem_files): a
/// changed file (size or time), one more or one less changes the key; one file keys as before
/// mosaics existed.
struct DemFiles {
  std::vector<detail::SourceFile> files;
};
std::string config_text(const DemFiles& dem) {
  if (dem.files.empty()) return detail::config_text(detail::SourceFile{});
  std::string text;
  for (const detail::SourceFile& f : dem.files)
    text += detail::config_text(f);
  return text;
}

/// The DEM resampled onto the local frame (or flat ground).
struct Ground {
  terrain::Heightfield heights;
  std::optional<osm::DemStats> dem;
  double cell_m = 0.0;
};

/// The ground cut and filled under the roads.
struct Conditioned {
  terrain::Heightfield ground;
  osm::ConditionStats stats;
};

struct Import {
  StageGraph graph;
  detail::CityStages city;
  StageOutput<Place> place;
  StageOutput<Ground> ground;
  StageOutput<osm::NetworkBuild> network;
  StageOutput<Conditioned> condition;
  StageOutput<osm::BuildingBuild> mapped_lots;
  StageOutput<osm::FeatureBuild> features;
};

Import import_graph(const ImportSettings& settings, const std::vector<std::string>& dem_files,
                    const Ranks& ranks) {
  const CityConfig& rules = settings.rules;
  Import out;
  StageGraph& g = out.graph;
  detail::CityStages& s = out.city;
  // 1. Read the extract (projected around the centre of its bounds).
  out.place = add_stage<Place>(
      g, "read", reads(), given(detail::SourceFile::at(settings.osm_path), settings.bbox),
      [](const detail::SourceFile& file, const std::optional<osm::GeoBox>& bbox) -> Result<Place> {
        osm::ReadOptions ro;
        ro.bbox = bbox;
        Result<osm::Extract> extract = osm::read_file(file.path, ro);
        if (!extract) return extract.error();
        Result<osm::Projection> proj = osm::Projection::around(extract->lon0, extract->lat0);
        if (!proj) return proj.error();
        auto projection = std::make_shared<const osm::Projection>(std::move(*proj));
        const Aabb2 area = local_box(extract->bounds, *projection);
        return Place{std::move(*extract), std::move(projection), area};
      });
  // 2. Terrain: the DEM (one file or a mosaic) resampled onto the local frame, or flat ground.
  DemFiles dem_key;
  for (const std::string& path : dem_files)
    dem_key.files.push_back(detail::SourceFile::at(path));
  out.ground = add_stage<Ground>(
      g, "terrain", reads(out.place), given(dem_key, detail::CellSize{settings.cell_m}),
      [](const Place& place, const DemFiles& dem, detail::CellSize cell) -> Result<Ground> {
        Ground made;
        made.cell_m = cell.cell_m > 0.0 ? cell.cell_m : auto_cell_m(area_km2(place.area) * 1e6);
        if (dem.files.empty()) {
          made.heights = osm::flat_ground(place.area, made.cell_m);
          return made;
        }
        std::vector<std::string> paths;
        for (const detail::SourceFile& f : dem.files)
          paths.push_back(f.path);
        osm::DemStats ds;
        Result<terrain::Heightfield> hf =
            osm::read_dem_mosaic(paths, *place.projection, place.area, made.cell_m, &ds);
        if (!hf) return hf.error();
        made.heights = std::move(*hf);
        made.dem = ds;
        return made;
      });
  // 3. The road network and its blocks.
  out.network =
      add_stage<osm::NetworkBuild>(g, "network", reads(out.place), given(settings.network),
                                   [](const Place& place, const osm::NetworkConfig& config) {
                                     return osm::build_network(place.extract, place.area, config);
                                   });
  s.layout = out.network.part<&osm::NetworkBuild::layout>();
  // 4. Cut and fill under the roads, so nothing that drapes on the ground floats or sinks.
  out.condition = add_stage<Conditioned>(
      g, "condition", reads(out.ground, s.layout), given(settings.condition),
      [](const Ground& ground, const layout::Output& city,
         const osm::ConditionConfig& config) -> Result<Conditioned> {
        Conditioned made{ground.heights, {}};
        made.stats = osm::condition_terrain(made.ground, city.network, config);
        // Everything drapes on the drawn triangles, not a bilinear surface between them.
        made.ground.mesh_exact = true;
        return made;
      });
  s.terrain = out.condition.part<&Conditioned::ground>();
  // 5. The road processor: junctions, sections, modules, sidewalks, lane graph. No freeways.
  s.roads = detail::add_roads(g, rules, s.terrain, s.layout);
  s.freeway = add_stage<freeway::Output>(g, "freeway", reads(s.roads), given(),
                                         [](const roads::Output& rd) -> Result<freeway::Output> {
                                           freeway::Output fw;
                                           fw.first_lane_id =
                                               static_cast<roads::LaneId>(rd.lanes.lanes.size());
                                           return fw;
                                         });
  // 6. Styles, mapped buildings as lots, the building generator, rooftops.
  s.styles = detail::add_styles(g, rules);
  out.mapped_lots = add_stage<osm::BuildingBuild>(
      g, "lots", reads(out.place, s.layout, s.styles), given(settings.buildings, rules.seed),
      [](const Place& place, const layout::Output& city, const buildings::StyleLibrary& styles,
         const osm::BuildingConfig& config, Seed seed) {
        return osm::build_buildings(place.extract, place.area, city, styles, config, seed);
      });
  s.lots = out.mapped_lots.part<&osm::BuildingBuild::lots>();
  s.buildings = detail::add_buildings(g, rules, s);
  s.rooftops = detail::add_rooftops(g, rules, s, ranks);
  // 7. Mapped features and the set dressing.
  out.features = add_stage<osm::FeatureBuild>(
      g, "features", reads(out.place, out.network), given(),
      [](const Place& place, const osm::NetworkBuild& net) -> Result<osm::FeatureBuild> {
        return osm::build_features(place.extract, place.area, net.paths);
      });
  s.dressing =
      detail::add_dressing(g, rules, s, ranks, out.features.part<&osm::FeatureBuild::mapped>());
  return out;
}

}  // namespace

double auto_cell_m(double area_m2) {
  // 5 m resolves a street's cross-section; beyond ~1 M samples the mesh outgrows a browser.
  return std::clamp(std::sqrt(std::max(area_m2, 0.0) / 1.0e6), 5.0, 60.0);
}

Result<ImportResult> CityPipeline::import(const ImportSettings& settings, Observer* observer) {
  // The DEM files first (folders listed, sorted): they key the terrain stage.
  Result<std::vector<std::string>> dem_files = osm::dem_files(settings.dem_paths);
  if (!dem_files) return dem_files.error();
  const Import im = import_graph(settings, *dem_files, *m_ranks);
  std::vector<StageStats> stats;
  Result<StageValues> values = im.graph.run(m_cache, observer, &stats);
  if (!values) return values.error();
  ImportResult out;
  out.city = detail::city_result(*values, im.city, std::move(stats));
  // What the import read, made and skipped, in stage order.
  const auto place = values->get(im.place);
  const auto ground = values->get(im.ground);
  const auto net = values->get(im.network);
  const auto mapped_lots = values->get(im.mapped_lots);
  const auto features = values->get(im.features);
  const osm::Extract& extract = place->extract;
  ImportReport& rep = out.report;
  rep.source = settings.osm_path;
  rep.bounds = extract.bounds;
  rep.lon0 = extract.lon0;
  rep.lat0 = extract.lat0;
  rep.local_crs = place->projection->definition();
  rep.area_km2 = area_km2(place->area);
  rep.cell_m = ground->cell_m;
  rep.read = extract.stats;
  rep.nodes_kept = extract.nodes.size();
  rep.ways_kept = extract.ways.size();
  rep.areas_kept = extract.areas.size();
  append(rep.warnings, extract.warnings, "read: ");
  rep.dem = ground->dem;
  rep.roads = net->census;
  append(rep.warnings, net->warnings, "roads: ");
  rep.condition = values->get(im.condition)->stats;
  rep.buildings = mapped_lots->census;
  append(rep.warnings, mapped_lots->warnings, "buildings: ");
  rep.features = features->census;
  append(rep.warnings, features->warnings, "features: ");
  out.projection = place->projection;
  out.mapped = values->get(im.features.part<&osm::FeatureBuild::mapped>());
  out.paths = net->paths;
  return out;
}

Result<ImportResult> import_city(const ImportSettings& settings, Observer* observer) {
  CityPipeline pipe;
  return pipe.import(settings, observer);
}

}  // namespace cityforge::pipeline
