// SPDX-License-Identifier: Apache-2.0
// `cityforge simulate OUT_DIR`: the traffic and crowd of a generated city, headless. Reads the
// city's folder (city_sim.cpp), runs the fixed tick for --seconds, writes a .cfrec recording and
// sim_stats.json (docs/traffic.md).
#include "cityforge/server/simulate.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>

#include "cityforge/core/format.hpp"
#include "cityforge/core/ranks.hpp"
#include "cityforge/crowd/crowd.hpp"
#include "cityforge/export/export.hpp"
#include "cityforge/pipeline/stage_graph.hpp"
#include "cityforge/server/city_sim.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/recording.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace fs = std::filesystem;

namespace cityforge::server {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// The viewer: fixed, or a path of timed key points (linear between them, held at the ends).
struct ViewerKey {
  double t = 0;
  crowd::Viewer v;
};

Result<std::vector<ViewerKey>> parse_viewer(const std::string& spec) {
  std::vector<ViewerKey> keys;
  if (spec.empty()) return std::vector<ViewerKey>{ViewerKey{}};
  const auto parse_numbers = [](const std::string& text, char sep, std::vector<double>& out) {
    out.clear();
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, sep)) {
      if (sep == ' ' && item.empty()) continue;
      char* end = nullptr;
      const double v = std::strtod(item.c_str(), &end);
      if (end == item.c_str() || *end != '\0' || !std::isfinite(v)) return false;
      out.push_back(v);
    }
    return true;
  };
  std::vector<double> n;
  const auto key = [](double t, const std::vector<double>& v, std::size_t at) {
    ViewerKey k;
    k.t = t;
    k.v.position = Vec3{v[at], v[at + 1], v[at + 2]};
    k.v.yaw_rad = v[at + 3] * std::numbers::pi / 180.0;
    return k;
  };
  if (!fs::exists(spec)) {
    if (!parse_numbers(spec, ',', n) || n.size() != 4) {
      return Error::invalid_input("--viewer " + spec,
                                  "expected x,y,z,yaw_deg (four numbers) or an existing file of "
                                  "\"t x y z yaw_deg\" lines");
    }
    keys.push_back(key(0, n, 0));
    return keys;
  }
  std::ifstream f(spec);
  std::string line;
  for (int no = 1; std::getline(f, line); ++no) {
    std::replace(line.begin(), line.end(), '\t', ' ');
    if (line.find_first_not_of(' ') == std::string::npos ||
        line[line.find_first_not_of(' ')] == '#')
      continue;
    if (!parse_numbers(line, ' ', n) || n.size() != 5) {
      return Error::invalid_input(spec + ":" + std::to_string(no),
                                  "expected \"t x y z yaw_deg\" (five numbers)");
    }
    if (!keys.empty() && n[0] <= keys.back().t) {
      return Error::invalid_input(spec + ":" + std::to_string(no),
                                  "times must increase from line to line");
    }
    keys.push_back(key(n[0], n, 1));
  }
  if (keys.empty()) return Error::invalid_input(spec, "no viewer key points in the file");
  return keys;
}

crowd::Viewer viewer_at(const std::vector<ViewerKey>& keys, double t) {
  if (t <= keys.front().t) return keys.front().v;
  if (t >= keys.back().t) return keys.back().v;
  const auto it = std::upper_bound(keys.begin(), keys.end(), t,
                                   [](double x, const ViewerKey& k) { return x < k.t; });
  const ViewerKey& b = *it;
  const ViewerKey& a = *(it - 1);
  const double u = (t - a.t) / (b.t - a.t);
  crowd::Viewer v;
  v.position = a.v.position + (b.v.position - a.v.position) * u;
  double dy = std::remainder(b.v.yaw_rad - a.v.yaw_rad, 2 * std::numbers::pi);
  v.yaw_rad = a.v.yaw_rad + dy * u;
  return v;
}

Result<crowd::Event> parse_event(const std::string& spec, const crowd::Config& c) {
  const auto bad = [&]() {
    return Error::invalid_input("--event " + spec,
                                "expected flee@x,y,t[,radius_m[,duration_s]] with numbers, "
                                "t >= 0, radius and duration > 0");
  };
  if (spec.rfind("flee@", 0) != 0) return bad();
  std::vector<double> n;
  std::stringstream ss(spec.substr(5));
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0' || !std::isfinite(v)) return bad();
    n.push_back(v);
  }
  if (n.size() < 3 || n.size() > 5 || n[2] < 0) return bad();
  crowd::Event e;
  e.position = Vec2{n[0], n[1]};
  e.time_s = n[2];
  e.radius_m = n.size() > 3 ? static_cast<float>(n[3]) : c.flee_radius_m;
  e.duration_s = n.size() > 4 ? static_cast<float>(n[4]) : c.flee_duration_s;
  if (!(e.radius_m > 0) || !(e.duration_s > 0)) return bad();
  return e;
}

std::string hex(std::uint64_t h) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, h);
  return buf;
}

}  // namespace

Result<SimulateReport> run_simulation(const SimulateOptions& opt) {
  const auto t_start = Clock::now();
  const int threads = opt.threads;
  // 0. Options that need no city: the viewer and the events.
  Result<std::vector<ViewerKey>> viewer = parse_viewer(opt.viewer);
  if (!viewer) return viewer.error();
  CitySimOptions copt;
  copt.dir = opt.dir;
  copt.dt_s = opt.dt_s;
  copt.vehicles = opt.vehicles;
  copt.trip_share = opt.trip_share;
  copt.trip_reach_m = opt.trip_reach_m;
  copt.parked_share = opt.parked_share;
  copt.record_hz = opt.record_hz;
  copt.seed = opt.seed;
  copt.pedestrians = opt.pedestrians;
  copt.lod = opt.lod;
  copt.route_trips_later = true;  // share() below deals the initial trips' routing to the ranks.
  copt.off_step_s = opt.off_step_s;
  const crowd::Config ccfg = crowd_config(copt);
  std::vector<crowd::Event> events;
  for (const std::string& e : opt.events) {
    Result<crowd::Event> ev = parse_event(e, ccfg);
    if (!ev) return ev.error();
    events.push_back(*ev);
  }
  // 1. The city, its traffic and its crowd (city_sim.cpp).
  Result<CitySim> city = build_city_sim(copt);
  if (!city) return city.error();
  const traffic::Config& cfg = city->traffic_config;
  traffic::Simulation& sim = *city->traffic;
  // Over MPI ranks: the lane graph cut by METIS, one part per rank, and the driving shared.
  const Ranks& ranks = opt.ranks != nullptr ? *opt.ranks : single_rank();
  const bool lead = ranks.rank() == 0;
  double partition_s = 0;
  traffic::Partition partition;
  {
    const auto t0 = Clock::now();
    Result<traffic::Partition> shared = share_city_sim(*city, ranks, opt.seed);
    if (!shared) return shared.error();
    partition = std::move(*shared);
    partition_s = seconds_since(t0);
  }
  if (opt.warning && lead) {
    for (const std::string& w : sim.stats().warnings)
      opt.warning(w);
  }
  // 2. The crowd's viewer and events, and the vehicles' levels of detail.
  crowd::Crowd* people = city->crowd.get();
  if (people) {
    people->set_viewer(viewer_at(*viewer, 0));
    for (const crowd::Event& e : events)
      people->add_event(e);
  }
  VehicleLod vehicle_lod(opt.lod);
  double next_vlod_s = 0;
  // Levels from the positions within the farthest level's reach (the others are off whatever
  // their place; over ranks only the near ones are exchanged).
  const auto update_vehicle_lod = [&]() {
    vehicle_lod.update(sim, viewer_at(*viewer, sim.time_s()));
  };
  double crowd_s = 0;
  const double setup_s = seconds_since(t_start);

  // 3. The recording.
  const std::string rec_path =
      opt.out.empty() ? (fs::path(opt.dir) / "traffic.cfrec").string() : opt.out;
  std::optional<traffic::RecordingWriter> writer;
  traffic::RecordingInfo info = sim.recording_info(opt.seed);
  Status opened = Ok{};
  if (opt.record && lead) {
    Result<traffic::RecordingWriter> w = traffic::RecordingWriter::open(rec_path, info);
    if (w) {
      writer.emplace(std::move(*w));
    } else {
      opened = w.error();
    }
  }
  // Only rank 0 writes: its failure stops every rank (the others would wait for it).
  if (Status st = agree(ranks, opened); !st) return st.error();
  const auto every = static_cast<std::uint64_t>(
      std::max(1.0, std::round(info.frame_interval_s / static_cast<double>(cfg.dt_s))));
  std::vector<traffic::LightState> lights;
  std::vector<traffic::WalkState> walks;
  const auto record = [&]() -> Status {
    sim.lights(info.signal_lanes, lights);
    sim.walks(info.crosswalk_lanes, walks);
    std::vector<traffic::VehicleSample> samples = sim.samples(false);
    for (traffic::VehicleSample& v : samples) {
      v.lod = vehicle_lod.level(v.id);
    }
    if (people) {
      const std::vector<traffic::VehicleSample> peds = people->samples();
      samples.insert(samples.end(), peds.begin(), peds.end());
    }
    return writer->write_frame(sim.stats().ticks, sim.time_s(), samples, lights, walks);
  };

  // 4. Tick.
  const auto ticks = static_cast<std::uint64_t>(std::llround(opt.seconds / opt.dt_s));
  double tick_s = 0;
  double record_s = 0;
  traffic::Audit worst;
  std::uint64_t audit_overlaps = 0;
  std::uint64_t audit_conflicts = 0;
  auto last_print = Clock::now();
  update_vehicle_lod();
  const auto recorded = [&](const Status& st) {
    // The other ranks wait in the next exchange: a failure here stops them all, saying why.
    if (!st && ranks.size() > 1) {
      std::fprintf(stderr, "error: rank 0: %s\n", st.error().to_string().c_str());
      ranks.abort(st.error().code == ErrorCode::invalid_input ? 2 : 1);
    }
    return st;
  };
  if (opt.record) sim.gather_state();  // Over ranks: the plans each rank made at set-up.
  if (writer) {
    if (Status s = recorded(record()); !s) return s.error();
  }
  // CPU seconds of the ticks (traffic, crowd, levels of detail; recording aside), and of those
  // the ones inside the collectives: a rank's own work is the difference (per_rank `cpu_s`).
  double tick_cpu_s = 0;
  double tick_collective_cpu_s = 0;
  const auto cpu_of = [&](auto&& run) {
    const double c0 = process_cpu_s();
    const double m0 = ranks.collective_time().cpu_s;
    run();
    tick_cpu_s += process_cpu_s() - c0;
    tick_collective_cpu_s += ranks.collective_time().cpu_s - m0;
  };
  for (std::uint64_t t = 0; t < ticks; ++t) {
    const auto t0 = Clock::now();
    cpu_of([&] { sim.tick(); });
    tick_s += seconds_since(t0);
    if (opt.after_tick) opt.after_tick(sim.stats().ticks);
    if (people) {
      const auto t1 = Clock::now();
      cpu_of([&] {
        people->set_viewer(viewer_at(*viewer, sim.time_s()));
        people->tick(&sim);
      });
      crowd_s += seconds_since(t1);
    }
    if (sim.time_s() + 1e-9 >= next_vlod_s) {
      const auto t1 = Clock::now();
      cpu_of([&] { update_vehicle_lod(); });
      next_vlod_s = sim.time_s() + 0.25;
      tick_s += seconds_since(t1);
    }
    if (opt.record && sim.stats().ticks % every == 0) {
      const auto t1 = Clock::now();
      sim.gather_state();            // Over ranks: every vehicle as it is, for rank 0 to record.
      if (people) people->gather();  // And every pedestrian.
      if (writer) {
        if (Status s = recorded(record()); !s) return s.error();
      }
      record_s += seconds_since(t1);
    }
    if (opt.audit) {
      if (!(opt.record && sim.stats().ticks % every == 0)) sim.gather_state();
      const traffic::Audit a = traffic::audit(sim);
      audit_overlaps += a.overlaps;
      audit_conflicts += a.conflicts;
      worst.min_gap_m = std::min(worst.min_gap_m, a.min_gap_m);
      worst.bad_positions += a.bad_positions;
    }
    if (opt.progress && std::chrono::duration<double>(Clock::now() - last_print).count() > 0.25) {
      last_print = Clock::now();
      const traffic::Stats& s = sim.stats();
      char line[160];
      std::snprintf(line, sizeof line,
                    "%6.0f / %.0f s simulated, %u vehicles, %.1f m/s, %.0f ticks/s", sim.time_s(),
                    opt.seconds, s.vehicles_moving, s.mean_speed_mps,
                    static_cast<double>(t + 1) / std::max(tick_s, 1e-9));
      opt.progress(line);
    }
  }
  // The ticks' exchange figures, then the whole state on every rank (for the state hash; not
  // counted in them), then every rank's exchange time, on rank 0 (collectives).
  const traffic::ShareStats share = sim.share_stats();
  sim.gather_state();
  if (people) people->gather();
  // Per rank: exchange, its packing and its transfer, the whole tick (seconds), bytes sent,
  // vehicles handed over.
  std::vector<std::array<double, 9>> rank_s(static_cast<std::size_t>(ranks.size()),
                                            std::array<double, 9>{});
  rank_s[0] = {share.exchange_s,
               share.pack_s,
               share.transfer_s,
               tick_s,
               static_cast<double>(share.bytes[static_cast<std::size_t>(ranks.rank())]),
               static_cast<double>(share.migrations),
               tick_cpu_s,
               tick_collective_cpu_s,
               static_cast<double>(pipeline::peak_rss_kb()) / 1024.0};
  // Per rank: the crowd's full-fidelity updates, bytes sent, exchange seconds, tick seconds,
  // agents handed over to it, map points sent to other ranks' halos, whole exchanges.
  const crowd::CrowdShareStats no_crowd;
  const crowd::CrowdShareStats& crowd_share = people != nullptr ? people->share_stats() : no_crowd;
  std::vector<std::array<double, 7>> rank_crowd(static_cast<std::size_t>(ranks.size()),
                                                std::array<double, 7>{});
  rank_crowd[0] = {static_cast<double>(crowd_share.updated),
                   static_cast<double>(crowd_share.sent_bytes),
                   crowd_share.exchange_s,
                   crowd_s,
                   static_cast<double>(crowd_share.arrived),
                   static_cast<double>(crowd_share.halo_items),
                   static_cast<double>(crowd_share.syncs)};
  if (ranks.size() > 1) {
    ByteWriter w;
    w.put(rank_s[0]);
    w.put(rank_crowd[0]);
    const std::vector<std::string> got = ranks.gather(w.bytes());
    for (std::size_t r = 0; r < got.size(); ++r) {
      ByteReader in(got[r], "rank timings");
      if (!in.get(rank_s[r]) || !in.get(rank_crowd[r])) {
        rank_s[r] = {};
        rank_crowd[r] = {};
      }
    }
  }
  if (!lead) return SimulateReport{};
  std::uint64_t rec_bytes = 0;
  std::uint32_t rec_frames = 0;
  if (writer) {
    rec_frames = writer->frames_written();
    if (Status s = writer->close(); !s) return s.error();
    rec_bytes = writer->bytes_written();
  }

  // 5. Figures.
  const traffic::Stats& s = sim.stats();
  const double updates_per_s = tick_s > 0 ? static_cast<double>(s.vehicle_updates) / tick_s : 0;
  nlohmann::ordered_json j;
  j["format"] = "cityforge-sim-stats";
  j["version"] = 1;
  j["city"] = opt.dir;
  j["seed"] = opt.seed;
  j["threads"] = threads;
  j["dt_s"] = cfg.dt_s;
  j["ticks"] = s.ticks;
  j["simulated_s"] = sim.time_s();
  j["setup_s"] = setup_s;
  j["wall_s"] = tick_s;
  j["record_s"] = record_s;
  j["ticks_per_wall_s"] = tick_s > 0 ? static_cast<double>(s.ticks) / tick_s : 0;
  j["vehicle_updates"] = s.vehicle_updates;
  j["vehicle_updates_per_s"] = updates_per_s;
  j["vehicles_driven"] = s.vehicles_driven;
  j["off_step_s"] = cfg.off_step_s;
  j["trip_reach_m"] = cfg.trip_reach_m;
  j["vehicles_requested"] = s.vehicles_requested;
  j["capacity"] = s.capacity;
  j["vehicles_moving"] = s.vehicles_moving;
  j["vehicles_parked"] = s.vehicles_parked;
  j["vehicles_pooled"] = s.vehicles_pooled;
  j["mean_speed_mps"] = s.mean_speed_mps;
  j["distance_km"] = s.distance_km;
  j["stops"] = s.stops;
  j["trips_started"] = s.trips_started;
  j["trips_completed"] = s.trips_completed;
  j["reroutes"] = s.reroutes;
  j["lane_changes"] = s.lane_changes;
  j["lane_changes_aborted"] = s.lane_changes_aborted;
  j["junction_entries"] = s.junction_entries;
  j["entries_on_yellow"] = s.entries_on_yellow;
  j["red_violations"] = s.red_violations;
  j["clearing_on_red"] = s.clearing_on_red;
  j["emergency_stops"] = s.emergency_stops;
  j["state_hash"] = hex(sim.state_hash());
  // The ranks (docs/traffic.md, "Over MPI ranks").
  {
    const double sim_s = std::max(sim.time_s(), 1e-9);
    const double exchanges = std::max<double>(1.0, static_cast<double>(share.exchanges));
    std::uint64_t bytes = 0;
    nlohmann::ordered_json per = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < static_cast<std::size_t>(ranks.size()); ++r) {
      const std::uint64_t updates = ranks.size() > 1 ? share.updates[r] : s.vehicle_updates;
      const auto sent = static_cast<std::uint64_t>(rank_s[r][4]);
      bytes += sent;
      per.push_back({{"rank", r},
                     {"expected_vehicles", partition.part_weight[r]},
                     {"expected_pedestrians",
                      r < partition.part_pedestrians.size() ? partition.part_pedestrians[r] : 0.0},
                     {"vehicle_updates", updates},
                     {"sent_bytes", sent},
                     {"wall_s", rank_s[r][3]},
                     {"exchange_s", rank_s[r][0]},
                     {"exchange_pack_s", rank_s[r][1]},
                     {"exchange_transfer_s", rank_s[r][2]},
                     {"pedestrian_updates", static_cast<std::uint64_t>(rank_crowd[r][0])},
                     {"crowd_sent_bytes", static_cast<std::uint64_t>(rank_crowd[r][1])},
                     {"crowd_exchange_s", rank_crowd[r][2]},
                     {"crowd_wall_s", rank_crowd[r][3]},
                     {"pedestrians_arrived", static_cast<std::uint64_t>(rank_crowd[r][4])},
                     {"crowd_halo_items", static_cast<std::uint64_t>(rank_crowd[r][5])},
                     {"crowd_syncs", static_cast<std::uint64_t>(rank_crowd[r][6])},
                     {"cpu_s", rank_s[r][6]},
                     {"collective_cpu_s", rank_s[r][7]},
                     {"peak_rss_mib", rank_s[r][8]}});
    }
    j["ranks"] = ranks.size();
    j["partition"] = {{"method", ranks.size() > 1 ? "METIS k-way" : "none"},
                      {"units", partition.units},
                      {"cut_lanes", partition.cut_lanes},
                      {"cut_links", partition.cut_links},
                      {"expected_imbalance", partition.imbalance()},
                      {"seconds", partition_s}};
    j["per_rank"] = per;
    j["halo_lanes"] = share.halo_lanes;
    j["row_passes"] = share.row_passes;
    std::uint64_t migrations = 0;
    for (const auto& r : rank_s)
      migrations += static_cast<std::uint64_t>(r[5]);
    j["migrations"] = migrations;
    j["migrations_per_s"] = static_cast<double>(migrations) / sim_s;
    j["exchange_bytes_per_tick"] = static_cast<double>(bytes) / exchanges;
    j["exchange_us_per_tick"] = rank_s[0][0] * 1e6 / exchanges;
  }
  const auto lod_json = [](const std::array<std::uint32_t, crowd::kLods>& n) {
    nlohmann::ordered_json o;
    for (std::size_t k = 0; k < crowd::kLods; ++k)
      o[crowd::to_string(static_cast<crowd::Lod>(k))] = n[k];
    return o;
  };
  j["vehicles_per_lod"] = lod_json(vehicle_lod.per_lod());
  j["vehicles_per_lod_max"] = lod_json(vehicle_lod.per_lod_max());
  const crowd::LodConfig& vlod_cfg = vehicle_lod.config();
  j["vehicle_lod_budget"] = {{"high", vlod_cfg.budget_high},
                             {"medium", vlod_cfg.budget_medium},
                             {"low", vlod_cfg.budget_low},
                             {"enabled", vlod_cfg.enabled}};
  j["crowd_wall_s"] = crowd_s;
  // Traffic and crowd together: what a live city costs per tick.
  j["city_ticks_per_wall_s"] =
      tick_s + crowd_s > 0 ? static_cast<double>(s.ticks) / (tick_s + crowd_s) : 0;
  if (people) {
    const crowd::Stats& c = people->stats();
    nlohmann::ordered_json cj;
    cj["pedestrians"] = c.pedestrians;
    cj["pedestrian_updates"] = c.updates;
    cj["pedestrian_updates_per_s"] = crowd_s > 0 ? static_cast<double>(c.updates) / crowd_s : 0;
    cj["ticks_per_wall_s"] = crowd_s > 0 ? static_cast<double>(c.ticks) / crowd_s : 0;
    cj["per_lod"] = lod_json(c.per_lod);
    cj["per_lod_max"] = lod_json(c.per_lod_max);
    cj["lod_budget"] = {{"high", ccfg.lod.budget_high},
                        {"medium", ccfg.lod.budget_medium},
                        {"low", ccfg.lod.budget_low},
                        {"enabled", ccfg.lod.enabled}};
    nlohmann::ordered_json beh;
    for (std::size_t k = 0; k < crowd::kBehaviours; ++k)
      beh[crowd::to_string(static_cast<crowd::Behaviour>(k))] = c.per_behaviour[k];
    cj["per_behaviour"] = beh;
    cj["crossings"] = c.crossings;
    cj["jaywalks"] = c.jaywalks;
    cj["lane_transitions"] = c.lane_transitions;
    cj["flee_reactions"] = c.flee_reactions;
    cj["hazard_reactions"] = c.hazard_reactions;
    cj["indoors"] = c.indoors;
    cj["lod_changes"] = c.lod_changes;
    cj["pool_slots"] = people->pool().slots();
    cj["pool_mismatches"] = c.pool_mismatches;
    cj["neighbour_queries"] = c.neighbour_queries;
    cj["obstacles"] = c.obstacles;
    cj["walk_lanes"] = people->walk_network().lanes.size();
    cj["sidewalks_left_out"] = people->walk_network().excluded.size();
    cj["shepherd_members"] = c.shepherd_members;
    cj["wandering_members"] = c.wandering_members;
    cj["memory_bytes"] = c.bytes;
    cj["memory_per_off_agent_bytes"] = c.memory_per_off_agent_bytes;
    cj["state_hash"] = hex(people->state_hash());
    j["crowd"] = cj;
  }
  if (opt.audit) {
    j["audit"] = {{"overlaps", audit_overlaps},
                  {"conflicts", audit_conflicts},
                  {"bad_positions", worst.bad_positions},
                  {"min_gap_m", worst.min_gap_m}};
  }
  if (writer) {
    j["recording"] = {{"path", rec_path}, {"frames", rec_frames}, {"bytes", rec_bytes}};
  }
  j["warnings"] = s.warnings;
  const std::string stats_path =
      ((opt.record ? fs::path(rec_path).parent_path() : fs::path(opt.dir)) / "sim_stats.json")
          .string();
  const std::string text = j.dump(2) + "\n";
  if (Status w = exporter::write_file_atomic(stats_path, text.data(), text.size()); !w) {
    return w.error();
  }
  SimulateReport report;
  report.stats_path = stats_path;
  if (writer) report.recording_path = rec_path;
  std::string& out = report.summary;
  append_printf(out,
                "simulated %.0f s (%" PRIu64
                " ticks of %.3f s) in %.2f s wall: %.0f ticks/s, %.3g vehicle "
                "updates/s on %d thread%s\n",
                sim.time_s(), s.ticks, static_cast<double>(cfg.dt_s), tick_s,
                static_cast<double>(s.ticks) / std::max(tick_s, 1e-9), updates_per_s, threads,
                threads == 1 ? "" : "s");
  append_printf(out,
                "vehicles: %u moving (%u requested, capacity %u), %u parked; mean speed %.1f m/s "
                "(%.0f km/h), %.0f km driven\n",
                s.vehicles_moving, s.vehicles_requested, s.capacity, s.vehicles_parked,
                s.mean_speed_mps, s.mean_speed_mps * 3.6, s.distance_km);
  append_printf(out,
                "throughput: %" PRIu64 " junction entries, %" PRIu64 " trips completed, %" PRIu64
                " lane changes, %" PRIu64 " stops; %" PRIu64 " red-light entries\n",
                s.junction_entries, s.trips_completed, s.lane_changes, s.stops, s.red_violations);
  if (ranks.size() > 1) {
    append_printf(out,
                  "ranks: %d (METIS: %u cut lanes, expected imbalance %.3f); %.0f vehicles "
                  "migrated per simulated s; %.1f kB sent per tick, exchange %.0f us per tick "
                  "on rank 0\n",
                  ranks.size(), partition.cut_lanes, partition.imbalance(),
                  j["migrations_per_s"].get<double>(),
                  j["exchange_bytes_per_tick"].get<double>() / 1e3,
                  j["exchange_us_per_tick"].get<double>());
  }
  if (opt.audit) {
    append_printf(
        out, "audit: %" PRIu64 " overlaps, %" PRIu64 " conflicting occupancies, min gap %.2f m\n",
        audit_overlaps, audit_conflicts, static_cast<double>(worst.min_gap_m));
  }
  if (people) {
    const crowd::Stats& c = people->stats();
    append_printf(out,
                  "crowd: %u pedestrians, %.3g pedestrian updates/s (%.2f s wall); now high %u, "
                  "medium %u, low %u, off %u; %" PRIu64 " crossings (%" PRIu64
                  " jaywalks), %" PRIu64 " flee reactions\n",
                  c.pedestrians, crowd_s > 0 ? static_cast<double>(c.updates) / crowd_s : 0.0,
                  crowd_s, c.per_lod[0], c.per_lod[1], c.per_lod[2], c.per_lod[3], c.crossings,
                  c.jaywalks, c.flee_reactions);
  }
  if (writer) {
    append_printf(out, "wrote %s (%u frames, %.1f MB) and %s; setup %.2f s, recording %.2f s\n",
                  rec_path.c_str(), rec_frames, static_cast<double>(rec_bytes) / 1e6,
                  stats_path.c_str(), setup_s, record_s);
  } else {
    append_printf(out, "wrote %s; setup %.2f s\n", stats_path.c_str(), setup_s);
  }
  return report;
}

}  // namespace cityforge::server
