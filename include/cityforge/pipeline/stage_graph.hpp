// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cityforge/core/result.hpp"

namespace cityforge::pipeline {

/// What one stage did in one run.
struct StageStats {
  std::string name;
  double wall_s = 0.0;           ///< 0 when served from the cache.
  std::int64_t peak_rss_kb = 0;  ///< Process peak resident memory while it ran (Linux).
  bool cached = false;           ///< Served from the cache without running.
  std::uint64_t key = 0;         ///< Content hash of (name, version, config slice, inputs).
};

/// Told about stages as they start and finish (progress display, logs). Called from the thread
/// that runs the stage.
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void stage_started(const std::string& name) = 0;
  virtual void stage_finished(const StageStats& stats) = 0;
};

/// A type-erased stage output.
using Value = std::shared_ptr<const void>;

/// One node of the stage graph: a pure function of its inputs and its config slice.
struct StageNode {
  std::string name;
  std::uint32_t version = 1;        ///< Bump when the algorithm changes to invalidate caches.
  std::vector<std::size_t> inputs;  ///< Indices of earlier nodes it reads.
  std::string config_slice;         ///< Canonical text of the config it reads (hashed).
  std::function<Result<Value>(const std::vector<Value>& inputs)> run;
};

/// Outputs kept across runs, keyed by content hash: a stage whose name, version, config slice
/// and input keys are unchanged is served from here instead of running. Thread-safe.
class StageCache {
 public:
  /// Keeps at most `per_stage` outputs per stage name (oldest dropped first).
  explicit StageCache(std::size_t per_stage = 4) : m_per_stage(per_stage) {}
  Value find(const std::string& name, std::uint64_t key) const;
  void store(const std::string& name, std::uint64_t key, Value value);
  /// How many times each stage actually ran (cache misses) over the cache's life.
  std::size_t executions(const std::string& name) const;
  void count_execution(const std::string& name);

 private:
  std::size_t m_per_stage;
  mutable std::mutex m_mutex;
  std::map<std::string, std::vector<std::pair<std::uint64_t, Value>>> m_entries;
  std::map<std::string, std::size_t> m_executions;
};

/// Runs a graph of stages (nodes may only read earlier nodes, so the order is topological):
/// every node whose inputs are ready runs at once, in parallel with the others (oneTBB), and
/// each is served from the cache when its key is known. Returns the outputs in node order, or
/// the first error by node order.
Result<std::vector<Value>> run_graph(const std::vector<StageNode>& nodes, StageCache& cache,
                                     Observer* observer, std::vector<StageStats>* stats);

/// Linux process memory: peak resident set size in KiB (VmHWM), and a reset of that peak
/// (so a stage's own peak can be read). Both are no-ops returning 0 elsewhere.
std::int64_t peak_rss_kb();
void reset_peak_rss();

}  // namespace cityforge::pipeline
