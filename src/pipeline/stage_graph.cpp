// SPDX-License-Identifier: Apache-2.0
// The stage graph runner: waves of ready nodes run in parallel; each node's output is cached
// under a content hash of (name, version, config slice, input keys), so a change re-runs only
// what is downstream of it.
#include "cityforge/pipeline/stage_graph.hpp"

#include <tbb/task_group.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "cityforge/core/rng.hpp"

namespace cityforge::pipeline {

Value StageCache::find(const std::string& name, std::uint64_t key) const {
  std::lock_guard lock(m_mutex);
  auto it = m_entries.find(name);
  if (it == m_entries.end()) return nullptr;
  for (const auto& [k, v] : it->second) {
    if (k == key) return v;
  }
  return nullptr;
}

void StageCache::store(const std::string& name, std::uint64_t key, Value value) {
  std::lock_guard lock(m_mutex);
  auto& list = m_entries[name];
  list.emplace_back(key, std::move(value));
  if (list.size() > m_per_stage) list.erase(list.begin());
}

std::size_t StageCache::executions(const std::string& name) const {
  std::lock_guard lock(m_mutex);
  auto it = m_executions.find(name);
  return it == m_executions.end() ? 0 : it->second;
}

void StageCache::count_execution(const std::string& name) {
  std::lock_guard lock(m_mutex);
  ++m_executions[name];
}

Result<std::vector<Value>> run_graph(const std::vector<StageNode>& nodes, StageCache& cache,
                                     Observer* observer, std::vector<StageStats>* stats) {
  const std::size_t n = nodes.size();
  std::vector<Value> values(n);
  std::vector<std::uint64_t> keys(n, 0);
  std::vector<StageStats> local(n);
  std::vector<std::optional<Error>> errors(n);
  std::vector<bool> done(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t d : nodes[i].inputs) {
      if (d >= i) {
        return Error::internal("pipeline", "stage '" + nodes[i].name + "' reads a later stage");
      }
    }
  }
  std::size_t finished = 0;
  release_free_memory();  // Then after every wave, before its resident memory is read.
  while (finished < n) {
    // 1. A wave: every node whose inputs are all done.
    std::vector<std::size_t> wave;
    for (std::size_t i = 0; i < n; ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (std::size_t d : nodes[i].inputs)
        ready = ready && done[d];
      if (ready) wave.push_back(i);
    }
    // Peak memory per stage is exact when a wave holds one stage; otherwise it is the wave's.
    reset_peak_rss();
    tbb::task_group group;
    for (std::size_t i : wave) {
      group.run([&, i] {
        const StageNode& node = nodes[i];
        std::uint64_t key = hash_string(node.name);
        key = hash_combine(key, node.version);
        key = hash_combine(key, hash_string(node.config_slice));
        std::vector<Value> in;
        for (std::size_t d : node.inputs) {
          key = hash_combine(key, keys[d]);
          in.push_back(values[d]);
        }
        keys[i] = key;
        StageStats& st = local[i];
        st.name = node.name;
        st.key = key;
        if (Value hit = cache.find(node.name, key)) {
          values[i] = std::move(hit);
          st.cached = true;
          if (observer) observer->stage_finished(st);
          return;
        }
        if (observer) observer->stage_started(node.name);
        const auto t0 = std::chrono::steady_clock::now();
        Result<Value> r = node.run(in);
        st.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        st.peak_rss_kb = peak_rss_kb();
        cache.count_execution(node.name);
        if (!r) {
          errors[i] = r.error();
          return;
        }
        values[i] = *r;
        cache.store(node.name, key, values[i]);
        if (observer) observer->stage_finished(st);
      });
    }
    group.wait();
    release_free_memory();
    const std::int64_t held_kb = resident_kb();
    for (std::size_t i : wave) {
      local[i].resident_kb = held_kb;
      if (errors[i]) return *errors[i];
      done[i] = true;
      ++finished;
    }
  }
  if (stats) *stats = std::move(local);
  return values;
}

const void* StageInputs::value(std::size_t node) const {
  for (std::size_t k = 0; k < m_nodes.size(); ++k) {
    if (m_nodes[k] == node) return m_values[k].get();
  }
  // A stage reading an output it did not declare would miss it in its cache key.
  std::fprintf(stderr, "cityforge: internal error: a stage read an undeclared input\n");
  std::abort();
}

Result<StageValues> StageGraph::run(StageCache& cache, Observer* observer,
                                    std::vector<StageStats>* stats) const {
  Result<std::vector<Value>> values = run_graph(m_nodes, cache, observer, stats);
  if (!values) return values.error();
  return StageValues(std::move(*values));
}

namespace {

std::int64_t status_kb(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::size_t n = std::char_traits<char>::length(field);
  while (std::getline(f, line)) {
    if (line.compare(0, n, field) == 0) return std::stoll(line.substr(n));
  }
  return 0;
}

}  // namespace

std::int64_t peak_rss_kb() { return status_kb("VmHWM:"); }

std::int64_t resident_kb() { return status_kb("VmRSS:"); }

void release_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void reset_peak_rss() {
  // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
  std::ofstream f("/proc/self/clear_refs");
  if (f) f << "5";
}

}  // namespace cityforge::pipeline
