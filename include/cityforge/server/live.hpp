// SPDX-License-Identifier: Apache-2.0
// The live simulation of `cityforge serve --live` (src/server/live.cpp, docs/live.md): a
// city's traffic and crowd ticking in real time on their own thread, one stream frame per tick.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/traffic/traffic.hpp"

namespace cityforge::server {

struct LiveOptions {
  std::string dir;  ///< A `generate` output folder.
  std::uint32_t vehicles = 2000;
  std::uint32_t pedestrians = 2000;
  std::uint64_t seed = 1;
  double speed = 1;  ///< Simulated seconds per wall second. [Limit: (0, 16]]
  // The shared environment at the start (a scenario's); clients may change it as ever.
  traffic::WeatherKind weather = traffic::WeatherKind::clear;
  bool fog = false;
  double hour = 12;            ///< Clock at the start. [0, 24)
  double day_length_s = 1200;  ///< Simulated seconds per 24 h (86400: real time). [> 0]
  /// Under mpirun: the ranks the simulation is shared over (create() is then collective; rank 0
  /// runs the clock, the clients and the stream, the others follow()). Null: this process alone.
  const Ranks* ranks = nullptr;
};

/// Inbound limits of the live WebSocket (docs/live.md, "Limits").
inline constexpr std::uint32_t kLiveMaxMessageBytes = 4096;
inline constexpr double kLiveMessagesPerS = 30;
inline constexpr double kLiveMessageBurst = 60;

/// One client message, parsed and checked (docs/live.md, "Messages").
struct Control {
  enum class Kind : std::uint8_t { viewer, weather, density, time, player, player_off, hit };
  Kind kind = Kind::viewer;
  double x = 0, y = 0, z = 0;  ///< viewer, player.
  double yaw_deg = 0;          ///< viewer.
  double heading_rad = 0;      ///< player.
  double speed_mps = 0;        ///< player.
  traffic::WeatherKind weather = traffic::WeatherKind::clear;
  bool fog = false;
  std::optional<double> pedestrians, vehicles;  ///< density (at least one).
  std::optional<double> hour, day_length_s;     ///< time (at least one).
  std::uint32_t id = 0;                         ///< hit: the pedestrian's stream id.
};

/// Parses one text message: a JSON object with a known "type" and its fields of the right
/// types (numbers finite). The error says what was expected and what was found.
Result<Control> parse_control(std::string_view text);

/// One encoded frame, shared by every client.
struct LiveFrame {
  std::shared_ptr<const std::vector<std::uint8_t>> bytes;
  std::uint32_t seq = 0;
  bool key = false;
};

/// Figures of the live simulation (GET /live/stats).
struct LiveStats {
  std::uint64_t ticks = 0;
  double time_s = 0;
  double ticks_per_s = 0;          ///< Measured over the last second or so of wall time.
  double target_ticks_per_s = 0;   ///< 1 / dt x speed.
  std::uint64_t ticks_behind = 0;  ///< Ticks given up because the runner fell behind.
  std::uint64_t frames = 0;
  std::uint64_t frame_bytes = 0;    ///< Sum of encoded frame sizes.
  std::uint64_t agent_samples = 0;  ///< Sum of agents over encoded frames.
  std::uint32_t agents = 0;         ///< In the last frame.
  std::uint32_t vehicles = 0;       ///< Moving vehicles now.
  std::uint32_t pedestrians = 0;    ///< Active pedestrians now.
  double wall_s = 0;                ///< Since the runner started.
  std::string weather = "clear";
  bool fog = false;
  std::uint32_t players = 0;
  /// The first player's state when there is one: snapped lane (or -1 off the road), s, speed.
  std::int64_t player_lane = -1;
  double player_s_m = 0;
  double player_speed_mps = 0;
  /// Pedestrians knocked down by players' cars ("hit" messages that were accepted) and hits
  /// refused (no car, unknown or already down pedestrian, too far from the car).
  std::uint32_t casualties = 0;
  std::uint32_t hits_refused = 0;
  std::uint32_t ranks = 1;  ///< MPI ranks the simulation is shared over.
};

/// Builds the city's simulations, then (after start()) ticks them every dt_s / speed of wall
/// time on its own thread. After each tick it encodes one frame (traffic::StreamEncoder) and
/// hands it to the frame sink; the sink runs on the simulation thread and must not block.
/// Control messages are queued (any thread) and applied between ticks.
class LiveSim {
 public:
  using FrameSink = std::function<void(const LiveFrame&)>;
  using TextSink = std::function<void(std::shared_ptr<const std::string>)>;

  /// Errors name the city file that was wrong (as `simulate` does).
  static Result<std::unique_ptr<LiveSim>> create(const LiveOptions& options);
  ~LiveSim();
  LiveSim(const LiveSim&) = delete;
  LiveSim& operator=(const LiveSim&) = delete;

  /// Starts the simulation thread. `frames` gets every frame, `env` every change of the
  /// shared environment (a {"type":"env"} JSON text).
  void start(FrameSink frames, TextSink env);
  /// Stops and joins the simulation thread (idempotent). Over ranks, on rank 0: the other ranks
  /// are told, and their follow() returns.
  void stop();
  /// Over ranks, on every rank but 0 (instead of start()): ticks as rank 0's simulation thread
  /// says, with the controls it applied, in the same order, until rank 0 stops. The state is
  /// rank 0's, bit for bit, and so are the frames it streams (docs/live.md, "Over MPI ranks").
  void follow();

  /// The hello message (text JSON, "type":"hello"), fixed for the run.
  std::shared_ptr<const std::string> hello() const;
  /// The current environment message (text JSON, "type":"env").
  std::shared_ptr<const std::string> env() const;
  /// Queues a client's control message; applied before the next tick.
  void post(std::uint64_t client, const Control& control);
  /// A client left: its player car goes.
  void client_gone(std::uint64_t client);
  LiveStats stats() const;
  /// One line for the console: what runs.
  std::string summary() const;

 private:
  struct Impl;
  explicit LiveSim(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace cityforge::server
