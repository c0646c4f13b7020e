// SPDX-License-Identifier: Apache-2.0
// The bulk system's pool of full-fidelity agent slots. Based on: seeds/002 (a fixed pool of
// dressed agents handed to the nearest crowd members, the pool's mix of appearances following
// the statistics of the crowd around the viewer, a few re-dresses per update).
//
// Each update: choose the nearest `slots()` candidates (ties by id), free the slots of agents
// no longer chosen, seat the newly chosen nearest first (a free slot of their variant if any,
// else a mismatch), then re-dress at most max_changes free slots from the most over-represented
// variant towards the most under-represented one.
#include <algorithm>
#include <bit>
#include <functional>
#include <numeric>

#include "cityforge/core/assert.hpp"
#include "cityforge/crowd/lod.hpp"

namespace cityforge::crowd {

namespace {

/// (distance bits, id): unsigned order is nearest first, ties by id. Negative distances count
/// as 0.
std::uint64_t rank_key(const PoolCandidate& c) {
  const float d = c.distance_m > 0.0f ? c.distance_m : 0.0f;
  return (std::uint64_t{std::bit_cast<std::uint32_t>(d)} << 32U) | c.id;
}

constexpr std::uint64_t kIdMask = 0xffffffffULL;

}  // namespace

AgentPool::AgentPool(std::uint32_t slots, std::uint32_t variants, std::uint32_t max_changes)
    : m_variants(variants), m_max_changes(max_changes) {
  CF_ASSERT(slots > 0, "AgentPool: at least one slot");
  CF_ASSERT(variants > 0 && variants <= 0x10000U, "AgentPool: 1..65536 variants");
  CF_ASSERT(max_changes >= 1, "AgentPool: max_changes >= 1");
  m_variant.resize(slots);
  for (std::uint32_t s = 0; s < slots; ++s)
    m_variant[s] = static_cast<std::uint16_t>(s % variants);
  m_agent.assign(slots, kFree);
}

std::uint32_t AgentPool::slot_of(std::uint32_t id) const {
  const auto it = std::lower_bound(m_by_agent.begin(), m_by_agent.end(),
                                   std::pair<std::uint32_t, std::uint32_t>{id, 0U});
  return it != m_by_agent.end() && it->first == id ? it->second : kFree;
}

std::vector<double> AgentPool::mix() const {
  std::vector<double> share(m_variants, 0.0);
  for (const std::uint16_t v : m_variant)
    share[v] += 1.0;
  for (double& s : share)
    s /= static_cast<double>(m_variant.size());
  return share;
}

void AgentPool::update(std::span<const PoolCandidate> candidates, std::span<const double> target) {
  CF_ASSERT(target.size() == m_variants, "AgentPool::update: one target share per variant");
  const std::uint32_t n_slots = slots();

  // 1. Choose the nearest slots() candidates, nearest first.
  std::vector<std::uint64_t> chosen(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i)
    chosen[i] = rank_key(candidates[i]);
  if (chosen.size() > n_slots) {
    std::nth_element(chosen.begin(), chosen.begin() + n_slots, chosen.end());
    chosen.resize(n_slots);
  }
  std::sort(chosen.begin(), chosen.end());
  // Ids of the chosen, sorted, to test membership; variants looked up by id.
  std::vector<std::pair<std::uint32_t, std::uint16_t>> by_id;
  by_id.reserve(candidates.size());
  for (const PoolCandidate& c : candidates)
    by_id.emplace_back(c.id, c.variant);
  std::sort(by_id.begin(), by_id.end());
  CF_ASSERT(std::adjacent_find(by_id.begin(), by_id.end(),
                               [](const auto& a, const auto& b) { return a.first == b.first; }) ==
                by_id.end(),
            "AgentPool::update: candidate ids are unique");
  std::vector<std::uint32_t> chosen_ids(chosen.size());
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    chosen_ids[i] = static_cast<std::uint32_t>(chosen[i] & kIdMask);
  }
  std::sort(chosen_ids.begin(), chosen_ids.end());

  // 2. Free the slots of agents no longer chosen.
  for (std::uint32_t s = 0; s < n_slots; ++s) {
    if (m_agent[s] != kFree &&
        !std::binary_search(chosen_ids.begin(), chosen_ids.end(), m_agent[s])) {
      m_agent[s] = kFree;
    }
  }

  // 3. Seat the newly chosen, nearest first: a free slot of their variant (lowest slot) if
  // any, else the lowest free slot of the variant with most free slots (a mismatch).
  std::vector<std::vector<std::uint32_t>> free_of(m_variants);  // Descending: pop lowest.
  for (std::uint32_t s = n_slots; s-- > 0;) {
    if (m_agent[s] == kFree) free_of[m_variant[s]].push_back(s);
  }
  for (const std::uint64_t key : chosen) {
    const auto id = static_cast<std::uint32_t>(key & kIdMask);
    if (slot_of(id) != kFree) continue;  // m_by_agent still lists last update's seats.
    const auto found = std::lower_bound(by_id.begin(), by_id.end(),
                                        std::pair<std::uint32_t, std::uint16_t>{id, 0});
    std::uint32_t v = found->second < m_variants ? found->second : 0U;
    if (free_of[v].empty()) {
      ++m_mismatches;
      v = 0;
      for (std::uint32_t w = 1; w < m_variants; ++w) {
        if (free_of[w].size() > free_of[v].size()) v = w;
      }
    }
    CF_ASSERT(!free_of[v].empty(), "AgentPool::update: a chosen agent always finds a slot");
    m_agent[free_of[v].back()] = id;
    free_of[v].pop_back();
    ++m_assignments;
  }

  // 4. Re-dress free slots towards the target: from the free variant most over its target
  // count to the variant most under it, only while that narrows the gap (excess difference >
  // 1), so a settled pool does not oscillate.
  const double total = std::accumulate(target.begin(), target.end(), 0.0,
                                       [](double a, double t) { return a + std::max(t, 0.0); });
  if (total > 0.0) {
    std::vector<double> excess(m_variants);
    for (std::uint32_t v = 0; v < m_variants; ++v) {
      excess[v] = -std::max(target[v], 0.0) / total * n_slots;
    }
    for (const std::uint16_t v : m_variant)
      excess[v] += 1.0;
    for (std::uint32_t change = 0; change < m_max_changes; ++change) {
      std::uint32_t from = m_variants;
      std::uint32_t to = 0;
      for (std::uint32_t v = 0; v < m_variants; ++v) {
        if (!free_of[v].empty() && (from == m_variants || excess[v] > excess[from])) from = v;
        if (excess[v] < excess[to]) to = v;
      }
      if (from == m_variants || excess[from] - excess[to] <= 1.0) break;
      // Re-dress the highest free slot of `from`, keeping low slots for seating.
      const std::uint32_t s = free_of[from].front();
      free_of[from].erase(free_of[from].begin());
      m_variant[s] = static_cast<std::uint16_t>(to);
      free_of[to].insert(
          std::upper_bound(free_of[to].begin(), free_of[to].end(), s, std::greater<>()), s);
      excess[from] -= 1.0;
      excess[to] += 1.0;
      ++m_redresses;
    }
  }

  // 5. Rebuild the (id, slot) index.
  m_by_agent.clear();
  for (std::uint32_t s = 0; s < n_slots; ++s) {
    if (m_agent[s] != kFree) m_by_agent.emplace_back(m_agent[s], s);
  }
  std::sort(m_by_agent.begin(), m_by_agent.end());
}

}  // namespace cityforge::crowd
