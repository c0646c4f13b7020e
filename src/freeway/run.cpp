// SPDX-License-Identifier: Apache-2.0
// The freeway stage: centre lines and their checks, then the deck meshes, pillars and
// footprints per freeway in parallel (slot i per freeway, merged in order), then lanes and
// ramps in freeway order so lane ids are stable, then the ramps' meshes, pillars and
// footprints in parallel (slot i per ramp, appended after the decks' in ramp order).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <utility>

#include "freeway/detail.hpp"

namespace cityforge::freeway {
namespace {

Status check_config(const Config& c) {
  const std::pair<const char*, double> positive[] = {
      {"lane_width_m", c.lane_width_m},
      {"deck_thickness_m", c.deck_thickness_m},
      {"barrier_height_m", c.barrier_height_m},
      {"barrier_width_m", c.barrier_width_m},
      {"pillar_spacing_m", c.pillar_spacing_m},
      {"sample_spacing_m", c.sample_spacing_m},
      {"min_ramp_length_m", c.min_ramp_length_m},
      {"max_ramp_grade", c.max_ramp_grade},
      {"chunk_m", c.chunk_m},
      {"ramp_thickness_m", c.ramp_thickness_m},
      {"ramp_interval_min_m", c.ramp_interval_min_m}};
  for (const auto& [name, v] : positive) {
    if (!(v > 0.0)) {
      return Error::invalid_input(std::string("freeway.") + name,
                                  "expected a value > 0, got " + std::to_string(v));
    }
  }
  if (!(c.ramp_shoulder_m >= 0.0)) {
    return Error::invalid_input("freeway.ramp_shoulder_m",
                                "expected a value >= 0, got " + std::to_string(c.ramp_shoulder_m));
  }
  if (!(c.ramp_interval_max_m >= c.ramp_interval_min_m)) {
    return Error::invalid_input("freeway.ramp_interval_max_m", "must be >= ramp_interval_min_m");
  }
  return Ok{};
}

}  // namespace

Result<Output> run(const std::vector<FreewayCurve>& curves, const layout::Output& city,
                   const roads::Output& roads, const terrain::Heightfield& ground,
                   const Config& config, Seed seed) {
  if (Status s = check_config(config); !s) return s.error();
  // 1. Centre lines and checks, in input order so the first error is stable.
  std::vector<detail::CentreLine> centres;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    Result<detail::CentreLine> c = detail::build_centre_line(curves[i], i, ground, config);
    if (!c) return c.error();
    if (Status s = detail::check_clearance(curves[i], i, *c, city, ground, config); !s)
      return s.error();
    centres.push_back(std::move(*c));
  }
  if (Status s = detail::check_overlaps(curves, centres); !s) return s.error();
  // 2. Meshes, pillars and footprints per freeway.
  struct Built {
    std::vector<detail::Triangle> deck, barriers;
    std::vector<Pillar> pillars;
    std::vector<Polygon> footprint;
  };
  std::vector<Built> built(curves.size());
  tbb::parallel_for(std::size_t{0}, curves.size(), [&](std::size_t i) {
    detail::deck_triangles(centres[i], config, built[i].deck, built[i].barriers);
    detail::PillarRule rule;
    rule.thickness_m = config.deck_thickness_m;
    built[i].pillars = detail::place_pillars(static_cast<std::uint32_t>(i), centres[i].line, rule,
                                             city, ground, config);
    built[i].footprint = polyline_buffer(centres[i].line.xy, centres[i].half_width_m);
  });
  Output out;
  std::vector<detail::Triangle> deck, barriers;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    Deck d;
    d.name = curves[i].name;
    for (std::size_t k = 0; k < centres[i].line.xy.size(); ++k)
      d.centre.push_back({centres[i].line.xy[k].x, centres[i].line.xy[k].y, centres[i].line.z[k]});
    d.width_m = 2.0 * centres[i].half_width_m;
    d.length_m = centres[i].line.length_m;
    out.decks.push_back(std::move(d));
    deck.insert(deck.end(), built[i].deck.begin(), built[i].deck.end());
    barriers.insert(barriers.end(), built[i].barriers.begin(), built[i].barriers.end());
    out.pillars.insert(out.pillars.end(), built[i].pillars.begin(), built[i].pillars.end());
    out.footprints.insert(out.footprints.end(), built[i].footprint.begin(),
                          built[i].footprint.end());
  }
  // 3. Ramps and lanes, ids after the roads graph's lanes.
  out.first_lane_id = static_cast<roads::LaneId>(roads.lanes.lanes.size());
  for (std::size_t i = 0; i < curves.size(); ++i) {
    Result<std::vector<detail::RampPlan>> plans =
        detail::plan_ramps(curves[i], i, centres[i], city, roads, config, seed, out.warnings);
    if (!plans) return plans.error();
    detail::build_lanes(static_cast<std::uint32_t>(i), curves[i], centres[i], *plans, config, out);
  }
  for (roads::Lane& l : out.lanes) {
    std::sort(l.successors.begin(), l.successors.end());
    std::sort(l.predecessors.begin(), l.predecessors.end());
  }
  // 4. Ramp meshes, pillars and footprints per ramp, after the decks'; then the chunks.
  std::vector<detail::RampGeometry> ramps(out.ramps.size());
  tbb::parallel_for(std::size_t{0}, out.ramps.size(), [&](std::size_t i) {
    const Ramp& r = out.ramps[i];
    ramps[i] = detail::ramp_geometry(r, out.lanes[r.lane - out.first_lane_id], centres[r.freeway],
                                     city, ground, config);
  });
  for (detail::RampGeometry& g : ramps) {
    deck.insert(deck.end(), g.deck.begin(), g.deck.end());
    barriers.insert(barriers.end(), g.barriers.begin(), g.barriers.end());
    out.pillars.insert(out.pillars.end(), g.pillars.begin(), g.pillars.end());
    out.footprints.insert(out.footprints.end(), g.footprint.begin(), g.footprint.end());
  }
  out.deck_chunks = detail::chunk_triangles(deck, config.chunk_m);
  out.barrier_chunks = detail::chunk_triangles(barriers, config.chunk_m);
  out.pillar_meshes.reserve(out.pillars.size());
  for (const Pillar& p : out.pillars)
    out.pillar_meshes.push_back(pillar_mesh(p));
  return out;
}

}  // namespace cityforge::freeway
