// SPDX-License-Identifier: Apache-2.0
// One lot of buildings (seeds/000, 27:03-34:56): volumes, floors and facades per building,
// occlusion within the lot, entrances, rooms, signage, volume overrides and roofs.

#include <cmath>
#include <string>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings {
namespace detail {

Result<Output> generate_lot_at(const lots::Lot& lot, const StyleLibrary& library,
                               const std::vector<TagVolume>& tags, const Config& config, Seed seed,
                               const std::vector<double>& base_z,
                               const std::vector<NeighbourSolid>& neighbours,
                               std::vector<std::vector<Volume>>* volumes,
                               const std::vector<double>* footing,
                               const terrain::Heightfield* ground) {
  Output out;
  std::vector<BuildingWork> works;
  // 1. Volumes per building.
  for (std::size_t pi = 0; pi < lot.parcels.size(); ++pi) {
    const lots::Parcel& parcel = lot.parcels[pi];
    if (!parcel.has_building) {
      continue;
    }
    const lots::BuildingDNA& dna = parcel.dna;
    if (dna.style >= library.styles.size() || dna.style >= library.first_module.size()) {
      return Error::invalid_input("lot " + std::to_string(lot.id) + " parcel " + std::to_string(pi),
                                  "style index < " + std::to_string(library.styles.size()) +
                                      " expected, got " + std::to_string(dna.style));
    }
    BuildingWork w;
    w.style = &library.styles[dna.style];
    w.local = static_cast<std::uint32_t>(works.size());
    w.base_z_m = pi < base_z.size() ? base_z[pi] : 0.0;
    w.imported = !dna.imported.empty();
    Building& b = w.building;
    b.id = w.local;
    b.lot = lot.id;
    b.parcel = static_cast<std::uint32_t>(pi);
    b.style = dna.style;
    b.shape = dna.shape;
    b.base_z_m = w.base_z_m;
    b.volumes = volumes != nullptr && pi < volumes->size() ? std::move((*volumes)[pi])
                                                           : building_volumes(dna);
    if (b.volumes.empty()) {
      continue;
    }
    b.height_m = b.volumes.back().z1_m;
    for (const Volume& v : b.volumes) {
      b.height_m = std::max(b.height_m, v.z1_m);
    }
    works.push_back(std::move(w));
  }
  // Facades, fitted between the ends of other buildings' walls lying against them.
  const std::vector<LotSolid> solids = lot_solids(works, neighbours, config.occlusion_push_m);
  for (std::size_t k = 0; k < works.size(); ++k) {
    BuildingWork& w = works[k];
    const PartyWalls walls{&solids, static_cast<std::uint32_t>(k), w.imported,
                           config.occlusion_push_m};
    place_facades(w, &walls);
    w.building.floors = static_cast<std::uint32_t>(w.floors.size());
  }

  // 2. Occlusion of touching walls within the lot and against the adjacent lots' buildings.
  for (const BuildingWork& w : works) {
    out.stats.modules_before_occlusion += w.placed.size();
  }
  out.stats.modules_occluded = occlude_lot(works, config.occlusion_push_m, solids, ground);

  // 3. Entrances, rooms, signage and overrides; then instances and roofs.
  for (BuildingWork& w : works) {
    const std::uint32_t first_module = library.first_module[w.building.style];
    const Style& style = *w.style;
    place_entrances(w, lot.parcels[w.building.parcel], config);
    w.building.rooms = assign_rooms(w, seed, lot.id);
    place_signage(w, tags, lot.id, first_module);
    place_fire_escapes(w, tags, first_module);

    Building& b = w.building;
    b.first_instance = static_cast<std::uint32_t>(out.instances.size());
    for (const Placed& p : w.placed) {
      if (p.removed) {
        continue;
      }
      const Facade& f = w.facades[p.facade];
      const ModuleDef& def = style.modules[p.module];
      const Vec2 pivot = f.a + f.dir * p.t1;
      Instance in;
      in.module = first_module + p.module;
      in.position = {static_cast<float>(pivot.x), static_cast<float>(pivot.y),
                     static_cast<float>(w.base_z_m + f.z0_m)};
      in.yaw_rad = static_cast<float>(facade_yaw(f.dir));
      in.scale_x = static_cast<float>((p.t1 - p.t0) / def.width_m);
      in.scale_z = static_cast<float>((f.z1_m - f.z0_m) / mesh_height(style, def));
      in.building = b.id;
      in.lot = lot.id;
      in.floor = static_cast<std::uint16_t>(w.floors[f.floor].index);
      in.room = p.room;
      in.tags = def.tags;
      out.instances.push_back(in);
    }
    for (Instance in : w.props) {
      in.position[2] += static_cast<float>(w.base_z_m);
      in.building = b.id;
      in.lot = lot.id;
      out.instances.push_back(in);
    }
    b.instance_count = static_cast<std::uint32_t>(out.instances.size()) - b.first_instance;
    for (Entrance e : w.entrances) {
      e.position[2] += static_cast<float>(w.base_z_m);
      e.exclusion_centre[2] += static_cast<float>(w.base_z_m);
      out.entrances.push_back(e);
    }
    std::array<Mesh, kMaterialCount> roof =
        build_roofs(b.volumes, style, &out.stats.roof_triangles);
    for (Mesh& m : roof) {
      for (auto& p : m.positions) {
        p[2] += static_cast<float>(w.base_z_m);
      }
    }
    // Sloped ground: a plinth from below the lowest ground under the walls to a visible base.
    if (footing != nullptr && b.parcel < footing->size() && !std::isnan((*footing)[b.parcel])) {
      constexpr double kPlinthTopM = 0.6;
      constexpr double kPlinthSinkM = 0.3;
      const std::size_t before = roof[static_cast<std::size_t>(Material::trim)].triangle_count();
      build_plinth(lots::footprint_polygon(lot.parcels[b.parcel].dna),
                   (*footing)[b.parcel] - kPlinthSinkM, w.base_z_m + kPlinthTopM,
                   roof[static_cast<std::size_t>(Material::trim)]);
      out.stats.roof_triangles +=
          roof[static_cast<std::size_t>(Material::trim)].triangle_count() - before;
    }
    out.roofs.push_back(std::move(roof));
    if (config.keep_facade_spans) {
      for (const Facade& f : w.facades) {
        FacadeSpan s;
        s.building = b.id;
        s.volume = f.volume;
        s.floor = w.floors[f.floor].index;
        s.ring = f.ring;
        s.edge = f.edge;
        s.length_m = f.length_m;
        s.grammar = f.grammar;
        s.fits = f.fits;
        s.z0_m = w.base_z_m + f.z0_m;
        s.z1_m = w.base_z_m + f.z1_m;
        for (std::uint32_t k = f.first; k < f.first + f.count; ++k) {
          s.spans.push_back({w.placed[k].t0, w.placed[k].t1});
          s.removed.push_back(w.placed[k].removed ? 1 : 0);
        }
        out.spans.push_back(std::move(s));
      }
    }
    // Stats.
    out.stats.floors += b.floors;
    out.stats.entrances += w.entrances.size();
    out.stats.rooms += b.rooms;
    out.stats.grammar_fallbacks += w.fallbacks;
    ++out.stats.buildings_by_shape[static_cast<std::size_t>(b.shape)];
    out.buildings.push_back(std::move(b));
  }
  out.stats.buildings = out.buildings.size();
  out.stats.instances = out.instances.size();
  for (const Instance& in : out.instances) {
    for (std::size_t t = 0; t < kModuleTagCount; ++t) {
      if ((in.tags & (1U << t)) != 0U) {
        ++out.stats.modules_by_tag[t];
      }
    }
  }
  return out;
}

}  // namespace detail

Result<Output> generate_lot(const lots::Lot& lot, const StyleLibrary& library,
                            const std::vector<TagVolume>& tags, const Config& config, Seed seed) {
  return detail::generate_lot_at(lot, library, tags, config, seed, {}, {});
}

}  // namespace cityforge::buildings
