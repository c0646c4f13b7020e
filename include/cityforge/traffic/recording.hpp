// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/traffic/network.hpp"

/// The `.cfrec` recording of a simulation run: what the viewer plays back. Byte layout in
/// docs/recording.md. Positions and headings are quantised per frame; parked vehicles are
/// stored once; signal and walk states per frame, two bits per lane.
namespace cityforge::traffic {

/// Entity kinds in a recording (a u8 per record).
enum class EntityKind : std::uint8_t { car, van, bus, truck, player, pedestrian };
const char* to_string(EntityKind k);

/// Bits of VehicleSample::flags.
enum SampleFlag : std::uint8_t {
  kSampleBraking = 1U << 0U,       ///< Decelerating harder than 1 m/s^2 (brake lights).
  kSampleLaneChange = 1U << 1U,    ///< In a lateral move between lanes.
  kSampleWaiting = 1U << 2U,       ///< Stopped at a signal, stop line or yield line.
  kSampleNew = 1U << 3U,           ///< First frame of this id (do not interpolate from before).
  kSampleIndicateLeft = 1U << 4U,  ///< Turn signal, from its next connector or lane change.
  kSampleIndicateRight = 1U << 5U,
};

/// Signal state of a connector lane (2 bits per lane in a frame).
enum class LightState : std::uint8_t { red = 0, green = 1, yellow = 2, off = 3 };
/// Pedestrian signal of a crosswalk lane (2 bits per lane in a frame).
enum class WalkState : std::uint8_t { dont_walk = 0, walk = 1, flashing = 2, off = 3 };

/// One vehicle in one frame, unquantised.
struct VehicleSample {
  std::uint32_t id = 0;  ///< Entity index: stable for the vehicle's life in the recording.
  EntityKind kind = EntityKind::car;
  std::uint8_t flags = 0;  ///< SampleFlag bits.
  Vec3 position;           ///< Metres; the vehicle's front-axle centre on the road surface.
  double heading_rad = 0;  ///< Counter-clockwise from +x.
  double speed_mps = 0;
  std::uint8_t lod = 0;       ///< Level of detail (0 high, 1 medium, 2 low, 3 off).
  std::uint8_t state = 0;     ///< Pedestrians: crowd::Behaviour; vehicles: 0.
  std::uint16_t variant = 0;  ///< Appearance variant (pedestrians).
};

/// What a recording holds besides its frames.
struct RecordingInfo {
  double tick_s = 0.1;            ///< Simulation tick length.
  double frame_interval_s = 0.1;  ///< Simulated time between frames (a multiple of tick_s).
  /// Quantisation box: positions are stored as u16 steps of extent / 65535 from `origin`.
  Vec3 origin;
  Vec3 extent{1, 1, 1};
  std::uint64_t seed = 0;
  std::vector<LaneId> signal_lanes;     ///< Connector lanes whose LightState each frame holds.
  std::vector<LaneId> crosswalk_lanes;  ///< Crosswalk lanes whose WalkState each frame holds.
  std::vector<VehicleSample> parked;    ///< Parked vehicles, stored once.
};

struct RecordedFrame {
  std::uint64_t tick = 0;
  double time_s = 0;
  std::vector<VehicleSample> vehicles;  ///< Dequantised.
  std::vector<LightState> lights;       ///< One per RecordingInfo::signal_lanes.
  std::vector<WalkState> walks;         ///< One per RecordingInfo::crosswalk_lanes.
};

/// Writes a recording to `path` + ".tmp" and renames it to `path` on close(), so a failed or
/// interrupted run leaves no half-written recording. Frames are appended as they come; a frame
/// index at the end lets readers seek.
class RecordingWriter {
 public:
  static Result<RecordingWriter> open(const std::string& path, const RecordingInfo& info);
  RecordingWriter(RecordingWriter&& other) noexcept;
  RecordingWriter& operator=(RecordingWriter&& other) noexcept;
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;
  ~RecordingWriter();  ///< Removes the temporary file when close() was not called.

  /// Appends a frame. `lights` and `walks` have one entry per info's signal / crosswalk lane.
  Status write_frame(std::uint64_t tick, double time_s, std::span<const VehicleSample> vehicles,
                     std::span<const LightState> lights, std::span<const WalkState> walks);
  /// Writes the index and renames the file into place.
  Status close();
  std::uint64_t bytes_written() const { return m_bytes; }
  std::uint32_t frames_written() const { return static_cast<std::uint32_t>(m_offsets.size()); }

 private:
  RecordingWriter() = default;
  std::FILE* m_file = nullptr;
  std::string m_path;
  RecordingInfo m_info;
  std::vector<std::uint64_t> m_offsets;
  std::uint64_t m_bytes = 0;
  std::vector<unsigned char> m_buffer;
};

/// A whole recording, decoded.
struct Recording {
  RecordingInfo info;
  std::vector<RecordedFrame> frames;
};
/// Reads and checks a recording (magic, version, sizes, index); errors name the file and the
/// byte offset where it went wrong.
Result<Recording> read_recording(const std::string& path);
/// The same for a recording held in memory; `name` stands for the file in errors.
Result<Recording> parse_recording(std::span<const unsigned char> bytes, const std::string& name);

}  // namespace cityforge::traffic
