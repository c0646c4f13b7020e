// SPDX-License-Identifier: Apache-2.0
// The building stage: every lot is an independent job (seeds/000, 29:14-29:29); results are
// concatenated in lot order and renumbered, so any thread count gives the same bytes.

#include <tbb/parallel_for.h>

#include <algorithm>
#include <optional>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings {

Result<Output> run(const lots::Output& lots, const StyleLibrary& library,
                   const std::vector<TagVolume>& tags, const terrain::Heightfield& ground,
                   const Config& config, Seed seed) {
  const bool has_ground = ground.nx >= 2 && ground.ny >= 2 &&
                          ground.heights.size() == std::size_t{ground.nx} * ground.ny;
  // 1. One job per lot, each writing its own slot.
  std::vector<std::optional<Result<Output>>> slots(lots.lots.size());
  tbb::parallel_for(std::size_t{0}, lots.lots.size(), [&](std::size_t i) {
    const lots::Lot& lot = lots.lots[i];
    std::vector<double> base(lot.parcels.size(), 0.0);
    if (has_ground) {
      for (std::size_t p = 0; p < lot.parcels.size(); ++p) {
        if (!lot.parcels[p].has_building) {
          continue;
        }
        const Polygon fp = lots::footprint_polygon(lot.parcels[p].dna);
        double lo = 1e300;
        for (const Vec2& v : fp.outer) {
          lo = std::min(lo, ground.sample(v));
        }
        base[p] = fp.outer.empty() ? ground.sample(lot.parcels[p].dna.centre) : lo;
      }
    }
    slots[i].emplace(detail::generate_lot_at(lot, library, tags, config, seed, base));
  });

  // 2. Concatenate in lot order, renumbering building ids and instance ranges.
  Output out;
  for (auto& slot : slots) {
    if (!slot->ok()) {
      return slot->error();
    }
    Output& part = slot->value();
    const auto building0 = static_cast<BuildingId>(out.buildings.size());
    const auto instance0 = static_cast<std::uint32_t>(out.instances.size());
    for (Building& b : part.buildings) {
      b.id += building0;
      b.first_instance += instance0;
      out.buildings.push_back(std::move(b));
    }
    for (Instance& in : part.instances) {
      in.building += building0;
      out.instances.push_back(in);
    }
    for (Entrance& e : part.entrances) {
      e.building += building0;
      out.entrances.push_back(e);
    }
    for (auto& r : part.roofs) {
      out.roofs.push_back(std::move(r));
    }
    for (FacadeSpan& s : part.spans) {
      s.building += building0;
      out.spans.push_back(std::move(s));
    }
    Stats& st = out.stats;
    const Stats& ps = part.stats;
    st.floors += ps.floors;
    st.modules_before_occlusion += ps.modules_before_occlusion;
    st.modules_occluded += ps.modules_occluded;
    for (std::size_t t = 0; t < kModuleTagCount; ++t) {
      st.modules_by_tag[t] += ps.modules_by_tag[t];
    }
    for (std::size_t s = 0; s < lots::kFootprintShapeCount; ++s) {
      st.buildings_by_shape[s] += ps.buildings_by_shape[s];
    }
    st.entrances += ps.entrances;
    st.rooms += ps.rooms;
    st.grammar_fallbacks += ps.grammar_fallbacks;
    st.roof_triangles += ps.roof_triangles;
  }
  out.stats.buildings = out.buildings.size();
  out.stats.instances = out.instances.size();
  return out;
}

}  // namespace cityforge::buildings
