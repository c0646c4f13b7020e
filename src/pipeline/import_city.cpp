// SPDX-License-Identifier: Apache-2.0
// `cityforge import`: an OSM extract and a DEM through the city's stages, one after the other
// (each stage is parallel inside; the order is the data's: the terrain is cut under the roads
// before anything drapes on it).
#include "cityforge/pipeline/import_city.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "cityforge/buildings/buildings.hpp"
#include "cityforge/dressing/dressing.hpp"
#include "cityforge/freeway/freeway.hpp"
#include "cityforge/roads/meshes.hpp"
#include "cityforge/roads/roads.hpp"

namespace cityforge::pipeline {
namespace {

/// Times one step, tells the observer, records its stats.
class Steps {
 public:
  explicit Steps(Observer* observer) : m_observer(observer) {}
  template <class F>
  auto run(const std::string& name, F&& f) {
    reset_peak_rss();
    if (m_observer != nullptr) m_observer->stage_started(name);
    const auto t0 = std::chrono::steady_clock::now();
    auto out = f();
    StageStats s;
    s.name = name;
    s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    s.peak_rss_kb = peak_rss_kb();
    if (m_observer != nullptr) m_observer->stage_finished(s);
    stats.push_back(s);
    return out;
  }
  std::vector<StageStats> stats;

 private:
  Observer* m_observer;
};

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

void append(std::vector<std::string>& to, const std::vector<std::string>& from,
            const char* prefix) {
  for (const std::string& w : from)
    to.push_back(std::string(prefix) + w);
}

}  // namespace

double auto_cell_m(double area_m2) {
  // 5 m resolves a street's cross-section; beyond ~1 M samples the mesh outgrows a browser.
  return std::clamp(std::sqrt(std::max(area_m2, 0.0) / 1.0e6), 5.0, 60.0);
}

Result<ImportResult> import_city(const ImportSettings& settings, Observer* observer) {
  const CityConfig& rules = settings.rules;
  Steps steps(observer);
  ImportResult out;
  ImportReport& rep = out.report;

  // 1. Read the extract (projected around the centre of its bounds).
  osm::ReadOptions ro;
  ro.bbox = settings.bbox;
  Result<osm::Extract> extract =
      steps.run("read", [&] { return osm::read_file(settings.osm_path, ro); });
  if (!extract) return extract.error();
  Result<osm::Projection> proj = osm::Projection::around(extract->lon0, extract->lat0);
  if (!proj) return proj.error();
  out.projection = std::make_shared<const osm::Projection>(std::move(*proj));
  const osm::Projection& projection = *out.projection;
  const Aabb2 area = local_box(extract->bounds, projection);
  rep.source = settings.osm_path;
  rep.bounds = extract->bounds;
  rep.lon0 = extract->lon0;
  rep.lat0 = extract->lat0;
  rep.local_crs = projection.definition();
  rep.area_km2 = (area.max.x - area.min.x) * (area.max.y - area.min.y) / 1e6;
  rep.cell_m = settings.cell_m > 0.0 ? settings.cell_m : auto_cell_m(rep.area_km2 * 1e6);
  rep.read = extract->stats;
  rep.nodes_kept = extract->nodes.size();
  rep.ways_kept = extract->ways.size();
  rep.areas_kept = extract->areas.size();
  append(rep.warnings, extract->warnings, "read: ");

  // 2. Terrain: the DEM resampled onto the local frame, or flat ground.
  Result<terrain::Heightfield> ground = steps.run("terrain", [&]() -> Result<terrain::Heightfield> {
    if (settings.dem_path.empty()) return osm::flat_ground(area, rep.cell_m);
    osm::DemStats ds;
    Result<terrain::Heightfield> hf =
        osm::read_dem(settings.dem_path, projection, area, rep.cell_m, &ds);
    if (hf) rep.dem = ds;
    return hf;
  });
  if (!ground) return ground.error();

  // 3. The road network and its blocks.
  Result<osm::NetworkBuild> net =
      steps.run("network", [&] { return osm::build_network(*extract, area, settings.network); });
  if (!net) return net.error();
  rep.roads = net->census;
  append(rep.warnings, net->warnings, "roads: ");
  out.paths = net->paths;
  auto layout_out = std::make_shared<layout::Output>(std::move(net->layout));

  // 4. Cut and fill under the roads, so nothing that drapes on the ground floats or sinks.
  steps.run("condition", [&] {
    rep.condition = osm::condition_terrain(*ground, layout_out->network, settings.condition);
    return 0;
  });
  // Everything drapes on the drawn triangles, not a bilinear surface between them.
  ground->mesh_exact = true;
  auto terrain_out = std::make_shared<const terrain::Heightfield>(std::move(*ground));

  // 5. The road processor: junctions, sections, modules, sidewalks, lane graph.
  Result<roads::Output> rd = steps.run(
      "roads", [&] { return roads::run(*layout_out, *terrain_out, rules.roads, rules.seed); });
  if (!rd) return rd.error();
  auto roads_out = std::make_shared<const roads::Output>(std::move(*rd));
  Result<roads::SurfaceMeshes> meshes = steps.run("road_meshes", [&] {
    return roads::build_surface_meshes(*layout_out, *terrain_out, roads_out.get(), rules.roads);
  });
  if (!meshes) return meshes.error();
  auto meshes_out = std::make_shared<const roads::SurfaceMeshes>(std::move(*meshes));
  auto fw = std::make_shared<freeway::Output>();
  fw->first_lane_id = static_cast<roads::LaneId>(roads_out->lanes.lanes.size());

  // 6. Styles, mapped buildings as lots, the building generator.
  Result<buildings::StyleLibrary> styles =
      steps.run("styles", [&] { return load_styles(rules.buildings.style_sources); });
  if (!styles) return styles.error();
  auto styles_out = std::make_shared<const buildings::StyleLibrary>(std::move(*styles));
  Result<osm::BuildingBuild> bb = steps.run("lots", [&] {
    return osm::build_buildings(*extract, area, *layout_out, *styles_out, settings.buildings,
                                rules.seed);
  });
  if (!bb) return bb.error();
  rep.buildings = bb->census;
  append(rep.warnings, bb->warnings, "buildings: ");
  auto lots_out = std::make_shared<const lots::Output>(std::move(bb->lots));
  Result<buildings::Output> built = steps.run("buildings", [&] {
    return buildings::run(*lots_out, *styles_out, rules.buildings.tag_volumes, *terrain_out,
                          rules.buildings.generator, rules.seed);
  });
  if (!built) return built.error();
  auto buildings_out = std::make_shared<const buildings::Output>(std::move(*built));
  Result<rooftops::RooftopOutput> roofs = steps.run(
      "rooftops", [&] { return build_city_rooftops(*buildings_out, rules.rooftops, rules.seed); });
  if (!roofs) return roofs.error();
  auto rooftops_out = std::make_shared<const rooftops::RooftopOutput>(std::move(*roofs));

  // 7. Mapped features and the set dressing.
  osm::FeatureBuild fb =
      steps.run("features", [&] { return osm::build_features(*extract, area, out.paths); });
  rep.features = fb.census;
  append(rep.warnings, fb.warnings, "features: ");
  out.mapped = std::make_shared<const dressing::Mapped>(std::move(fb.mapped));
  Result<dressing::Output> dressed = steps.run("dressing", [&]() -> Result<dressing::Output> {
    std::vector<dressing::Biome> biomes;
    std::vector<std::string> warnings;
    for (const auto& [file, text] : rules.dressing.biome_sources) {
      Result<dressing::Biome> b = dressing::parse_biome(text, file);
      if (b) {
        biomes.push_back(std::move(*b));
      } else {
        warnings.push_back(b.error().to_string() + " (biome skipped)");
      }
    }
    dressing::Inputs in;
    in.ground = terrain_out.get();
    in.city = layout_out.get();
    in.roads = roads_out.get();
    in.freeway = fw.get();
    in.styles = styles_out.get();
    in.lots = lots_out.get();
    in.buildings = buildings_out.get();
    in.rooftops = rooftops_out.get();
    in.mapped = out.mapped.get();
    Result<dressing::Output> r = dressing::run(in, biomes, rules.dressing.rules, rules.seed);
    if (r) r->warnings.insert(r->warnings.begin(), warnings.begin(), warnings.end());
    return r;
  });
  if (!dressed) return dressed.error();

  CityResult& city = out.city;
  city.terrain = terrain_out;
  city.layout = layout_out;
  city.roads = roads_out;
  city.road_meshes = meshes_out;
  city.freeway = fw;
  city.styles = styles_out;
  city.lots = lots_out;
  city.buildings = buildings_out;
  city.rooftops = rooftops_out;
  city.dressing = std::make_shared<const dressing::Output>(std::move(*dressed));
  city.stages = steps.stats;
  return out;
}

}  // namespace cityforge::pipeline
