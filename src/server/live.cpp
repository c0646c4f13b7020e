// SPDX-License-Identifier: Apache-2.0
// The live simulation of `cityforge serve --live` (docs/live.md): the city's traffic and crowd
// (built as `simulate` builds them, city_sim.cpp) tick on one thread at 1 / dt_s x speed ticks
// per wall second. Each tick ends with one stream frame (traffic::StreamEncoder) that the server
// hands, unchanged, to every client. Clients steer the shared environment (weather, densities,
// clock), the levels of detail (the latest viewer) and their own car, which is snapped to the
// nearest vehicle lane and kept there as a traffic obstacle and a crowd hazard.
//
// Under mpirun the simulations are shared over the ranks as `simulate` shares them. Rank 0 alone
// keeps the clock, the clients and the stream: before each tick its simulation thread sends the
// other ranks what it applied (the clients' controls and the cars that went, in its order), and
// every rank applies the same and ticks; after the tick the ranks exchange the positions near
// the viewer for the levels of detail, and send rank 0 the samples of the vehicles they hold
// (Simulation::samples_on_rank0) for it to encode.
#include "cityforge/server/live.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numbers>
#include <string>
#include <thread>

#include "cityforge/core/ranks.hpp"
#include "cityforge/core/spatial_hash.hpp"
#include "cityforge/crowd/crowd.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/server/city_sim.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/stream.hpp"

namespace cityforge::server {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kDt = 0.1;                 ///< Tick length, seconds.
constexpr int kMaxCatchUp = 5;              ///< Ticks run back to back when behind, then skip.
constexpr double kVehicleLodEveryS = 0.25;  ///< Simulated time between vehicle LOD updates.
constexpr float kPlayerLengthM = 4.5f;
constexpr float kPlayerHazardRadiusM = 3.0f;
constexpr double kPlayerSnapM = 8.0;     ///< Farther from any vehicle lane: off the road.
constexpr double kHitReachM = 12.0;      ///< A hit pedestrian farther from the car is refused.
constexpr double kPlayerTimeoutS = 2.0;  ///< Wall seconds without an update: the car goes.
constexpr std::uint32_t kPlayerIdBase = 1U << 24U;  ///< Above any vehicle entity index.
constexpr double kGridCellM = 8.0;

/// Vehicle lane centre-line segments in the project's uniform grid (core SpatialHash), so a
/// query looks at the cells round the point only.
class LaneGrid {
 public:
  struct Snap {
    traffic::LaneId lane = traffic::kNoLane;
    float s_m = 0;
    double distance_m = 0;
  };

  explicit LaneGrid(const traffic::Network& net) : m_net(net), m_hash(kGridCellM) {
    for (traffic::LaneId lane = 0; lane < net.lane_count(); ++lane) {
      if (!net.is(lane, roads::kVehicle)) continue;
      for (std::uint32_t i = net.point_begin[lane]; i + 1 < net.point_begin[lane + 1]; ++i) {
        Aabb2 box;
        box.add({net.points[i].x, net.points[i].y});
        box.add({net.points[i + 1].x, net.points[i + 1].y});
        m_hash.insert(static_cast<std::uint32_t>(m_segments.size()), box);
        m_segments.push_back({lane, i});
      }
    }
  }

  /// The nearest vehicle lane point within `max_m`, preferring lanes that run along
  /// `heading_rad` (a lane against it costs up to 12 m more, so the right carriageway wins).
  std::optional<Snap> nearest(double x, double y, double heading_rad, double max_m) const {
    std::optional<Snap> best;
    double best_cost = 1e300;
    const double hx = std::cos(heading_rad);
    const double hy = std::sin(heading_rad);
    std::vector<std::uint32_t> ids;
    m_hash.query_radius({x, y}, max_m, ids);
    for (const std::uint32_t id : ids) {
      const Entry& e = m_segments[id];
      const Vec3 a = m_net.points[e.point];
      const Vec3 b = m_net.points[e.point + 1];
      const double dx = b.x - a.x;
      const double dy = b.y - a.y;
      const double len2 = dx * dx + dy * dy;
      const double u =
          len2 > 0 ? std::clamp(((x - a.x) * dx + (y - a.y) * dy) / len2, 0.0, 1.0) : 0.0;
      const double d = std::hypot(a.x + dx * u - x, a.y + dy * u - y);
      if (d > max_m) continue;
      const double len = std::sqrt(len2);
      const double along = len > 0 ? (dx * hx + dy * hy) / len : 1.0;
      const double cost = d + 6.0 * (1.0 - along);
      // Ties (a shared end point of two lanes) go to the lower lane id: deterministic.
      if (cost < best_cost || (cost == best_cost && best && e.lane < best->lane)) {
        best_cost = cost;
        const float s0 = m_net.point_s[e.point];
        const float s1 = m_net.point_s[e.point + 1];
        best = Snap{e.lane, s0 + static_cast<float>(u) * (s1 - s0), d};
      }
    }
    return best;
  }

 private:
  struct Entry {
    traffic::LaneId lane;
    std::uint32_t point;  ///< Segment from points[point] to points[point + 1].
  };
  const traffic::Network& m_net;
  SpatialHash m_hash;  ///< Segment index -> cells its bounding box overlaps.
  std::vector<Entry> m_segments;
};

/// A client's car.
struct Player {
  std::uint32_t slot = 0;  ///< Stream id kPlayerIdBase + slot.
  Vec3 position;           ///< As reported, moved on by speed each tick.
  double heading_rad = 0;
  double speed_mps = 0;                     ///< Along the heading; negative when reversing.
  traffic::LaneId lane = traffic::kNoLane;  ///< Snapped lane, or none (off the road).
  float s_m = 0;
  std::optional<std::uint32_t> obstacle;
  Clock::time_point last_update;
};

/// What rank 0's simulation thread applied before a tick, sent to the other ranks (follow()):
/// the clients' controls in the order applied, then the clients whose car went (they left, or
/// sent nothing for kPlayerTimeoutS). `stop`: rank 0 stops; no tick follows.
struct TickInput {
  bool stop = false;
  std::vector<std::pair<std::uint64_t, Control>> controls;
  std::vector<std::uint64_t> dropped;
};

std::string encode(const TickInput& in) {
  ByteWriter w;
  w.put<std::uint8_t>(in.stop ? 1 : 0);
  w.put<std::uint64_t>(in.controls.size());
  for (const auto& [client, c] : in.controls) {
    w.put(client);
    w.put(c);
  }
  w.put_vector(in.dropped);
  return w.take();
}

Result<TickInput> decode(const std::string& bytes) {
  ByteReader r(bytes, "live tick input from rank 0");
  TickInput in;
  std::uint8_t stop = 0;
  std::uint64_t n = 0;
  if (Status st = r.get(stop); !st) return st.error();
  if (Status st = r.get(n); !st) return st.error();
  in.stop = stop != 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    std::uint64_t client = 0;
    Control c;
    if (Status st = r.get(client); !st) return st.error();
    if (Status st = r.get(c); !st) return st.error();
    in.controls.emplace_back(client, c);
  }
  if (Status st = r.get_vector(in.dropped); !st) return st.error();
  if (!r.done()) return Error::internal("live", "a tick input from rank 0 longer than its parts");
  return in;
}

double wrap_hour(double h) {
  h = std::fmod(h, 24.0);
  return h < 0 ? h + 24.0 : h;
}

}  // namespace

struct LiveSim::Impl {
  LiveOptions opt;
  const Ranks* ranks = &single_rank();
  CitySim city;
  VehicleLod vehicle_lod{true};
  traffic::RecordingInfo info;
  std::optional<traffic::StreamEncoder> encoder;
  std::optional<LaneGrid> grid;
  std::shared_ptr<const std::string> hello;

  // The shared environment (simulation thread), its message (guarded).
  traffic::WeatherKind weather = traffic::WeatherKind::clear;
  bool fog = false;
  double hour = 12;  ///< At sim time hour_at_s.
  double hour_at_s = 0;
  double day_length_s = 1200;  ///< Simulated seconds per 24 h of the viewers' clock.
  std::uint32_t vehicles = 0;
  std::string summary;  ///< The start-up line (summary()), fixed before the thread starts.
  std::uint32_t pedestrians = 0;
  mutable std::mutex env_mutex;
  std::shared_ptr<const std::string> env_text;

  // Control messages from any thread.
  std::mutex control_mutex;
  std::vector<std::pair<std::uint64_t, Control>> controls;
  std::vector<std::uint64_t> gone;

  // Simulation thread state.
  crowd::Viewer viewer;
  std::map<std::uint64_t, Player> players;  // By client.
  double next_vehicle_lod_s = 0;
  std::vector<traffic::VehicleSample> agents;
  std::vector<traffic::LightState> lights;
  std::vector<traffic::WalkState> walks;
  FrameSink frame_sink;
  TextSink env_sink;

  std::thread thread;
  std::mutex run_mutex;
  std::condition_variable run_cv;
  bool stopping = false;

  mutable std::mutex stats_mutex;
  LiveStats stats;

  void run();
  void step(double ticks_per_s);
  /// Over ranks: whether this is rank 0 (clock, clients, stream), and whether there are others.
  bool lead() const { return ranks->rank() == 0; }
  bool shared() const { return ranks->size() > 1; }
  /// Rank 0: applies the queued controls, the cars whose client left or went quiet; returns
  /// what it applied, for the other ranks. replay(): the others apply the same.
  TickInput apply_controls();
  void replay(const TickInput& in);
  void apply(std::uint64_t client, const Control& c, bool* env_changed);
  void drop_player(std::uint64_t client);
  void knock_down(std::uint64_t client, std::uint32_t pedestrian);
  void move_players();
  void publish_env();
  double hour_now() const {
    return wrap_hour(hour + (city.traffic->time_s() - hour_at_s) / day_length_s * 24.0);
  }
};

LiveSim::LiveSim(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
LiveSim::~LiveSim() { stop(); }

Result<std::unique_ptr<LiveSim>> LiveSim::create(const LiveOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->opt = options;
  if (options.ranks != nullptr) impl->ranks = options.ranks;
  const Ranks& ranks = *impl->ranks;
  CitySimOptions copt;
  copt.dir = options.dir;
  copt.dt_s = kDt;
  copt.vehicles = options.vehicles;
  copt.pedestrians = options.pedestrians;
  copt.seed = options.seed;
  copt.route_trips_later = true;  // share_city_sim deals the initial trips' routing to the ranks.
  Result<CitySim> city = build_city_sim(copt);
  // Every rank reads the folder; a failure on any (a file one cannot read) stops them all.
  if (Status st = agree(ranks, city ? Status(Ok{}) : Status(city.error())); !st) return st.error();
  impl->city = std::move(*city);
  if (Result<traffic::Partition> shared = share_city_sim(impl->city, ranks, options.seed); !shared)
    return shared.error();
  // Every frame shows every pedestrian: each tick's crowd exchange sends every update whole.
  if (impl->city.crowd) impl->city.crowd->keep_whole(true);
  traffic::Simulation& sim = *impl->city.traffic;
  impl->info = sim.recording_info(options.seed);
  traffic::StreamConfig sc;
  sc.origin = impl->info.origin;  // The network's bounding box minimum.
  sc.step_m = 0.02f;
  sc.key_every = 10;
  impl->encoder.emplace(sc);
  impl->grid.emplace(sim.network());
  impl->vehicles = sim.stats().vehicles_moving;
  impl->pedestrians = impl->city.crowd ? impl->city.crowd->size() : 0;
  // The environment at the start (a scenario's weather and clock).
  impl->hour = wrap_hour(options.hour);
  impl->day_length_s = options.day_length_s > 0 ? options.day_length_s : 1200;
  if (options.weather != traffic::WeatherKind::clear || options.fog) {
    impl->weather = options.weather;
    impl->fog = options.fog;
    sim.set_weather(traffic::weather_effect(options.weather, options.fog));
    if (impl->city.crowd)
      impl->city.crowd->set_weather(crowd::weather_effect(options.weather, options.fog));
  }
  // Stats tell the environment before the first frame is published.
  impl->stats.weather = traffic::to_string(impl->weather);
  impl->stats.fog = impl->fog;
  impl->stats.vehicles = impl->vehicles;
  impl->stats.pedestrians = impl->pedestrians;
  impl->stats.ranks = static_cast<std::uint32_t>(ranks.size());

  const double frame_hz = 1.0 / kDt;  // Per simulated second; "speed" scales it to wall time.
  const nlohmann::ordered_json h = nlohmann::ordered_json::parse(traffic::stream_hello_json(
      sc, kDt, frame_hz, impl->info.signal_lanes, impl->info.crosswalk_lanes, kLiveMaxMessageBytes,
      kLiveMessagesPerS));
  nlohmann::ordered_json hello;
  hello["type"] = "hello";
  for (const auto& [k, v] : h.items())
    hello[k] = v;
  hello["max_message_burst"] = kLiveMessageBurst;
  hello["speed"] = options.speed;
  hello["vehicles_max"] = sim.stats().capacity;
  hello["pedestrians_max"] = impl->pedestrians;
  hello["player_id_base"] = kPlayerIdBase;
  impl->hello = std::make_shared<const std::string>(hello.dump());
  // Made here, before the simulation thread starts: summary() is asked for while it runs.
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "live: %u vehicles (capacity %u), %u pedestrians, %.0f ticks/s (dt %.1f s x "
      "speed %g)%s, stream at /live, figures at /live/stats",
      impl->vehicles, sim.stats().capacity, impl->pedestrians, options.speed / kDt, kDt,
      options.speed,
      ranks.size() > 1 ? (" over " + std::to_string(ranks.size()) + " MPI ranks").c_str() : "");
  impl->summary = buf;
  impl->publish_env();
  return std::unique_ptr<LiveSim>(new LiveSim(std::move(impl)));
}

void LiveSim::follow() {
  Impl& m = *m_impl;
  if (m.lead()) return;
  for (;;) {
    Result<TickInput> in = decode(m.ranks->broadcast(std::string()));
    if (!in) {  // Not reached unless ranks run different builds: the job cannot go on.
      std::fprintf(stderr, "error: rank %d: %s\n", m.ranks->rank(), in.error().to_string().c_str());
      m.ranks->abort(1);
    }
    if (in->stop) return;
    m.replay(*in);
    m.step(0);
  }
}

void LiveSim::start(FrameSink frames, TextSink env) {
  m_impl->frame_sink = std::move(frames);
  m_impl->env_sink = std::move(env);
  m_impl->thread = std::thread([this] { m_impl->run(); });
}

void LiveSim::stop() {
  {
    std::lock_guard lock(m_impl->run_mutex);
    m_impl->stopping = true;
  }
  m_impl->run_cv.notify_all();
  if (m_impl->thread.joinable()) m_impl->thread.join();
}

std::shared_ptr<const std::string> LiveSim::hello() const { return m_impl->hello; }

std::shared_ptr<const std::string> LiveSim::env() const {
  std::lock_guard lock(m_impl->env_mutex);
  return m_impl->env_text;
}

void LiveSim::post(std::uint64_t client, const Control& control) {
  std::lock_guard lock(m_impl->control_mutex);
  m_impl->controls.emplace_back(client, control);
}

void LiveSim::client_gone(std::uint64_t client) {
  std::lock_guard lock(m_impl->control_mutex);
  m_impl->gone.push_back(client);
}

LiveStats LiveSim::stats() const {
  std::lock_guard lock(m_impl->stats_mutex);
  return m_impl->stats;
}

std::string LiveSim::summary() const { return m_impl->summary; }

// Ticks on a fixed wall-clock schedule. When a tick ends after its successor was due, the next
// ones run back to back (at most kMaxCatchUp); beyond that the debt is given up and counted, so
// a slow machine runs slower than real time instead of ever more behind.
void LiveSim::Impl::run() {
  const auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kDt / opt.speed));
  const auto t0 = Clock::now();
  auto due = t0;
  auto rate_mark = t0;
  std::uint64_t rate_ticks = 0;
  double ticks_per_s = 0;
  int catch_up = 0;
  for (;;) {
    bool stop = false;
    {
      std::unique_lock lock(run_mutex);
      stop = run_cv.wait_until(lock, due, [this] { return stopping; });
    }
    if (stop) {
      if (shared()) ranks->broadcast(encode(TickInput{true, {}, {}}));  // The others return.
      return;
    }
    const TickInput applied = apply_controls();
    if (shared()) ranks->broadcast(encode(applied));
    step(ticks_per_s);
    const auto now = Clock::now();
    const std::uint64_t ticks = city.traffic->stats().ticks;
    if (now - rate_mark >= std::chrono::seconds(1)) {
      ticks_per_s = static_cast<double>(ticks - rate_ticks) /
                    std::chrono::duration<double>(now - rate_mark).count();
      rate_mark = now;
      rate_ticks = ticks;
    }
    due += period;
    std::uint64_t skipped = 0;
    if (now > due) {
      if (++catch_up > kMaxCatchUp) {
        skipped = static_cast<std::uint64_t>((now - due) / period);
        due += period * static_cast<std::int64_t>(skipped);
        catch_up = 0;
      }
    } else {
      catch_up = 0;
    }
    std::lock_guard lock(stats_mutex);
    stats.ticks = ticks;
    stats.time_s = city.traffic->time_s();
    stats.ticks_per_s = ticks_per_s;
    stats.target_ticks_per_s = opt.speed / kDt;
    stats.ticks_behind += skipped;
    stats.wall_s = std::chrono::duration<double>(now - t0).count();
  }
}

void LiveSim::Impl::step(double ticks_per_s) {
  traffic::Simulation& sim = *city.traffic;
  crowd::Crowd* people = city.crowd.get();
  // 1. Players move on, then the simulations tick.
  move_players();
  sim.tick();
  if (people) {
    people->set_viewer(viewer);
    people->tick(&sim);
    people->gather();  // Whole already (keep_whole); kept so the frame's read is safe anyway.
  }
  // 2. Every moving vehicle, each sampled by the rank that holds it, on rank 0 (which alone
  // streams); their levels of detail from the latest viewer, from the positions within the
  // farthest level's reach (over ranks only those are exchanged).
  std::vector<traffic::VehicleSample> moving = sim.samples_on_rank0();
  if (sim.time_s() + 1e-9 >= next_vehicle_lod_s) {
    vehicle_lod.update(sim, viewer);
    next_vehicle_lod_s = sim.time_s() + kVehicleLodEveryS;
  }
  if (!lead()) return;
  // 3. The frame: moving vehicles, players, pedestrians, lights and walks.
  agents = std::move(moving);
  for (traffic::VehicleSample& v : agents)
    v.lod = vehicle_lod.level(v.id);
  for (const auto& [client, p] : players) {
    traffic::VehicleSample s;
    s.id = kPlayerIdBase + p.slot;
    s.kind = traffic::EntityKind::player;
    s.position = p.position;
    s.heading_rad = p.heading_rad;
    s.speed_mps = std::abs(p.speed_mps);  // The stream carries speeds >= 0.
    agents.push_back(s);
  }
  if (people) {
    const std::vector<traffic::VehicleSample> peds = people->samples();
    agents.insert(agents.end(), peds.begin(), peds.end());
  }
  sim.lights(info.signal_lanes, lights);
  sim.walks(info.crosswalk_lanes, walks);
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(encoder->encode(
      sim.stats().ticks, sim.time_s(), static_cast<float>(ticks_per_s), agents, lights, walks));
  LiveFrame frame;
  frame.key = encoder->last_was_key();
  frame.seq = encoder->next_seq() - 1;
  {
    std::lock_guard lock(stats_mutex);
    ++stats.frames;
    stats.frame_bytes += bytes->size();
    stats.agent_samples += agents.size();
    stats.agents = static_cast<std::uint32_t>(agents.size());
    stats.vehicles = sim.stats().vehicles_moving;
    stats.pedestrians = pedestrians;
    stats.weather = traffic::to_string(weather);
    stats.fog = fog;
    stats.players = static_cast<std::uint32_t>(players.size());
    stats.player_lane = -1;
    if (!players.empty()) {
      const Player& p = players.begin()->second;
      stats.player_lane = p.lane == traffic::kNoLane ? -1 : static_cast<std::int64_t>(p.lane);
      stats.player_s_m = p.s_m;
      stats.player_speed_mps = p.speed_mps;
    }
  }
  frame.bytes = std::move(bytes);
  if (frame_sink) frame_sink(frame);
}

TickInput LiveSim::Impl::apply_controls() {
  TickInput in;
  {
    std::lock_guard lock(control_mutex);
    in.controls.swap(controls);
    in.dropped.swap(gone);
  }
  bool env_changed = false;
  for (const auto& [client, c] : in.controls)
    apply(client, c, &env_changed);
  for (std::uint64_t client : in.dropped)
    drop_player(client);
  // Players whose client went quiet (rank 0's clock decides, the others are told).
  const auto now = Clock::now();
  for (auto it = players.begin(); it != players.end();) {
    const auto next = std::next(it);
    if (now - it->second.last_update > std::chrono::duration<double>(kPlayerTimeoutS)) {
      in.dropped.push_back(it->first);
      drop_player(it->first);
    }
    it = next;
  }
  if (env_changed) publish_env();
  return in;
}

void LiveSim::Impl::replay(const TickInput& in) {
  bool env_changed = false;
  for (const auto& [client, c] : in.controls)
    apply(client, c, &env_changed);
  for (std::uint64_t client : in.dropped)
    drop_player(client);
}

void LiveSim::Impl::apply(std::uint64_t client, const Control& c, bool* env_changed) {
  traffic::Simulation& sim = *city.traffic;
  crowd::Crowd* people = city.crowd.get();
  switch (c.kind) {
    case Control::Kind::viewer:
      viewer.position = Vec3{c.x, c.y, c.z};
      viewer.yaw_rad = c.yaw_deg * std::numbers::pi / 180.0;
      return;
    case Control::Kind::weather:
      weather = c.weather;
      fog = c.fog;
      sim.set_weather(traffic::weather_effect(weather, fog));
      if (people) people->set_weather(crowd::weather_effect(weather, fog));
      *env_changed = true;
      return;
    case Control::Kind::density:
      if (c.vehicles) {
        const double cap = sim.stats().capacity;
        sim.set_vehicle_count(static_cast<std::uint32_t>(std::min(*c.vehicles, cap)));
        vehicles = static_cast<std::uint32_t>(std::min(*c.vehicles, cap));
      }
      if (c.pedestrians && people) {
        pedestrians = static_cast<std::uint32_t>(
            std::min(*c.pedestrians, static_cast<double>(people->size())));
        people->set_active_count(pedestrians);
      }
      *env_changed = true;
      return;
    case Control::Kind::time:
      if (c.hour) {
        hour = wrap_hour(*c.hour);
      } else {
        hour = hour_now();
      }
      hour_at_s = sim.time_s();
      if (c.day_length_s) day_length_s = *c.day_length_s;
      *env_changed = true;
      return;
    case Control::Kind::player_off:
      drop_player(client);
      return;
    case Control::Kind::hit:
      knock_down(client, c.id);
      return;
    case Control::Kind::player:
      break;
  }
  // The player's car: pose as reported, snapped to the nearest lane for the traffic.
  auto [it, added] = players.try_emplace(client);
  Player& p = it->second;
  if (added) {  // The lowest free slot: ids stay small and are reused.
    std::vector<bool> taken(players.size(), false);
    for (const auto& [other, q] : players)
      if (other != client && q.slot < taken.size()) taken[q.slot] = true;
    p.slot =
        static_cast<std::uint32_t>(std::find(taken.begin(), taken.end(), false) - taken.begin());
  }
  p.position = Vec3{c.x, c.y, c.z};
  p.heading_rad = c.heading_rad;
  p.speed_mps = c.speed_mps;  // Negative: reversing.
  p.last_update = Clock::now();
  const std::optional<LaneGrid::Snap> snap = grid->nearest(c.x, c.y, c.heading_rad, kPlayerSnapM);
  const auto speed = static_cast<float>(std::max(0.0, p.speed_mps));  // Traffic: >= 0.
  if (!snap) {
    if (p.obstacle) sim.remove_obstacle(*p.obstacle);
    p.obstacle.reset();
    p.lane = traffic::kNoLane;
    return;
  }
  p.lane = snap->lane;
  p.s_m = snap->s_m;
  if (p.obstacle) {
    sim.move_obstacle(*p.obstacle, p.lane, p.s_m, speed);
  } else {
    p.obstacle = sim.add_obstacle(p.lane, p.s_m, kPlayerLengthM, speed);
  }
}

// A pedestrian the client's car hit (the viewer's collision world found the contact): down
// for the rest of the run, the crowd around flees. Only a driving client's hit counts, and only
// of a pedestrian near its car (the viewer draws the stream a frame or two late).
void LiveSim::Impl::knock_down(std::uint64_t client, std::uint32_t pedestrian) {
  crowd::Crowd* people = city.crowd.get();
  const auto it = players.find(client);
  bool ok = people != nullptr && it != players.end() && pedestrian < people->size();
  if (ok) {
    const crowd::PedestrianView v = people->view(pedestrian);
    const double d =
        std::hypot(v.position.x - it->second.position.x, v.position.y - it->second.position.y);
    ok = d <= kHitReachM && people->knock_down(pedestrian);
  }
  std::lock_guard lock(stats_mutex);
  if (ok) {
    stats.casualties += 1;
  } else {
    stats.hits_refused += 1;
  }
}

void LiveSim::Impl::drop_player(std::uint64_t client) {
  const auto it = players.find(client);
  if (it == players.end()) return;
  if (it->second.obstacle) city.traffic->remove_obstacle(*it->second.obstacle);
  players.erase(it);
}

// Between updates a car goes on at its speed: along its heading for the stream, along its lane
// for the traffic (held at the lane's end until the next update snaps it again).
void LiveSim::Impl::move_players() {
  traffic::Simulation& sim = *city.traffic;
  std::vector<crowd::Hazard> hazards;
  for (auto& [client, p] : players) {
    const double d = p.speed_mps * kDt;
    p.position.x += std::cos(p.heading_rad) * d;
    p.position.y += std::sin(p.heading_rad) * d;
    if (p.obstacle && p.lane != traffic::kNoLane) {
      p.s_m = std::clamp(p.s_m + static_cast<float>(d), 0.0f, sim.network().length_m[p.lane]);
      sim.move_obstacle(*p.obstacle, p.lane, p.s_m, static_cast<float>(std::max(0.0, p.speed_mps)));
    }
    crowd::Hazard h;
    h.position = p.position;
    h.velocity = Vec2{std::cos(p.heading_rad) * p.speed_mps, std::sin(p.heading_rad) * p.speed_mps};
    h.radius_m = kPlayerHazardRadiusM;
    hazards.push_back(h);
  }
  if (city.crowd) city.crowd->set_hazards(hazards);
}

void LiveSim::Impl::publish_env() {
  nlohmann::ordered_json e;
  e["type"] = "env";
  e["weather"] = traffic::to_string(weather);
  e["fog"] = fog;
  e["vehicles"] = vehicles;
  e["pedestrians"] = pedestrians;
  e["hour"] = hour_now();
  e["day_length_s"] = day_length_s;
  e["time_s"] = city.traffic->time_s();
  auto text = std::make_shared<const std::string>(e.dump());
  {
    std::lock_guard lock(env_mutex);
    env_text = text;
  }
  if (env_sink) env_sink(std::move(text));
}

}  // namespace cityforge::server