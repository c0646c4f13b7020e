// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cmath>
#include <string>
#include <utility>

#include "cityforge/export/export.hpp"
#include "cityforge/layout/layout.hpp"
#include "cityforge/roads/meshes.hpp"
#include "cityforge/terrain/heightfield.hpp"
#include "export/city_meshes.hpp"

/// A tiny hand-made city for the export tests: a 300 m square, one road of each class plus a
/// second local road, four blocks (one in a park, one with a hole) and one downtown zone, on a
/// gently sloping 10 m heightfield that reaches 50 m beyond the boundary.
namespace cityforge::exporter::fixture {

inline layout::RoadEdge make_edge(layout::EdgeId id, layout::NodeId from, layout::NodeId to,
                                  layout::RoadClass c, Polyline points, double width_m) {
  layout::RoadEdge e;
  e.id = id;
  e.from = from;
  e.to = to;
  e.road_class = c;
  e.points = std::move(points);
  e.width_m = width_m;
  e.lanes_per_direction = c == layout::RoadClass::artery ? 3 : 1;
  e.sidewalk_width_m = 3.0;
  e.speed_limit_kmh = c == layout::RoadClass::artery ? 60.0 : 40.0;
  e.length_m = polyline_length(e.points);
  e.traffic_density = 0.25;
  e.pedestrian_density = 0.125;
  return e;
}

inline layout::Block make_block(layout::BlockId id, Vec2 lo, Vec2 hi, layout::ZoneKind zone,
                                double height_m) {
  layout::Block b;
  b.id = id;
  b.area.outer = {lo, {hi.x, lo.y}, hi, {lo.x, hi.y}};
  b.zone = zone;
  b.target_height_m = height_m;
  b.density = 0.5;
  return b;
}

/// What a streamed writer hands its sink, kept, and in how many parts.
struct CollectedText {
  std::string text;
  std::size_t parts = 0;
  ByteSink sink() {
    return [this](const void* data, std::size_t size) -> Status {
      text.append(static_cast<const char*>(data), size);
      ++parts;
      return Ok{};
    };
  }
};

inline layout::Output small_city() {
  using layout::RoadClass;
  using layout::ZoneKind;
  layout::Output city;
  city.boundary.outer = {{0, 0}, {300, 0}, {300, 300}, {0, 300}};
  city.network.nodes = {{0, {0, 150}, {0}},   {1, {300, 150}, {0}}, {2, {100, 0}, {1}},
                        {3, {100, 300}, {1}}, {4, {200, 0}, {2}},   {5, {200, 300}, {2}},
                        {6, {0, 50}, {3}},    {7, {100, 50}, {3}}};
  city.network.edges = {
      make_edge(0, 0, 1, RoadClass::artery, {{0, 150}, {150, 155}, {300, 150}}, 22.0),
      make_edge(1, 2, 3, RoadClass::main, {{100, 0}, {100, 300}}, 14.0),
      make_edge(2, 4, 5, RoadClass::local, {{200, 0}, {200, 300}}, 9.0),
      make_edge(3, 6, 7, RoadClass::local, {{0, 50}, {100, 50}}, 9.0),
  };
  city.network.edges[0].artery_index = 0;
  city.blocks = {
      make_block(0, {10, 60}, {90, 135}, ZoneKind::residential, 12.0),
      make_block(1, {115, 10}, {190, 135}, ZoneKind::commercial, 30.0),
      make_block(2, {210, 170}, {290, 290}, ZoneKind::park, 9.0),
      make_block(3, {10, 170}, {90, 290}, ZoneKind::downtown, 60.0),
  };
  // Block 3 is a courtyard block: a clockwise hole.
  city.blocks[3].area.holes.push_back({{35, 200}, {35, 260}, {65, 260}, {65, 200}});
  city.blocks[3].zone_index = 0;
  city.blocks[1].frontage = {1, 2};
  layout::Zone old_town;
  old_town.name = "Old \"Town\"";
  old_town.kind = ZoneKind::downtown;
  old_town.area.outer = {{0, 160}, {100, 160}, {100, 300}, {0, 300}};
  old_town.min_height_m = 20.0;
  old_town.max_height_m = 80.0;
  old_town.density = 0.9;
  city.zones.push_back(old_town);
  return city;
}

inline terrain::Heightfield small_ground() {
  terrain::Heightfield g;
  g.origin = {-50.0, -50.0};
  g.cell_m = 10.0;
  g.nx = 41;
  g.ny = 41;
  g.heights.resize(std::size_t{g.nx} * g.ny);
  for (std::uint32_t j = 0; j < g.ny; ++j) {
    for (std::uint32_t i = 0; i < g.nx; ++i) {
      const double x = g.origin.x + i * g.cell_m;
      const double y = g.origin.y + j * g.cell_m;
      g.heights[std::size_t{j} * g.nx + i] =
          static_cast<float>(5.0 + 0.02 * x + 0.01 * y + 2.0 * std::sin(x / 70.0));
    }
  }
  return g;
}

/// The meshes city.glb is made of for a city without buildings, built as the stages that own
/// them do: the road and block surfaces (roads::build_surface_meshes, the raises of `rules`) and
/// the block volumes.
struct CityMeshes {
  roads::SurfaceMeshes roads;
  std::vector<Mesh> volumes;
  /// What the exporter makes the same road meshes from (on the heap: CityMeshes moves).
  std::unique_ptr<roads::Config> rules;
  std::unique_ptr<roads::SectionMarkings> markings;
  std::unique_ptr<roads::SurfaceSource> source;
};

inline Result<CityMeshes> city_meshes(const layout::Output& city,
                                      const terrain::Heightfield& ground, const Config& config,
                                      const roads::Output* built = nullptr,
                                      roads::Config rules = {}) {
  Result<roads::SurfaceMeshes> surfaces = roads::build_surface_meshes(city, ground, built, rules);
  if (!surfaces) return surfaces.error();
  Result<std::vector<Mesh>> volumes =
      roads::build_block_volumes(city, ground, config.volume_setback_m);
  if (!volumes) return volumes.error();
  auto kept = std::make_unique<roads::Config>(rules);
  std::unique_ptr<roads::SectionMarkings> markings;
  if (built != nullptr)
    markings = std::make_unique<roads::SectionMarkings>(city, *built, ground, *kept);
  auto source =
      std::make_unique<roads::SurfaceSource>(roads::SurfaceSource{.city = &city,
                                                                  .ground = &ground,
                                                                  .roads = built,
                                                                  .config = kept.get(),
                                                                  .markings = markings.get()});
  return CityMeshes{std::move(*surfaces), std::move(*volumes), std::move(kept), std::move(markings),
                    std::move(source)};
}

/// What else city_glb_of and chunks_of pass on (all optional).
struct Extras {
  const roads::Output* roads = nullptr;
  roads::Config rules;
  const dressing::Output* dressing = nullptr;
  const rooftops::RooftopOutput* rooftops = nullptr;
};

/// What city_glb and the chunking read of `city`, its `meshes` and `extras`.
inline CityGlbInputs inputs_of(const layout::Output& city, const terrain::Heightfield& ground,
                               const Config& config, const CityMeshes& meshes,
                               const Extras& extras) {
  return {.terrain = ground,
          .layout = city,
          .settings = config,
          .roads = extras.roads,
          .road_surfaces = meshes.source.get(),
          .block_volumes = &meshes.volumes,
          .dressing = extras.dressing,
          .rooftops = extras.rooftops};
}

/// city_glb of `city` with its meshes built first (city_meshes); the first error of either.
inline Result<std::vector<std::uint8_t>> city_glb_of(const layout::Output& city,
                                                     const terrain::Heightfield& ground,
                                                     const Config& config,
                                                     const Extras& extras = {}) {
  Result<CityMeshes> meshes = city_meshes(city, ground, config, extras.roads, extras.rules);
  if (!meshes) return meshes.error();
  return city_glb(inputs_of(city, ground, config, *meshes, extras));
}

/// The chunk meshes behind city_glb_of.
/// `keep`: detail::chunk_city_meshes's chunk filter; `bytes` (when set) gets
/// detail::chunk_census's bytes of the same inputs.
inline Result<detail::ChunkList> chunks_of(
    const layout::Output& city, const terrain::Heightfield& ground, const Config& config,
    const Extras& extras = {}, const detail::ChunkFilter& keep = {},
    std::map<std::pair<std::int32_t, std::int32_t>, double>* bytes = nullptr) {
  Result<CityMeshes> meshes = city_meshes(city, ground, config, extras.roads, extras.rules);
  if (!meshes) return meshes.error();
  const CityGlbInputs in = inputs_of(city, ground, config, *meshes, extras);
  if (bytes != nullptr) {
    auto counted = detail::chunk_census(in, single_rank());
    if (!counted) return counted.error();
    *bytes = std::move(counted->bytes);
  }
  return detail::chunk_city_meshes(in, keep);
}

}  // namespace cityforge::exporter::fixture
