// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cityforge/core/vec.hpp"

/// Levels of detail for agents (pedestrians and vehicles) and the pool of full-fidelity agent
/// slots (seeds/002: autonomous < 12 m, puppet 12-40 m, low-res beyond, autonomous and puppet
/// only inside a camera cone; seeds/000 minutes 50-56: per-level budgets).
namespace cityforge::crowd {

/// high: full behaviour and avoidance every tick; medium: avoidance at a lower rate; low: lane
/// following only; off: position known analytically, no per-tick work.
enum class Lod : std::uint8_t { high = 0, medium = 1, low = 2, off = 3 };
inline constexpr std::size_t kLods = 4;
const char* to_string(Lod lod);

/// Where the LOD is seen from.
struct Viewer {
  Vec3 position;
  double yaw_rad = 0;  ///< Camera heading, counter-clockwise from +x (looking along it).
};

/// LOD settings of one kind of agent. Budgets cap how many agents each level may hold; agents
/// beyond a budget fall to the next level (off is unbounded).
struct LodConfig {
  bool enabled = true;     ///< false: every agent is high (full fidelity), no budgets.
  float high_m = 12.0f;    ///< Distance to the viewer below which an agent may be high...
  float medium_m = 40.0f;  ///< ...medium...
  float low_m = 150.0f;    ///< ...low; beyond: off.
  /// Half-angle of the camera cone (degrees) outside which high and medium are not given.
  /// An agent within `near_m` of the viewer counts as inside the cone whatever its bearing.
  float cone_half_angle_deg = 60.0f;
  float near_m = 3.0f;
  /// An agent keeps its level until it is this much farther than the level's distance (or this
  /// many degrees outside the cone); it gets a better level only when inside the distance.
  float hysteresis_m = 4.0f;
  float hysteresis_deg = 5.0f;
  std::uint32_t budget_high = 10;
  std::uint32_t budget_medium = 20;
  std::uint32_t budget_low = 500;
};
/// Budgets of the source (seeds/000): pedestrians 10 / 20 / 500, vehicles 10 / 150 / 5,000.
LodConfig pedestrian_lod();
LodConfig vehicle_lod();

/// Assigns levels. Deterministic: ties broken by agent index; no dependence on thread count.
/// Rule, per agent: the wanted level is the best level whose distance (and, for high and
/// medium, the cone) admits it, where an agent already at a level is admitted with the
/// hysteresis margins. Then budgets: agents wanting high are ranked by distance (agents already
/// high ranked first, so a full budget is not churned by a newcomer a hair closer) and the
/// first budget_high keep it; the rest compete for medium with those wanting medium, and so on
/// down to off. Never more than the budget of a level after assign().
class LodAssigner {
 public:
  explicit LodAssigner(const LodConfig& config);
  /// `positions[i]` is agent i; `levels[i]` holds its current level on entry (Lod::off for a
  /// new agent) and its new level on return. Sizes must match.
  void assign(std::span<const Vec3> positions, const Viewer& viewer, std::span<Lod> levels);
  /// Agents per level after the last assign().
  const std::uint32_t* counts() const { return m_counts; }
  const LodConfig& config() const { return m_config; }

 private:
  LodConfig m_config;
  std::uint32_t m_counts[kLods] = {0, 0, 0, 0};
  std::vector<std::uint64_t> m_keys;  // Scratch: (rank key, agent) per level.
};

/// One agent offered to the pool: stable id (never a pointer: slots are recycled), its
/// appearance variant and its distance to the viewer.
struct PoolCandidate {
  std::uint32_t id = 0;
  std::uint16_t variant = 0;
  float distance_m = 0;
};

/// The bulk system's pool (seeds/002): a fixed number of full-fidelity slots, each with an
/// appearance variant. Every update the slots go to the nearest candidates (agents already
/// holding a slot keep it while they remain among the nearest), a slot with the agent's variant
/// preferred, any slot otherwise (a mismatch: visual popping, counted). The pool's own mix of
/// variants follows a target mix (the statistics of the crowd around the viewer): at most
/// `max_changes` free slots per update are re-dressed from the most over-represented variant to
/// the most under-represented one, so the pie chart on the right follows the one on the left.
class AgentPool {
 public:
  /// slots > 0, variants > 0, max_changes >= 1. Slots start dressed round-robin.
  AgentPool(std::uint32_t slots, std::uint32_t variants, std::uint32_t max_changes);

  /// `candidates`: the agents that want a slot (e.g. those at high and medium LOD), any order.
  /// `target`: wanted share per variant (size = variants, any non-negative scale; e.g. counts of
  /// variants among the agents near the viewer). Deterministic.
  void update(std::span<const PoolCandidate> candidates, std::span<const double> target);

  static constexpr std::uint32_t kFree = 0xffffffffU;
  std::uint32_t slots() const { return static_cast<std::uint32_t>(m_variant.size()); }
  std::uint32_t agent_in(std::uint32_t slot) const { return m_agent[slot]; }  ///< Or kFree.
  std::uint16_t variant_of(std::uint32_t slot) const { return m_variant[slot]; }
  /// Slot held by an agent id, or kFree.
  std::uint32_t slot_of(std::uint32_t id) const;
  /// Share of slots per variant (sums to 1).
  std::vector<double> mix() const;
  /// Totals since construction.
  std::uint64_t assignments() const { return m_assignments; }
  std::uint64_t mismatches() const { return m_mismatches; }
  std::uint64_t redresses() const { return m_redresses; }

 private:
  std::uint32_t m_variants;
  std::uint32_t m_max_changes;
  std::vector<std::uint16_t> m_variant;                             // Per slot.
  std::vector<std::uint32_t> m_agent;                               // Per slot: agent id or kFree.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> m_by_agent;  // (id, slot), sorted.
  std::uint64_t m_assignments = 0;
  std::uint64_t m_mismatches = 0;
  std::uint64_t m_redresses = 0;
};

}  // namespace cityforge::crowd
