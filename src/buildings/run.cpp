// SPDX-License-Identifier: Apache-2.0
// The building stage: every lot is an independent job (seeds/000, 29:14-29:29); results are
// concatenated in lot order and renumbered, so any thread count gives the same bytes.

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "buildings/detail/gen_internal.hpp"

namespace cityforge::buildings {

Result<Output> run(const lots::Output& lots, const StyleLibrary& library,
                   const std::vector<TagVolume>& tags, const terrain::Heightfield& ground,
                   const Config& config, Seed seed) {
  const bool has_ground = ground.nx >= 2 && ground.ny >= 2 &&
                          ground.heights.size() == std::size_t{ground.nx} * ground.ny;
  // 1. Every lot's building volumes in absolute coordinates, from the DNA alone (a pure
  //    function), so each lot job can see its neighbours' walls without waiting for them.
  const std::size_t n = lots.lots.size();
  std::vector<std::vector<double>> base(n);
  std::vector<std::vector<double>> footing(n);  // Imported buildings on slopes: plinth bottom.
  std::vector<std::vector<detail::NeighbourSolid>> solids(n);
  std::vector<std::vector<std::vector<Volume>>> volumes(n);  // Per lot, per parcel.
  std::vector<Aabb2> lot_box(n);
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
    const lots::Lot& lot = lots.lots[i];
    lot_box[i] = ring_bounds(lot.area.outer);
    base[i].assign(lot.parcels.size(), 0.0);
    footing[i].assign(lot.parcels.size(), std::numeric_limits<double>::quiet_NaN());
    volumes[i].resize(lot.parcels.size());
    for (std::size_t p = 0; p < lot.parcels.size(); ++p) {
      if (!lot.parcels[p].has_building) {
        continue;
      }
      const lots::BuildingDNA& dna = lot.parcels[p].dna;
      if (has_ground) {
        const Polygon fp = lots::footprint_polygon(dna);
        double lo = 1e300;
        for (const Vec2& v : fp.outer) {
          lo = std::min(lo, ground.sample(v));
        }
        base[i][p] = fp.outer.empty() ? ground.sample(dna.centre) : lo;
        if (!dna.imported.empty() && !fp.outer.empty()) {
          // Mapped buildings stand on the ground at their lowest corner; where the ground under
          // their walls (sampled every metre) dips below that or rises more than kRiseM, a
          // plinth reaches down to the lowest of it, so no wall floats.
          constexpr double kRiseM = 0.3;
          const double corner = lo;
          double hi = -1e300;
          for (std::size_t k = 0; k < fp.outer.size(); ++k) {
            const Vec2 a = fp.outer[k];
            const Vec2 b = fp.outer[(k + 1) % fp.outer.size()];
            const auto steps = static_cast<int>(std::min(200.0, std::ceil(distance(a, b))));
            for (int s = 0; s <= steps; ++s) {
              const double g = ground.sample(lerp(a, b, steps > 0 ? double(s) / steps : 0.0));
              lo = std::min(lo, g);
              hi = std::max(hi, g);
            }
          }
          base[i][p] = corner;
          if (hi - lo > kRiseM || lo < corner - 0.05) {
            footing[i][p] = lo;
          }
        }
      }
      volumes[i][p] = building_volumes(dna);
      for (const Volume& v : volumes[i][p]) {
        detail::NeighbourSolid s;
        s.bounds = ring_bounds(v.footprint.outer);
        s.z0 = base[i][p] + v.z0_m;
        s.z1 = base[i][p] + v.z1_m;
        s.footprint = v.footprint;
        solids[i].push_back(std::move(s));
      }
    }
  });
  // Lots come sorted by block: the neighbours of a lot are the lots of its block whose boxes
  // come within a few centimetres of its own.
  std::vector<std::size_t> block_first(n, 0);
  for (std::size_t i = 1; i < n; ++i) {
    block_first[i] = lots.lots[i].block == lots.lots[i - 1].block ? block_first[i - 1] : i;
  }
  constexpr double kTouchM = 0.1;

  // 2. One job per lot, each writing its own slot.
  std::vector<std::optional<Result<Output>>> slots(n);
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
    const lots::Lot& lot = lots.lots[i];
    std::vector<detail::NeighbourSolid> neighbours;
    Aabb2 reach = lot_box[i];
    reach.min = reach.min - Vec2{kTouchM, kTouchM};
    reach.max = reach.max + Vec2{kTouchM, kTouchM};
    for (std::size_t j = block_first[i]; j < n && lots.lots[j].block == lot.block; ++j) {
      if (j == i) {
        continue;
      }
      for (const detail::NeighbourSolid& s : solids[j]) {
        if (s.bounds.min.x <= reach.max.x && reach.min.x <= s.bounds.max.x &&
            s.bounds.min.y <= reach.max.y && reach.min.y <= s.bounds.max.y) {
          neighbours.push_back(s);
        }
      }
    }
    slots[i].emplace(detail::generate_lot_at(lot, library, tags, config, seed, base[i], neighbours,
                                             &volumes[i], &footing[i]));
  });

  // 3. Concatenate in lot order, renumbering building ids and instance ranges. Sized first and
  //    each lot's part freed once copied: growing the vectors instead held up to three times
  //    the city's instances at once (the parts, the old and the new buffer; +400 MiB for the
  //    4x5 km example), which set the whole run's peak memory.
  Output out;
  {
    std::size_t buildings = 0, instances = 0, entrances = 0, spans = 0;
    for (const auto& slot : slots) {
      if (!slot->ok()) {
        return slot->error();
      }
      buildings += slot->value().buildings.size();
      instances += slot->value().instances.size();
      entrances += slot->value().entrances.size();
      spans += slot->value().spans.size();
    }
    out.buildings.reserve(buildings);
    out.instances.reserve(instances);
    out.entrances.reserve(entrances);
    out.roofs.reserve(buildings);
    out.spans.reserve(spans);
  }
  for (auto& slot : slots) {
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
    slot.reset();
  }
  out.stats.buildings = out.buildings.size();
  out.stats.instances = out.instances.size();
  return out;
}

}  // namespace cityforge::buildings
