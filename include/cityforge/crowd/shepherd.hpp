// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/core/result.hpp"
#include "cityforge/core/rng.hpp"
#include "cityforge/core/vec.hpp"
#include "cityforge/crowd/walk_network.hpp"

/// Shepherds (seeds/002, "the bulk system"): containers of cheap crowd members.
/// - A static shepherd is a group a level designer places: a polygon, a count and a density.
///   Its members' positions are generated deterministically on the walkable lanes inside the
///   polygon, saved in shepherds.json, may be edited there by hand, and are loaded unchanged.
/// - The wandering shepherd owns closed paths over the sidewalks; each member's position is a
///   pure function of time, so off-LOD members cost nothing and any two machines agree.
namespace cityforge::crowd {

/// A pedestrian's centre keeps this far from the edges of its lane (metres).
inline constexpr float kEdgeMarginM = 0.3f;

/// Largest |lateral offset| on a lane: half its width less kEdgeMarginM, never below 0.
float lateral_limit(const WalkNetwork& walk, LaneId lane);

/// Position (z from the lane) and heading of the walking direction at `p`, moved lateral_m to
/// the left of the walking direction (so the same lateral_m is the same side of the walker
/// whichever way the lane is walked).
traffic::LanePose walk_pose(const WalkNetwork& walk, WalkPoint p, double lateral_m);

// -- Static shepherds ----------------------------------------------------------------------------

/// What the members of a static group do.
enum class ShepherdBehaviour : std::uint8_t {
  idle,         ///< Stand.
  look_around,  ///< Stand and turn the head / body now and then.
};
/// "idle" or "look_around".
const char* to_string(ShepherdBehaviour b);
/// Parses a name as printed by to_string; false if unknown.
bool shepherd_behaviour_from_string(std::string_view name, ShepherdBehaviour* out);

/// A static group as the city config places it.
struct ShepherdSpec {
  std::string name;           ///< Keys the group's random stream (hash of the name).
  std::vector<Vec2> polygon;  ///< The volume's footprint, x y metres (z is not used). >= 3 points.
  std::uint32_t count = 0;    ///< Members wanted.
  /// Members per m2 of walkable area inside the polygon: the group gets
  /// min(count, floor(density x walkable area)) members. 0: no cap.
  double density_per_m2 = 0;
  ShepherdBehaviour behaviour = ShepherdBehaviour::idle;
  /// Weight per appearance variant (index = variant); empty: uniform over
  /// PlaceOptions::variants.
  std::vector<double> variant_mix;
};

/// One member of a static group. Its id is its index in ShepherdGroup::members.
struct ShepherdMember {
  WalkPoint at;           ///< A sidewalk or crosswalk lane, s_m in [0, length]; dir: way it faces.
  float lateral_m = 0;    ///< Left of the walking direction `at.dir`, |.| <= lateral_limit.
  float heading_rad = 0;  ///< Where it faces, counter-clockwise from +x.
  std::uint16_t variant = 0;
};
bool operator==(const ShepherdMember& a, const ShepherdMember& b);

/// A placed group: its spec and its members.
struct ShepherdGroup {
  ShepherdSpec spec;
  std::vector<ShepherdMember> members;
};

/// Options of place_shepherds.
struct PlaceOptions {
  float min_spacing_m = 0.6f;           ///< Members' centres keep this far apart. [Limit: >= 0]
  std::uint32_t tries_per_member = 40;  ///< Candidate points drawn per wanted member at most.
  std::uint16_t variants = 8;           ///< Variants when the spec has no mix. [Limit: >= 1]
  float sample_step_m = 0.5f;           ///< Arc step measuring the lanes inside. [Limit: > 0]
  bool crosswalks = false;              ///< Also stand on crosswalks (in the road!).
};

/// What place_shepherds did.
struct PlaceReport {
  /// Walkable area inside the polygon: sum over sidewalk samples whose centre-line point is
  /// inside of lane width x sample step (m2).
  double walkable_area_m2 = 0;
  std::uint32_t wanted = 0;  ///< min(count, floor(density x walkable area)).
  std::uint32_t placed = 0;  ///< Members placed (< wanted when no free spot was found in time).
  std::uint32_t tries = 0;   ///< Candidate points drawn.
};

/// Places the members of a static group on the sidewalk lanes (crosswalks with
/// options.crosswalks) inside the polygon: a lane is picked in proportion to its walkable area
/// inside, then s uniform along its inside part, lateral uniform in +-lateral_limit, a walking
/// direction and a facing uniform, a variant from the mix. A candidate whose offset point is
/// outside the polygon or nearer than min_spacing_m to a placed member is dropped; at most
/// tries_per_member x wanted candidates are drawn (best effort: the report says how many were
/// placed). Every draw comes from Rng(seed, Stage::crowd, hash_string(spec.name)), so the same
/// network, spec and seed give the same members in the same order.
/// Errors: a polygon of < 3 points or non-finite coordinates, a negative density, a variant mix
/// with a negative, non-finite or all-zero weight.
Result<ShepherdGroup> place_shepherds(const WalkNetwork& walk, const ShepherdSpec& spec, Seed seed,
                                      const PlaceOptions& options = {},
                                      PlaceReport* report = nullptr);

/// The point of a walkable lane (sidewalks only unless `crosswalks`) nearest to (x, y): lane,
/// arc length, walking direction +1, and the signed lateral offset (left of the lane's
/// direction) clamped to lateral_limit. Brute force over the lanes' segments. False when the
/// network has no such lane.
bool snap_to_walk(const WalkNetwork& walk, Vec2 xy, bool crosswalks, WalkPoint* at,
                  float* lateral_m);

// -- The wandering shepherd ----------------------------------------------------------------------

/// A closed path over the sidewalks: the exit end of each step touches the entry end of the
/// next (they are WalkNetwork exits) and the last step's exit touches the first's entry.
struct WanderingPath {
  std::vector<WalkStep> steps;
  /// Arc length at the entry of each step; size steps + 1, start_m[0] = 0, start_m.back() =
  /// the loop's length. Lane lengths are the network's (float) summed in double.
  std::vector<double> start_m;
  double length_m() const { return start_m.empty() ? 0.0 : start_m.back(); }
};

/// Fills start_m for `steps` from the network's lane lengths.
WanderingPath make_path(const WalkNetwork& walk, std::vector<WalkStep> steps);

/// Closed loops for the wandering shepherd. Candidates are the cycles of the sidewalk network
/// without crosswalks (a member's position must not depend on signals): following, from every
/// sidewalk lane end, its first sidewalk exit (lowest lane id) gives each block's perimeter,
/// once in each walking direction. Cycles shorter than min_length_m are dropped unless none is
/// long enough (then all are candidates). `count` cycles are drawn without replacement, each
/// with weight sum over its lanes of length x (0.05 + pedestrian_density) (so paths spread over
/// the city, more where people walk), each rotated to start at a random step; fewer when fewer
/// cycles exist. Deterministic: Rng(seed, Stage::crowd, "wandering"). Paths are in draw order.
std::vector<WanderingPath> make_wandering_paths(const WalkNetwork& walk, std::uint32_t count,
                                                double min_length_m, Seed seed);

/// A member of the wandering shepherd: walks `path` at a constant speed forever.
struct WanderingMember {
  std::uint32_t path = 0;  ///< Index into the paths.
  double phase_m = 0;      ///< Arc length along the path at time 0, [0, length).
  float speed_mps = 1.4f;  ///< > 0.
  float lateral_m = 0;     ///< Left of the walking direction; clamped per lane (lateral_limit).
  std::uint16_t variant = 0;
};
bool operator==(const WanderingMember& a, const WanderingMember& b);

/// `count` members spread over the paths in proportion to their lengths, phase uniform along
/// the path, speed uniform in [1.1, 1.6] m/s, lateral uniform in +-0.8 x the path's narrowest
/// lateral_limit. Variants by region (seeds/002: "depending on the region you'll have different
/// models"): a path's region is the 400 m cell of its first point; each region draws from
/// variants / 2 consecutive variants (at least 1) starting at a hash of the cell.
/// Deterministic: Rng(seed, Stage::crowd, "wandering members", member index).
std::vector<WanderingMember> make_wandering_members(const WalkNetwork& walk,
                                                    const std::vector<WanderingPath>& paths,
                                                    std::uint32_t count, Seed seed,
                                                    std::uint16_t variants = 8);

/// Where a wandering member is.
struct WanderingPose {
  WalkPoint at;            ///< Lane, arc length from the lane's start, walking direction.
  float lateral_m = 0;     ///< The member's lateral_m clamped to the lane's lateral_limit.
  std::uint32_t step = 0;  ///< Index into path.steps (the hint for advance_member).
};

/// Arc length along the path at time_s: fmod(phase_m + speed_mps x time_s, length), in double,
/// in [0, length).
double wandering_arc(const WanderingPath& path, const WanderingMember& m, double time_s);

/// The member's pose at time_s, a pure function of (network, path, member, time_s): the step is
/// found by binary search on start_m. Callers ticking at dt_s should pass tick_index x dt_s, not
/// a running sum, so every machine and every LOD evaluates the same time values.
WanderingPose member_at(const WalkNetwork& walk, const WanderingPath& path,
                        const WanderingMember& m, double time_s);

/// Same result as member_at, bit for bit, found by walking forward from `step_hint` (the step
/// of an earlier pose; any value is accepted): O(steps passed) instead of O(log steps), for the
/// per-tick update. Only the step index is cached; the arc is recomputed from time.
WanderingPose advance_member(const WalkNetwork& walk, const WanderingPath& path,
                             const WanderingMember& m, double time_s, std::uint32_t step_hint);

// -- shepherds.json ------------------------------------------------------------------------------

/// Everything shepherds.json holds (docs/crowd.md): the static groups with their members, and
/// the wandering shepherd's paths and members.
struct ShepherdsFile {
  std::vector<ShepherdGroup> groups;
  std::vector<WanderingPath> paths;
  std::vector<WanderingMember> walkers;
};

/// The JSON text of a shepherds file. Floats are printed in their shortest form that reads
/// back to the same value, so write -> read -> write is byte-identical.
std::string shepherds_json(const ShepherdsFile& file);

/// Reads a shepherds file against the walk network it was generated for. Strict: unknown keys,
/// wrong types and out-of-range values are errors naming `name` and the place
/// ("shepherds.json: groups[2].members[5].lane: expected a sidewalk or crosswalk lane id, found
/// 17 (a vehicle lane)"). A member is either {"lane", "s_m", "dir"?, "lateral_m"?,
/// "heading_rad"?, "variant"?} (s_m in [0, lane length + 1 mm], clamped to the length;
/// |lateral_m| <= lateral_limit + 1 mm)
/// or, edited by hand, {"x", "y", "heading_rad"?, "variant"?}: then it is snapped to the nearest
/// sidewalk point (snap_to_walk, no crosswalks). Wandering paths must be closed chains of
/// sidewalk steps (each next step an exit of the previous one; no crosswalks); members name a
/// path, phase_m in [0, length + 1 cm] (used modulo the length), speed_mps in (0, 10]. The
/// slack lets a file placed on the in-memory lane graph load against lanes.json, whose
/// coordinates are rounded to 9 digits.
Result<ShepherdsFile> parse_shepherds_json(std::string_view text, const std::string& name,
                                           const WalkNetwork& walk);
/// Same, from a file; errors name `path` as given ("out/shepherds.json: groups[0]...").
Result<ShepherdsFile> load_shepherds_json(const std::string& path, const WalkNetwork& walk);

}  // namespace cityforge::crowd
