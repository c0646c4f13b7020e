// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cityforge/core/assert.hpp"
#include "cityforge/core/result.hpp"

namespace cityforge::pipeline {

/// What one stage did in one run.
struct StageStats {
  std::string name;
  double wall_s = 0.0;           ///< 0 when served from the cache.
  std::int64_t peak_rss_kb = 0;  ///< Process peak resident memory while it ran (Linux).
  /// Process resident memory once its wave of stages ended and freed memory was handed back:
  /// what the outputs so far hold (Linux; stages run side by side share one figure).
  std::int64_t resident_kb = 0;
  bool cached = false;    ///< Served from the cache without running.
  std::uint64_t key = 0;  ///< Content hash of (name, version, config slice, inputs).
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

/// A typed handle to the output of a stage added to a StageGraph (or to a part of that output):
/// the stage functions read their inputs through it, `in.get(roads)`, not by position.
template <class T>
struct StageOutput {
  std::size_t node = 0;
  /// Where the T lies inside the node's value; null: the value is a T.
  const void* (*view)(const void* value) = nullptr;

  /// A member of this output as an output of its own: `network.part<&NetworkBuild::layout>()`.
  template <auto Member>
  auto part() const {
    CF_ASSERT(view == nullptr, "a part of a part");
    using Part = std::remove_cvref_t<decltype(std::declval<const T&>().*Member)>;
    return StageOutput<Part>{
        node, [](const void* v) -> const void* { return &(static_cast<const T*>(v)->*Member); }};
  }
};

/// The outputs a running stage declared as its inputs.
class StageInputs {
 public:
  StageInputs(const std::vector<std::size_t>& nodes, const std::vector<Value>& values)
      : m_nodes(nodes), m_values(values) {}
  template <class T>
  const T& get(const StageOutput<T>& out) const {
    const void* v = value(out.node);
    return *static_cast<const T*>(out.view != nullptr ? out.view(v) : v);
  }
  /// An optional input: null when not given.
  template <class T>
  const T* get(const std::optional<StageOutput<T>>& out) const {
    return out ? &get(*out) : nullptr;
  }

 private:
  const void* value(std::size_t node) const;
  const std::vector<std::size_t>& m_nodes;
  const std::vector<Value>& m_values;
};

/// The outputs of a run of a StageGraph, read by the handles the stages were added with.
class StageValues {
 public:
  explicit StageValues(std::vector<Value> values) : m_values(std::move(values)) {}
  /// Shares ownership with the cached value.
  template <class T>
  std::shared_ptr<const T> get(const StageOutput<T>& out) const {
    const Value& v = m_values.at(out.node);
    return std::shared_ptr<const T>(
        v, static_cast<const T*>(out.view != nullptr ? out.view(v.get()) : v.get()));
  }

 private:
  std::vector<Value> m_values;
};

/// Builds a graph of typed stages: add() returns the handle later stages read the output by.
class StageGraph {
 public:
  /// An input of a stage: any output handle.
  struct Input {
    template <class T>
    Input(const StageOutput<T>& out) : node(out.node) {}  // NOLINT: any handle is an input
    template <class T>
    Input(const std::optional<StageOutput<T>>& out) : node(out ? out->node : kNone) {}  // NOLINT
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t node;
  };

  /// Adds a stage computing a T from the outputs `inputs` (absent optional ones are left out);
  /// `config_text` is the canonical text of all the config it reads (its cache key with the
  /// keys of its inputs). `run(in)` reads its inputs by their handles: in.get(handle).
  template <class T, class F>
  StageOutput<T> add(std::string name, const std::vector<Input>& inputs, std::string config_text,
                     F run, std::uint32_t version = 1) {
    std::vector<std::size_t> nodes;
    for (const Input& i : inputs) {
      if (i.node != Input::kNone) nodes.push_back(i.node);
    }
    StageNode node{
        std::move(name), version, nodes, std::move(config_text),
        [nodes, run = std::move(run)](const std::vector<Value>& values) -> Result<Value> {
          Result<T> r = run(StageInputs(nodes, values));
          if (!r) return r.error();
          return Value(std::make_shared<const T>(std::move(*r)));
        }};
    m_nodes.push_back(std::move(node));
    return StageOutput<T>{m_nodes.size() - 1};
  }

  const std::vector<StageNode>& nodes() const { return m_nodes; }

  /// Runs the graph (see run_graph).
  Result<StageValues> run(StageCache& cache, Observer* observer,
                          std::vector<StageStats>* stats) const;

 private:
  std::vector<StageNode> m_nodes;
};

/// Linux process memory: peak resident set size in KiB (VmHWM), and a reset of that peak
/// (so a stage's own peak can be read). Both are no-ops returning 0 elsewhere.
std::int64_t peak_rss_kb();
void reset_peak_rss();
/// Linux process resident set size now, in KiB (VmRSS); 0 elsewhere.
std::int64_t resident_kb();
/// Hands the heap's free memory back to the system (glibc's malloc_trim; nothing elsewhere).
/// Called between stages: without it the memory a stage used for its work and freed stays
/// resident, and the next stage's peak lands on top of it.
void release_free_memory();

}  // namespace cityforge::pipeline
