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

namespace {

/// What generating one lot needs of it and its neighbours: base heights, plinth bottoms,
/// volumes and the solids its block neighbours see (step 1 of run()).
struct LotPrep {
  std::vector<double> base;
  std::vector<double> footing;  // Imported buildings on slopes: plinth bottom.
  std::vector<detail::NeighbourSolid> solids;
  std::vector<std::vector<Volume>> volumes;  // Per parcel.
  Aabb2 box;
};

/// A lot's building volumes in absolute coordinates, from the DNA alone (a pure function), so
/// each lot job can see its neighbours' walls without waiting for them.
LotPrep prepare_lot(const lots::Lot& lot, const terrain::Heightfield& ground, bool has_ground,
                    const StyleLibrary& library, double push_m) {
  LotPrep prep;
  prep.box = ring_bounds(lot.area.outer);
  prep.base.assign(lot.parcels.size(), 0.0);
  prep.footing.assign(lot.parcels.size(), std::numeric_limits<double>::quiet_NaN());
  prep.volumes.resize(lot.parcels.size());
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
      prep.base[p] = fp.outer.empty() ? ground.sample(dna.centre) : lo;
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
          for (int st = 0; st <= steps; ++st) {
            const double g = ground.sample(lerp(a, b, steps > 0 ? double(st) / steps : 0.0));
            lo = std::min(lo, g);
            hi = std::max(hi, g);
          }
        }
        prep.base[p] = corner;
        if (hi - lo > kRiseM || lo < corner - 0.05) {
          prep.footing[p] = lo;
        }
      }
    }
    prep.volumes[p] = building_volumes(dna);
    for (const Volume& v : prep.volumes[p]) {
      detail::NeighbourSolid solid;
      solid.bounds = ring_bounds(v.footprint.outer);
      solid.z0 = prep.base[p] + v.z0_m;
      solid.z1 = prep.base[p] + v.z1_m;
      if (dna.style < library.styles.size()) {
        solid.parapet_m = detail::parapet_hides_m(library.styles[dna.style], v, push_m);
      }
      solid.footprint = v.footprint;
      prep.solids.push_back(std::move(solid));
    }
  }
  return prep;
}

bool has_heights(const terrain::Heightfield& ground) {
  return ground.nx >= 2 && ground.ny >= 2 &&
         ground.heights.size() == std::size_t{ground.nx} * ground.ny;
}

/// Lot `i` generated among the lots of its block, which begins at lot `block_start`
/// (`prep[j - first]` holds lot j): the neighbours are the lots of its block whose boxes come
/// within a few centimetres of its own.
Result<Output> generate_among(const lots::Output& lots, std::size_t i, std::size_t block_start,
                              std::vector<LotPrep>& prep, std::size_t first,
                              const StyleLibrary& library, const std::vector<TagVolume>& tags,
                              const Config& config, Seed seed, const terrain::Heightfield* ground) {
  constexpr double kTouchM = 0.1;
  const lots::Lot& lot = lots.lots[i];
  std::vector<detail::NeighbourSolid> neighbours;
  Aabb2 reach = prep[i - first].box;
  reach.min = reach.min - Vec2{kTouchM, kTouchM};
  reach.max = reach.max + Vec2{kTouchM, kTouchM};
  for (std::size_t j = block_start;
       j < lots.lots.size() && j - first < prep.size() && lots.lots[j].block == lot.block; ++j) {
    if (j == i) {
      continue;
    }
    for (const detail::NeighbourSolid& sd : prep[j - first].solids) {
      if (sd.bounds.min.x <= reach.max.x && reach.min.x <= sd.bounds.max.x &&
          sd.bounds.min.y <= reach.max.y && reach.min.y <= sd.bounds.max.y) {
        neighbours.push_back(sd);
      }
    }
  }
  LotPrep& mine = prep[i - first];
  return detail::generate_lot_at(lot, library, tags, config, seed, mine.base, neighbours,
                                 &mine.volumes, &mine.footing, ground);
}

}  // namespace

namespace {

/// The lots of `lot`'s block (lots come sorted by block: a run around it), prepared.
struct BlockPrep {
  std::size_t first = 0;
  std::vector<LotPrep> prep;
  const terrain::Heightfield* ground = nullptr;  ///< Null: no terrain.
};

BlockPrep prepare_block(const lots::Output& lots, std::size_t lot,
                        const terrain::Heightfield& ground, const StyleLibrary& library,
                        double push_m) {
  const std::uint32_t block = lots.lots[lot].block;
  BlockPrep bp;
  bp.first = lot;
  while (bp.first > 0 && lots.lots[bp.first - 1].block == block) {
    --bp.first;
  }
  std::size_t last = lot + 1;
  while (last < lots.lots.size() && lots.lots[last].block == block) {
    ++last;
  }
  const bool ground_ok = has_heights(ground);
  bp.ground = ground_ok ? &ground : nullptr;
  bp.prep.reserve(last - bp.first);
  for (std::size_t j = bp.first; j < last; ++j) {
    bp.prep.push_back(prepare_lot(lots.lots[j], ground, ground_ok, library, push_m));
  }
  return bp;
}

Result<std::vector<Instance>> instances_in_block(const lots::Output& lots, std::size_t lot,
                                                 BlockPrep& bp, const StyleLibrary& library,
                                                 const std::vector<TagVolume>& tags,
                                                 const Config& config, Seed seed,
                                                 BuildingId first_building) {
  Result<Output> out = generate_among(lots, lot, bp.first, bp.prep, bp.first, library, tags, config,
                                      seed, bp.ground);
  if (!out) {
    return out.error();
  }
  std::vector<Instance> instances = std::move(out->instances);
  for (Instance& in : instances) {
    in.building += first_building;
  }
  return instances;
}

}  // namespace

Result<std::vector<Instance>> instances_of(const Output& out, const std::vector<std::uint32_t>& ids,
                                           const LotInputs* inputs) {
  std::vector<Instance> result;
  if (out.instances_kept) {
    for (const std::uint32_t b : ids) {
      const Building& bd = out.buildings.at(b);
      if (std::size_t{bd.first_instance} + bd.instance_count > out.instances.size()) {
        return Error::internal("buildings[" + std::to_string(b) + "]",
                               "its instances lie past the end of the list");
      }
      result.insert(result.end(), out.instances.begin() + bd.first_instance,
                    out.instances.begin() + bd.first_instance + bd.instance_count);
    }
    return result;
  }
  if (inputs == nullptr || inputs->lots == nullptr || inputs->library == nullptr ||
      inputs->tags == nullptr || inputs->ground == nullptr) {
    return Error::internal("buildings.instances",
                           "not kept (keep_instances false) and nothing to make them again from");
  }
  // One lot at a time: its buildings are a run of ids, all made by one generation; the lots of
  // one block share its preparation.
  BlockPrep bp;
  std::uint32_t prepared_block = 0;
  bool have_block = false;
  for (std::size_t k = 0; k < ids.size();) {
    const Building& bd = out.buildings.at(ids[k]);
    BuildingId first = bd.id;
    while (first > 0 && out.buildings[first - 1].lot == bd.lot) {
      --first;
    }
    if (bd.lot >= inputs->lots->lots.size()) {
      return Error::internal("buildings[" + std::to_string(bd.id) + "]",
                             "its lot is not among the lots given");
    }
    const std::uint32_t block = inputs->lots->lots[bd.lot].block;
    if (!have_block || block != prepared_block || bd.lot < bp.first ||
        bd.lot >= bp.first + bp.prep.size()) {
      bp = prepare_block(*inputs->lots, bd.lot, *inputs->ground, *inputs->library,
                         inputs->config.occlusion_push_m);
      prepared_block = block;
      have_block = true;
    }
    Result<std::vector<Instance>> made =
        instances_in_block(*inputs->lots, bd.lot, bp, *inputs->library, *inputs->tags,
                           inputs->config, inputs->seed, first);
    if (!made) {
      return made.error();
    }
    for (; k < ids.size() && out.buildings.at(ids[k]).lot == bd.lot; ++k) {
      const Building& want = out.buildings[ids[k]];
      std::size_t found = 0;
      for (const Instance& in : *made) {
        if (in.building == want.id) {
          result.push_back(in);
          ++found;
        }
      }
      if (found != want.instance_count) {
        return Error::internal("buildings[" + std::to_string(want.id) + "]",
                               "made again with " + std::to_string(found) + " instances, not " +
                                   std::to_string(want.instance_count));
      }
    }
  }
  return result;
}

Result<Output> run(const lots::Output& lots, const StyleLibrary& library,
                   const std::vector<TagVolume>& tags, const terrain::Heightfield& ground,
                   const Config& config, Seed seed) {
  const bool has_ground = has_heights(ground);
  // 1. Every lot's building volumes in absolute coordinates (prepare_lot).
  const std::size_t n = lots.lots.size();
  std::vector<LotPrep> prep(n);
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
    prep[i] = prepare_lot(lots.lots[i], ground, has_ground, library, config.occlusion_push_m);
  });

  // Lots come sorted by block.
  std::vector<std::size_t> block_first(n, 0);
  for (std::size_t i = 1; i < n; ++i) {
    block_first[i] = lots.lots[i].block == lots.lots[i - 1].block ? block_first[i - 1] : i;
  }

  // 2. One job per lot, each writing its own slot.
  std::vector<std::optional<Result<Output>>> slots(n);
  tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
    slots[i].emplace(generate_among(lots, i, block_first[i], prep, 0, library, tags, config, seed,
                                    has_ground ? &ground : nullptr));
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
    if (config.keep_instances) {
      out.instances.reserve(instances);
    }
    out.entrances.reserve(entrances);
    out.roofs.reserve(buildings);
    out.spans.reserve(spans);
  }
  std::size_t instance_count = 0;
  std::vector<bool> used;  // Per module number, without keep_instances.
  for (auto& slot : slots) {
    Output& part = slot->value();
    const auto building0 = static_cast<BuildingId>(out.buildings.size());
    const auto instance0 = static_cast<std::uint32_t>(instance_count);
    instance_count += part.instances.size();
    for (Building& b : part.buildings) {
      b.id += building0;
      b.first_instance += instance0;
      out.buildings.push_back(std::move(b));
    }
    for (Instance& in : part.instances) {
      if (!config.keep_instances) {
        if (in.module >= used.size()) {
          used.resize(in.module + 1, false);
        }
        used[in.module] = true;
        continue;
      }
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
  out.stats.instances = instance_count;
  out.instances_kept = config.keep_instances;
  for (std::uint32_t m = 0; m < used.size(); ++m) {
    if (used[m]) {
      out.modules_used.push_back(m);
    }
  }
  return out;
}

}  // namespace cityforge::buildings
