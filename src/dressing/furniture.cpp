// SPDX-License-Identifier: Apache-2.0
// Street furniture (seeds/004): hydrants, bins, benches and bus stops along the sidewalks; signal
// poles and heads at signalised junctions, stop and yield signs at the others.
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "cityforge/core/polyline.hpp"
#include "dressing/detail.hpp"
#include "dressing/detail/exclusions.hpp"

namespace cityforge::dressing::detail {
namespace {

constexpr double kNearCurbM = 0.5;        // Hydrants, bins and signs stand this far from the curb.
constexpr double kBenchBackM = 0.55;      // Benches: this far from the block edge.
constexpr double kEntranceMarginM = 1.0;  // Benches keep this far (along the curb) from doors.
constexpr double kBenchHalfM = 0.8;
// Roads defaults: the crosswalk band spans [0, 3] m from the section end, the stop line 1 m
// beyond it. Poles and signs start their search there and step away until clear.
constexpr double kSignStartM = 3.8;
constexpr double kPoleStartM = 4.5;
constexpr double kSearchStepM = 0.5;
constexpr double kSearchMaxM = 12.0;

struct Props {
  std::int32_t hydrant = find_prop("hydrant");
  std::int32_t bin = find_prop("bin");
  std::int32_t bench = find_prop("bench");
  std::int32_t bus_stop = find_prop("bus_stop");
  std::int32_t pole = find_prop("signal_pole");
  std::int32_t head = find_prop("signal_head");
  std::int32_t stop = find_prop("stop_sign");
  std::int32_t yield = find_prop("yield_sign");
};

const PropDef& def(std::int32_t prop) { return prop_catalog()[static_cast<std::size_t>(prop)]; }

Item make_item(std::int32_t prop, Vec2 p, double z, Vec2 facing, std::uint32_t owner) {
  Item item;
  item.prop = static_cast<std::uint32_t>(prop);
  item.position = {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(z)};
  item.yaw_rad = static_cast<float>(std::atan2(facing.y, facing.x));
  item.owner = owner;
  return item;
}

// Bus stops: sections are mostly shorter than the spacing, so each section starts the pattern
// at a seeded phase (one stop per spacing on average), snapped midway between two lights.
std::vector<double> bus_stations(double length_m, double light_spacing_m, double spacing_m,
                                 Seed seed, std::uint32_t edge) {
  std::vector<double> out;
  if (spacing_m <= 0.0 || light_spacing_m <= 0.0) return out;
  Rng rng{seed, Stage::dressing, edge, 5};
  for (double target = rng.uniform(0.0, spacing_m); target < length_m; target += spacing_m) {
    const double k = std::max(0.0, std::floor(target / light_spacing_m));
    const double s = light_spacing_m * (k + 1.0);
    if (s < length_m && (out.empty() || out.back() < s)) out.push_back(s);
  }
  return out;
}

void along_sidewalks(const Inputs& in, const Config& config, Seed seed, const Areas& areas,
                     const Props& pr, std::size_t i, std::vector<Item>& out) {
  const roads::Section& sec = in.roads.sections[i];
  const layout::RoadEdge& edge = in.city.network.edges[sec.edge];
  const double sw = edge.sidewalk_width_m;
  if (sw <= 0.0 || sec.centre.size() < 2) return;
  const double length = polyline_length(sec.centre);
  const double half = edge.width_m * 0.5;
  const double ls = config.light_spacing_m[static_cast<int>(edge.road_class)];
  const bool bus_route = edge.road_class != layout::RoadClass::local;
  struct Kind {
    std::int32_t prop;
    std::vector<double> stations;
    double lateral;
    bool face_road;
  };
  // In priority order; each station a fixed offset from the lights so kinds rarely meet.
  const std::vector<Kind> kinds{
      {pr.hydrant, hydrant_stations(length, config, edge.road_class), kNearCurbM, true},
      {pr.bus_stop,
       bus_route ? bus_stations(length, ls, config.bus_stop_spacing_m, seed, sec.edge)
                 : std::vector<double>{},
       sw * 0.5, true},
      {pr.bench, snapped_stations(length, ls, config.bench_spacing_m, ls * 0.5),
       std::max(sw * 0.5, sw - kBenchBackM), true},
      {pr.bin, snapped_stations(length, ls, config.bin_spacing_m, -2.0), kNearCurbM, true},
  };
  for (const Kind& k : kinds) {
    if (k.prop < 0) continue;
    const double radius = def(k.prop).radius_m;
    for (int side : {1, -1}) {
      for (double s : k.stations) {
        const CurbFrame f = curb_frame(sec.centre, side, half, s, k.lateral);
        if (areas.hits(f.p, radius, kAreaForbidden) || !areas.inside(f.p, kAreaSidewalk)) continue;
        // Benches (and shelters) never in front of a door, from the curb to the facade.
        if ((k.prop == pr.bench || k.prop == pr.bus_stop) &&
            areas.entrance_in_front(f.p, f.tangent, -f.to_road,
                                    k.prop == pr.bench ? kBenchHalfM : radius, kEntranceMarginM,
                                    k.lateral + 0.5, sw + 3.0))
          continue;
        out.push_back(make_item(k.prop, f.p, sidewalk_z(in, f.p), f.to_road, sec.edge));
      }
    }
  }
}

// The first station from the junction end of a leg's section, at `lateral` beyond the curb on
// the approach side, whose disc is clear; false when none within kSearchMaxM.
bool corner_spot(const Inputs& in, const Areas& areas, const roads::Leg& leg, double start_m,
                 double lateral, double radius, CurbFrame* f, Vec2* toward_traffic) {
  const roads::Section& sec = in.roads.sections[leg.edge];
  const layout::RoadEdge& edge = in.city.network.edges[leg.edge];
  if (edge.sidewalk_width_m <= 0.0 || sec.centre.size() < 2) return false;
  const double length = polyline_length(sec.centre);
  // Right-hand traffic approaching the junction drives on the right of its travel direction:
  // at the edge's start it travels against the centre line (left side, +1), at its end with it.
  const int side = leg.at_edge_start ? 1 : -1;
  for (double d = start_m; d <= kSearchMaxM && d < length * 0.5; d += kSearchStepM) {
    const double s = leg.at_edge_start ? d : length - d;
    *f = curb_frame(sec.centre, side, edge.width_m * 0.5, s, lateral);
    if (areas.hits(f->p, radius, kAreaForbidden) || !areas.inside(f->p, kAreaSidewalk)) continue;
    *toward_traffic = leg.at_edge_start ? f->tangent : -f->tangent;
    return true;
  }
  return false;
}

void junction_signs(const Inputs& in, const Areas& areas, const Props& pr,
                    const std::set<std::uint32_t>& planned, std::size_t j, std::vector<Item>& out) {
  const roads::Intersection& x = in.roads.intersections[j];
  const auto owner = static_cast<std::uint32_t>(j);
  const bool signal = x.control == roads::Control::signal && planned.count(owner) > 0;
  std::int32_t sign = -1;
  if (x.control == roads::Control::stop) sign = pr.stop;
  if (x.control == roads::Control::yield) sign = pr.yield;
  if (!signal && sign < 0) return;
  for (const roads::Leg& leg : x.legs) {
    CurbFrame f;
    Vec2 toward;
    if (signal) {
      if (pr.pole < 0 || pr.head < 0) return;
      const PropDef& pole = def(pr.pole);
      if (!corner_spot(in, areas, leg, kPoleStartM, kNearCurbM, pole.radius_m, &f, &toward))
        continue;
      // The arm (+x) reaches over the approach lanes; the head hangs at its end facing the
      // approaching traffic. One head per leg: the lane graph's movement groups are per leg.
      const double half = in.city.network.edges[leg.edge].width_m * 0.5;
      const double reach = std::min(pole.length_m - 0.3, half + kNearCurbM - 0.5);
      out.push_back(make_item(pr.pole, f.p, sidewalk_z(in, f.p), f.to_road, owner));
      const Vec2 hp = f.p + f.to_road * reach;
      const double hz = sidewalk_z(in, f.p) + pole.height_m - def(pr.head).height_m - 0.3;
      out.push_back(make_item(pr.head, hp, hz, toward, owner));
    } else {
      if (!corner_spot(in, areas, leg, kSignStartM, kNearCurbM, def(sign).radius_m, &f, &toward))
        continue;
      out.push_back(make_item(sign, f.p, sidewalk_z(in, f.p), toward, owner));
    }
  }
}

}  // namespace

void furniture(const Inputs& in, const Config& config, Seed seed, std::vector<Item>& out) {
  const Areas areas(in, config);
  const Props pr;
  std::set<std::uint32_t> planned;
  for (const roads::SignalPlan& plan : in.roads.lanes.signals)
    planned.insert(plan.intersection);
  const std::size_t ns = in.roads.sections.size();
  const std::size_t nj = in.roads.intersections.size();
  std::vector<std::vector<Item>> slots(ns + nj);
  tbb::parallel_for(std::size_t{0}, ns + nj, [&](std::size_t i) {
    if (i < ns) {
      // Imported places: only what is mapped, unless asked for more.
      if (in.mapped != nullptr && !in.mapped->procedural_furniture) return;
      along_sidewalks(in, config, seed, areas, pr, i, slots[i]);
    } else {
      junction_signs(in, areas, pr, planned, i - ns, slots[i]);
    }
  });
  for (const auto& slot : slots)
    out.insert(out.end(), slot.begin(), slot.end());
}

}  // namespace cityforge::dressing::detail
