// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/traffic/recording.hpp"

/// The live stream of `cityforge serve --live` (docs/live.md): one binary WebSocket message per
/// frame, quantised and delta-coded against the previous frame, with a key frame (decodable on
/// its own) every `key_every` frames. The same encoder output goes to every client; a client
/// that joins or falls behind waits for the next key frame. viewer/src/live/decode.js is the
/// browser's decoder of the same bytes.
namespace cityforge::traffic {

namespace detail {
/// One agent as the codec holds it between frames: quantised fields and its last position step.
struct StreamAgent {
  std::uint64_t key = 0;                ///< class << 32 | id; class 0 vehicles, 1 pedestrians.
  std::int32_t x = 0, y = 0, z = 0;     ///< Steps of step_m from the origin.
  std::int32_t dx = 0, dy = 0, dz = 0;  ///< Position change from the frame before (prediction).
  std::uint16_t heading = 0;            ///< Steps of 2 pi / kStreamHeadingSteps.
  std::uint16_t speed = 0;              ///< 0.1 m/s.
  std::uint16_t variant = 0;
  std::uint8_t kind = 0;
  std::uint8_t flags = 0;
  std::uint8_t lod = 0;
  std::uint8_t state = 0;
};
}  // namespace detail

/// Heading quantum of the stream: 2 pi / this.
inline constexpr std::uint32_t kStreamHeadingSteps = 1024;
/// Stream format version (docs/live.md); the hello message and every frame carry it.
inline constexpr std::uint8_t kStreamVersion = 1;

struct StreamConfig {
  Vec3 origin;                   ///< Positions are quantised as integer steps from here.
  float step_m = 0.02f;          ///< Position quantum (x, y, z). [Limit: > 0]
  std::uint32_t key_every = 10;  ///< A key frame every this many frames. [Limit: >= 1]
};

/// One decoded frame (tests, tools and the bench; the browser has its own decoder).
struct StreamFrame {
  bool key = false;
  std::uint32_t seq = 0;  ///< Frame number, +1 per encoded frame.
  std::uint64_t tick = 0;
  double time_s = 0;
  float ticks_per_s = 0;  ///< The simulation's measured rate, as the server reports it.
  /// Every agent of the frame, in key order (vehicles by id, then pedestrians by id; the
  /// player, if any, is a vehicle with kind player). Dequantised: positions within step_m / 2,
  /// headings within 2 pi / 1024 of the encoded samples; speed within 0.1 m/s.
  std::vector<VehicleSample> agents;
  std::vector<LightState> lights;  ///< One per signal lane of the hello message.
  std::vector<WalkState> walks;    ///< One per crosswalk lane of the hello message.
};

class StreamEncoder {
 public:
  explicit StreamEncoder(const StreamConfig& config);
  /// Encodes one frame. `agents` in any order (vehicles and pedestrians; ids unique per kind
  /// class; of duplicates the first is kept). A key frame when seq % key_every == 0 or
  /// `force_key`. Out-of-range values are clamped, never rejected (docs/live.md). Same inputs
  /// in the same order of calls give the same bytes. Input already in key order (vehicles by
  /// id, then pedestrians by id) skips a sort.
  std::vector<std::uint8_t> encode(std::uint64_t tick, double time_s, float ticks_per_s,
                                   std::span<const VehicleSample> agents,
                                   std::span<const LightState> lights,
                                   std::span<const WalkState> walks, bool force_key = false);
  bool last_was_key() const { return m_last_key; }
  std::uint32_t next_seq() const { return m_seq; }
  const StreamConfig& config() const { return m_config; }

 private:
  StreamConfig m_config;
  std::uint32_t m_seq = 0;
  bool m_last_key = false;
  std::vector<detail::StreamAgent> m_prev;  // Previous frame, quantised, in key order.
  std::vector<detail::StreamAgent> m_cur;   // Scratch for the frame being encoded.
  std::vector<std::uint8_t> m_prev_lights;  // Previous frame's light states.
  std::vector<std::uint8_t> m_prev_walks;   // Previous frame's walk states.
};

/// Decodes a stream of frames in order. A delta frame needs the frame before it (seq - 1);
/// otherwise decode fails with "missing frame" and the caller waits for a key frame.
class StreamDecoder {
 public:
  explicit StreamDecoder(const StreamConfig& config);
  /// Errors name the byte offset and what was expected (magic, version, counts, truncation).
  Result<StreamFrame> decode(std::span<const std::uint8_t> message);

 private:
  StreamConfig m_config;
  bool m_have = false;
  std::uint32_t m_seq = 0;                  // Seq of the last decoded frame.
  std::vector<detail::StreamAgent> m_prev;  // Last decoded frame, quantised, in key order.
  std::vector<LightState> m_lights;
  std::vector<WalkState> m_walks;
};

/// The hello message a client gets first (text JSON): format, version, tick_s, frame_hz,
/// origin, step_m, key_every, signal_lanes, crosswalk_lanes and the inbound limits.
std::string stream_hello_json(const StreamConfig& config, double tick_s, double frame_hz,
                              std::span<const LaneId> signal_lanes,
                              std::span<const LaneId> crosswalk_lanes,
                              std::uint32_t max_message_bytes, double max_messages_per_s);

}  // namespace cityforge::traffic
