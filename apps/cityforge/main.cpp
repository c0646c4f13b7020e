// SPDX-License-Identifier: Apache-2.0
// The cityforge command line: parses each subcommand's options and calls the library function
// that does the work (exporter::generate_city, exporter::import_place, server::serve,
// server::run_simulation, ...), then prints what it returns: a summary on stdout, progress and
// warnings on stderr, an error as "cityforge: error: ..." with exit code 2 for bad input and 1
// for anything else.
#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cityforge/core/atomic_file.hpp"
#include "cityforge/core/geos_library.hpp"
#include "cityforge/core/ranks.hpp"
#include "cityforge/export/city_writer.hpp"
#include "cityforge/export/one_building.hpp"
#include "cityforge/export/wfc_solution.hpp"
#include "cityforge/islands/island_files.hpp"
#include "cityforge/osm/osm.hpp"
#include "cityforge/pipeline/city_config.hpp"
#include "cityforge/pipeline/config_file.hpp"
#include "cityforge/pipeline/run_estimate.hpp"
#include "cityforge/server/city_crowd.hpp"
#include "cityforge/server/serve.hpp"
#include "cityforge/server/simulate.hpp"
#ifdef CITYFORGE_HAVE_MPI
#include "cityforge/mpi/mpi_ranks.hpp"
#endif

using namespace cityforge;

namespace {

constexpr int kExitInvalidInput = 2;
constexpr int kExitFailure = 1;

#ifdef CITYFORGE_HAVE_MPI
/// MPI, initialised when an MPI launcher started the program (generate and import).
std::unique_ptr<Ranks> g_mpi;
#endif

int fail(const Error& e) {
  std::fprintf(stderr, "cityforge: error: %s\n", e.to_string().c_str());
  return e.code == ErrorCode::invalid_input ? kExitInvalidInput : kExitFailure;
}

void warn(const std::string& warning) {
  std::fprintf(stderr, "cityforge: warning: %s\n", warning.c_str());
}

bool stderr_is_tty() { return isatty(fileno(stderr)) != 0; }

/// Prints a report's summary (unless quiet) and returns the exit code.
template <class Report>
int finish(const Result<Report>& report, bool quiet) {
  if (!report) return fail(report.error());
  if (!quiet) std::fputs(report->summary.c_str(), stdout);
  return 0;
}

/// The worker thread count: the option, else all cores shared by the ranks on this machine
/// (MPI launchers say how many there are). The results are the same for any.
int thread_count(int requested) {
  if (requested > 0) return requested;
  int local = 1;
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const char* n = std::getenv(v); n != nullptr && std::atoi(n) > 0) {
      local = std::atoi(n);
      break;
    }
  }
  return std::max(1, static_cast<int>(tbb::info::default_concurrency()) / local);
}

/// The ranks of this run: MPI's when an MPI launcher started it, else this process alone.
const Ranks& ranks() {
#ifdef CITYFORGE_HAVE_MPI
  if (g_mpi) return *g_mpi;
#endif
  return single_rank();
}

/// finish() for the collective commands: every rank returns the same code, rank 0 alone prints.
template <class Report>
int finish_ranks(const Result<Report>& report, bool quiet) {
  if (ranks().rank() == 0) return finish(report, quiet);
  if (!report)
    return report.error().code == ErrorCode::invalid_input ? kExitInvalidInput : kExitFailure;
  return 0;
}

/// CITYFORGE_FAULT=kill:R or fail:R (tests of a failing rank): rank R kills itself, or fails
/// its tiles with an error, as it starts building them. Unset: nothing.
std::function<Status(const std::string&)> injected_fault() {
  const char* f = std::getenv("CITYFORGE_FAULT");
  if (f == nullptr) return {};
  const std::string spec(f);
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos || std::atoi(spec.c_str() + colon + 1) != ranks().rank())
    return {};
  const std::string kind = spec.substr(0, colon);
  return [kind](const std::string& tile) -> Status {
    if (kind == "kill") std::raise(SIGKILL);
    return Error::io(tile, "injected fault (CITYFORGE_FAULT)");
  };
}

/// SIGINT and SIGTERM (Ctrl-C, kill, a batch system's stop, mpirun passing either on) go to one
/// thread that removes this run's temporary files and folders, lets a commit in progress finish
/// (so the output folder holds either its previous files or all the new ones), says so, and
/// exits 128 + the signal. Blocked in every other thread: set before any other thread starts.
void stop_cleanly_on_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    std::fprintf(stderr,
                 "\ncityforge: interrupted (%s): stopped; temporary files removed, and the output "
                 "folder keeps the files it had\n",
                 sig == SIGINT ? "SIGINT" : "SIGTERM");
    remove_temporaries_and_hold();
    std::_Exit(128 + sig);
  }).detach();
}

/// CITYFORGE_STOP_AT=STAGE:SIGNAL (INT, TERM or KILL): the process sends itself SIGNAL when
/// STAGE starts, or when it ends with "after-STAGE" (after "tiles": the files and the tileset
/// staged, none moved into place yet), for the interruption tests; a test hook like
/// CITYFORGE_FAULT.
void stop_at_stage_for_tests(const std::string& stage) {
  const char* env = std::getenv("CITYFORGE_STOP_AT");
  if (env == nullptr) return;
  const std::string spec = env;
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos || spec.substr(0, colon) != stage) return;
  const std::string sig = spec.substr(colon + 1);
  ::kill(::getpid(), sig == "KILL" ? SIGKILL : sig == "TERM" ? SIGTERM : SIGINT);
  if (sig != "KILL") {  // Delivered to the watcher thread: wait here for it to end the process.
    for (;;)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

/// Seconds between "still running" lines when stderr is not a terminal (a log file, CI, a
/// pipe): CITYFORGE_PROGRESS_S, default 10.
double progress_interval_s() {
  const char* env = std::getenv("CITYFORGE_PROGRESS_S");
  char* end = nullptr;
  const double v = env != nullptr ? std::strtod(env, &end) : 0.0;
  return env != nullptr && end != env && std::isfinite(v) && v > 0.0 ? v : 10.0;
}

/// A line per finished stage. While stages run, a terminal's last line shows them with their
/// seconds so far (rewritten in place every second); anything else gets a "running:" line when
/// a stage has run for the interval with nothing printed, and then once per interval, so a
/// long run in a log is never silent.
class Progress final : public pipeline::Observer {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Progress(bool quiet)
      : m_quiet(quiet), m_tty(stderr_is_tty()), m_interval_s(progress_interval_s()) {}
  /// The stages running now, "dressing, buildings" (empty between stages).
  std::string running_names() {
    std::lock_guard lock(m_mutex);
    std::string out;
    for (const auto& r : m_running)
      out += (out.empty() ? "" : ", ") + r.first;
    return out;
  }
  ~Progress() override {
    {
      std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    if (m_ticker.joinable()) m_ticker.join();
  }
  void stage_started(const std::string& name) override {
    stop_at_stage_for_tests(name);
    std::lock_guard lock(m_mutex);
    m_running.emplace_back(name, Clock::now());
    if (m_quiet) return;
    if (m_tty) draw_running();
    if (!m_ticker.joinable()) m_ticker = std::thread([this] { tick(); });
  }
  void stage_finished(const pipeline::StageStats& s) override {
    stop_at_stage_for_tests("after-" + s.name);
    std::lock_guard lock(m_mutex);
    std::erase_if(m_running, [&](const auto& r) { return r.first == s.name; });
    if (m_quiet) return;
    if (m_tty) std::fprintf(stderr, "\r\033[K");
    if (s.cached) {
      std::fprintf(stderr, "  %-10s cached\n", s.name.c_str());
    } else {
      std::fprintf(stderr, "  %-10s %8.3f s\n", s.name.c_str(), s.wall_s);
    }
    m_last_line = Clock::now();
    if (m_tty) draw_running();
  }

 private:
  /// "dressing 12 s, buildings 3 s": the stages running now.
  std::string running_text() const {
    std::string out;
    for (const auto& [name, since] : m_running) {
      const long s = static_cast<long>(std::chrono::duration<double>(Clock::now() - since).count());
      out += (out.empty() ? "" : ", ") + name + " " + std::to_string(s) + " s";
    }
    return out;
  }
  void draw_running() const {
    if (!m_running.empty())
      std::fprintf(stderr, "\r\033[K  running: %s...", running_text().c_str());
  }
  void tick() {
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
      m_wake.wait_for(lock, std::chrono::duration<double>(m_tty ? 1.0 : m_interval_s / 4));
      if (m_stop || m_running.empty()) continue;
      if (m_tty) {
        draw_running();
      } else if (std::chrono::duration<double>(Clock::now() - m_last_line).count() >=
                     m_interval_s &&
                 std::chrono::duration<double>(Clock::now() - m_running.front().second).count() >=
                     m_interval_s) {
        std::fprintf(stderr, "  running: %s\n", running_text().c_str());
        m_last_line = Clock::now();
      }
      std::fflush(stderr);
    }
  }

  bool m_quiet;
  bool m_tty;
  double m_interval_s;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::vector<std::pair<std::string, Clock::time_point>> m_running;
  Clock::time_point m_last_line = Clock::now();
  std::thread m_ticker;
};

/// MemAvailable of /proc/meminfo in MiB (0 when unknown).
double available_mib() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (f == nullptr) return 0.0;
  char line[256];
  double kb = 0.0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  }
  std::fclose(f);
  return kb / 1024.0;
}

/// --max-memory: a thread samples the resident memory every 50 ms; past the bound the run stops
/// as an interrupted one does (temporaries removed, the folder's previous files kept) with an
/// error naming the bound and the stages running, exit 1. Lives as long as the run.
class MemoryGuard {
 public:
  MemoryGuard(double max_mib, Progress& progress) : m_max_mib(max_mib), m_progress(progress) {
    if (max_mib > 0.0) m_thread = std::thread([this] { watch(); });
  }
  ~MemoryGuard() {
    {
      std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
  }
  MemoryGuard(const MemoryGuard&) = delete;
  MemoryGuard& operator=(const MemoryGuard&) = delete;

 private:
  void watch() {
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
      m_wake.wait_for(lock, std::chrono::milliseconds(50));
      const double mib = static_cast<double>(pipeline::resident_kb()) / 1024.0;
      if (m_stop || mib <= m_max_mib) continue;
      const std::string stages = m_progress.running_names();
      std::fprintf(stderr,
                   "cityforge: error: resident memory %.0f MiB passed --max-memory %.0f MiB%s; "
                   "stopped, temporary files removed, and the output folder keeps the files it "
                   "had (docs: README \"Reliability\")\n",
                   mib, m_max_mib, stages.empty() ? "" : (" in " + stages).c_str());
      remove_temporaries_and_hold();
      std::_Exit(kExitFailure);
    }
  }

  double m_max_mib;
  Progress& m_progress;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

/// The estimate of a generate run, printed, and the refusal when it needs more memory than
/// --max-memory, or than the machine has available, unless --force.
Status check_estimate(const pipeline::CityConfig& cfg, const std::string& source, bool city_glb,
                      double max_memory_mib, bool force, bool quiet) {
  const pipeline::RunEstimate e = pipeline::estimate_run(cfg, city_glb);
  if (!quiet) {
    std::fprintf(stderr,
                 "cityforge: estimate: %.1f km^2, peak memory about %.0f MiB, about %.0f s at 2 "
                 "threads%s\n",
                 e.area_km2, e.peak_mib, e.seconds, ranks().size() > 1 ? " (one process)" : "");
  }
  const bool bounded = max_memory_mib > 0.0;
  const double limit = bounded ? max_memory_mib : available_mib();
  if (force || limit <= 0.0 || e.peak_mib <= limit) return Ok{};
  char what[512];
  std::snprintf(what, sizeof what,
                "a boundary of %.1f km^2 needs about %.0f MiB at its peak (estimate), more than "
                "the %.0f MiB %s; expected a smaller region, or: write tiles without city.glb "
                "(--tiles --no-city-glb), share it over ranks (mpirun, docs/regions.md), or "
                "pass --force to run anyway",
                e.area_km2, e.peak_mib, limit,
                bounded ? "of --max-memory" : "this machine has available (MemAvailable)");
  return Error::invalid_input(source + ": /boundary", what);
}

/// What `generate` and `import` share.
struct CityOptions {
  std::string out_dir = "out";
  std::optional<std::uint64_t> seed;
  int threads = 0;
  bool quiet = false;
  bool no_sumo = false;
  bool tiles = false;
  bool no_city_glb = false;
  double max_memory_mib = 0.0;    ///< --max-memory: 0 none.
  bool force = false;             ///< --force: run past the estimate's refusal.
  std::string opendrive = "1.4";  ///< OpenDRIVE version of opendrive/city.xodr: 1.4 or 1.8.
  std::string instances;          ///< ext, nodes or bake; empty: the config's.
};

/// The config's seed and instance mode as the options say. Without city.glb, nothing needs
/// every facade module at once: the tiles and the point cloud make each lot's again.
void override_config(const CityOptions& opt, pipeline::CityConfig& cfg) {
  if (opt.seed) cfg.seed = *opt.seed;
  if (opt.no_city_glb) cfg.buildings.generator.keep_instances = false;
  pipeline::InstanceMode mode{};
  if (!opt.instances.empty() && pipeline::instance_mode_from_string(opt.instances, &mode)) {
    cfg.exports.instances = mode;
  }
}

exporter::CityWriteOptions write_options(const CityOptions& opt, int threads,
                                         std::chrono::steady_clock::time_point started,
                                         Progress& progress) {
  exporter::CityWriteOptions w;
  w.out_dir = opt.out_dir;
  w.sumo_convert = !opt.no_sumo;
  w.tiles = opt.tiles;
  w.city_glb = !opt.no_city_glb;
  w.opendrive_minor = opt.opendrive == "1.8" ? 8 : 4;
  w.threads = threads;
  w.started = started;
  w.extra_files = server::crowd_files;
  w.log.stages = &progress;
  w.ranks = &ranks();
  w.before_tile = injected_fault();
  if (!opt.quiet) {
    w.log.note = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    w.log.warning = warn;
  }
  return w;
}

/// ", on N ranks" when MPI shares the run.
std::string rank_note() {
  return ranks().size() > 1 ? ", on " + std::to_string(ranks().size()) + " ranks" : "";
}

struct GenerateOptions : CityOptions {
  std::string config_path;
};

int generate(GenerateOptions opt) {
  const auto t_start = std::chrono::steady_clock::now();
  opt.quiet = opt.quiet || ranks().rank() != 0;
  // Nothing is written before the whole city exists.
  Result<pipeline::CityConfig> cfg = pipeline::load_city_config_file(opt.config_path);
  if (!cfg) return fail(cfg.error());
  override_config(opt, *cfg);
  const int threads = thread_count(opt.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  if (!opt.quiet) {
    std::fprintf(stderr, "cityforge: generating '%s' (seed %llu, %d threads%s)\n",
                 cfg->name.c_str(), static_cast<unsigned long long>(cfg->seed), threads,
                 rank_note().c_str());
  }
  if (Status st = check_estimate(*cfg, pipeline::city_config_source(opt.config_path),
                                 !opt.no_city_glb, opt.max_memory_mib, opt.force, opt.quiet);
      !st) {
    return fail(st.error());
  }
  Progress progress(opt.quiet);
  const MemoryGuard guard(opt.max_memory_mib, progress);
  return finish_ranks(exporter::generate_city(*cfg, pipeline::city_config_source(opt.config_path),
                                              write_options(opt, threads, t_start, progress)),
                      opt.quiet);
}

struct ImportOptions : CityOptions {
  std::string map_path;
  std::vector<std::string> dem_paths;
  std::string bbox;
  std::string config_path;
  double cell_m = 0.0;
};

// A real place from an OSM extract (and a DEM) through the same stages.
int import_place(ImportOptions opt) {
  const auto t_start = std::chrono::steady_clock::now();
  opt.quiet = opt.quiet || ranks().rank() != 0;
  pipeline::ImportSettings settings;
  settings.osm_path = opt.map_path;
  settings.dem_paths = opt.dem_paths;
  settings.cell_m = opt.cell_m;
  if (!opt.bbox.empty()) {
    Result<osm::GeoBox> box = osm::parse_bbox(opt.bbox);
    if (!box) return fail(box.error());
    settings.bbox = *box;
  }
  // The rules: the built-in default city's (roads, styles, dressing, export), or a city JSON's.
  Result<pipeline::CityConfig> cfg = pipeline::load_city_config_file(opt.config_path);
  if (!cfg) return fail(cfg.error());
  override_config(opt, *cfg);
  settings.rules = *cfg;
  const int threads = thread_count(opt.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(threads));
  if (!opt.quiet) {
    std::string dems;
    for (const std::string& d : opt.dem_paths) {
      dems += dems.empty() ? " on " : ", ";
      dems += d;
    }
    std::fprintf(stderr, "cityforge: importing %s%s (seed %llu, %d threads%s)\n",
                 opt.map_path.c_str(), dems.c_str(), static_cast<unsigned long long>(cfg->seed),
                 threads, rank_note().c_str());
  }
  Progress progress(opt.quiet);
  const MemoryGuard guard(opt.max_memory_mib, progress);
  return finish_ranks(
      exporter::import_place(settings, write_options(opt, threads, t_start, progress)), opt.quiet);
}

int simulate(server::SimulateOptions opt, int threads, bool quiet) {
  opt.threads = thread_count(threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<std::size_t>(opt.threads));
  // CITYFORGE_FAULT=kill:R (tests of a failing rank): rank R kills itself at its 100th tick.
  if (const char* f = std::getenv("CITYFORGE_FAULT"); f != nullptr) {
    const std::string spec(f);
    if (spec.rfind("kill:", 0) == 0 && std::atoi(spec.c_str() + 5) == ranks().rank()) {
      opt.after_tick = [](std::uint64_t tick) {
        if (tick == 100) std::raise(SIGKILL);
      };
    }
  }
  // Under mpirun rank 0 speaks for the run.
  if (ranks().rank() == 0) {
    opt.warning = warn;
  } else {
    quiet = true;
  }
  const bool tty = stderr_is_tty() && !quiet;
  if (tty) {
    opt.progress = [](const std::string& line) {
      std::fprintf(stderr, "\r\033[K  %s", line.c_str());
    };
  } else if (!quiet) {  // A log: a line once per progress interval.
    const double interval_s = progress_interval_s();
    opt.progress = [interval_s,
                    last = std::chrono::steady_clock::now()](const std::string& line) mutable {
      const auto now = std::chrono::steady_clock::now();
      if (std::chrono::duration<double>(now - last).count() < interval_s) return;
      last = now;
      std::fprintf(stderr, "  %s\n", line.c_str());
    };
  }
  Result<server::SimulateReport> report = server::run_simulation(opt);
  if (tty) std::fprintf(stderr, "\r\033[K");
  return finish_ranks(report, quiet);
}

int serve(const server::ServeOptions& opt) {
  // Under mpirun the ranks on one machine share its cores (as simulate's do).
  std::optional<tbb::global_control> limit;
  if (ranks().size() > 1) {
    limit.emplace(tbb::global_control::max_allowed_parallelism,
                  static_cast<std::size_t>(thread_count(0)));
  }
  if (Status s = server::serve(opt, std::cout); !s) {
    // Over ranks every rank has the same error: rank 0 says it.
    if (ranks().rank() == 0) std::cerr << "serve: " << s.error().to_string() << "\n";
    return s.error().code == ErrorCode::invalid_input ? kExitInvalidInput : kExitFailure;
  }
  return 0;
}

// A short run that allocates and frees tens of megabytes: glibc's defaults give large blocks
// their own mappings and hand freed memory back at once, so every phase pays page faults on
// fresh pages again (16 % of `cityforge island` in perf). Keep them in the heap instead; the
// process ends long before the kept memory would matter. Output is unchanged.
void keep_freed_memory() {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
  // The island's helper threads (the light volume and its image) allocate from this heap too,
  // not from a fresh arena of their own that would fault in 4 KiB pages.
  mallopt(M_ARENA_MAX, 1);
  // Grow the heap now (untouched pages cost nothing) and ask for transparent huge pages over
  // it, taken where the kernel's THP mode is `madvise` or `always`: one page fault per 2 MiB
  // instead of one per 4 KiB, and a fault costs microseconds in a VM. (The long commands get
  // huge pages from malloc itself by restarting, below; a run of ~100 ms on one thread cannot
  // spare the restart's milliseconds, and this one heap is all it uses.)
  void* reserve = std::malloc(std::size_t{96} << 20);
  const auto page = std::uintptr_t{2} << 20;
  const auto lo = (reinterpret_cast<std::uintptr_t>(reserve) + page - 1) & ~(page - 1);
  const auto hi = reinterpret_cast<std::uintptr_t>(sbrk(0)) & ~(page - 1);
  if (reserve != nullptr && hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
  std::free(reserve);
}

// The long commands (generate, import, simulate, serve) run with glibc's malloc asking for
// transparent huge pages (its `glibc.malloc.hugetlb=1` tunable): on this VM a page fault costs
// microseconds and the default city's run spent a fifth of its time in them (5.75 s instead
// of 7.17 s with it, the same bytes). glibc reads tunables only when a process starts, so the
// program starts itself again once with the tunable added (a few milliseconds); the started
// copy puts the variable back as it was, so the tools it runs (netconvert) do not inherit it.
// Not under an MPI launcher (the launcher watches the process it started), not where the
// kernel's THP mode is `never`, and never with CITYFORGE_HUGE_PAGES=0.
// The started copy finds the old value in kTunablesWas: "" when there was none, else "=" and it.
constexpr const char* kTunablesWas = "CITYFORGE_GLIBC_TUNABLES_WAS";
bool g_restarted = false;

void restore_glibc_tunables() {
  const char* was = std::getenv(kTunablesWas);
  if (was == nullptr) return;
  g_restarted = true;
  if (was[0] == '=') {
    setenv("GLIBC_TUNABLES", was + 1, 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
  unsetenv(kTunablesWas);
}

bool kernel_gives_huge_pages() {
  std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (f == nullptr) return false;
  char line[128] = {};
  const bool read = std::fgets(line, sizeof line, f) != nullptr;
  std::fclose(f);
  return read && std::string(line).find("[never]") == std::string::npos;
}

void restart_with_huge_pages(char** argv) {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  const char* opt = std::getenv("CITYFORGE_HUGE_PAGES");
  if (g_restarted || (opt != nullptr && std::string(opt) == "0")) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string old = tunables == nullptr ? "" : tunables;
  if (old.find("glibc.malloc.hugetlb") != std::string::npos) return;
  if (started_by_mpi_launcher() || !kernel_gives_huge_pages()) return;
  setenv(kTunablesWas, tunables == nullptr ? "" : ("=" + old).c_str(), 1);
  const std::string with = (old.empty() ? "" : old + ":") + "glibc.malloc.hugetlb=1";
  setenv("GLIBC_TUNABLES", with.c_str(), 1);
  std::fflush(nullptr);
  execv("/proc/self/exe", argv);
  restore_glibc_tunables();  // execv failed: go on as we are.
#else
  (void)argv;
#endif
}

int island(const islands::IslandRequest& request, bool quiet) {
  keep_freed_memory();
  if (Status geos = load_geos(); !geos) return fail(geos.error());  // For the grid's triangles.
  std::function<void(const std::string&)> progress;
  if (!quiet && stderr_is_tty()) {
    progress = [](const std::string& what) {
      if (what.empty()) {
        std::fprintf(stderr, "\r\033[K");
      } else {
        std::fprintf(stderr, "\r\033[K  %s...", what.c_str());
      }
    };
  }
  return finish(islands::make_island_files(request, progress), quiet);
}

}  // namespace

int main(int argc, char** argv) {
  restore_glibc_tunables();
  CLI::App app{
      "cityforge: procedural 3D cities from a boundary, a few artery curves and zoning.\n"
      "Outputs glTF (city.glb), GeoJSON (layout.geojson), an SVG map and stats.json."};
  app.require_subcommand(1);
  app.footer(
      "Run `cityforge generate --help` for the options; the city JSON format is documented\n"
      "in docs/city-config.md.");
  GenerateOptions gen;
  CLI::App* g = app.add_subcommand(
      "generate",
      "Generate a city layout (roads, blocks, zoning, terrain) and export it.\n"
      "With no CONFIG, the built-in default city (data/default-city.json) is used.");
  g->add_option("config", gen.config_path,
                "City JSON: boundary, arteries, zones, water, terrain/layout/export rules");
  g->add_option("-o,--out", gen.out_dir, "Output folder (created if missing)")->default_val("out");
  g->add_option("--seed", gen.seed, "Seed (overrides the config's); same seed, same city");
  g->add_option("--threads", gen.threads,
                "Worker threads (default: all cores); output is identical for any count")
      ->check(CLI::Range(1, 1024));
  g->add_flag("-q,--quiet", gen.quiet, "No progress or summary, errors only");
  g->add_option("--instances", gen.instances,
                "How city.glb writes building modules and props: ext (EXT_mesh_gpu_instancing, "
                "default), nodes (a node per instance: Blender 3.4 and other tools without the "
                "extension) or bake (merged meshes per chunk)")
      ->check(CLI::IsMember({"ext", "nodes", "bake"}));
  g->add_flag("--no-sumo", gen.no_sumo,
              "Do not run SUMO's netconvert on sumo/*.xml (it runs when installed)");
  g->add_flag("--tiles", gen.tiles,
              "Also write OUT/tiles/tileset.json: OGC 3D Tiles 1.1 with HLOD, streamed by "
              "`cityforge serve` and any 3D Tiles client");
  g->add_option("--opendrive", gen.opendrive,
                "ASAM OpenDRIVE version of OUT/opendrive/city.xodr: 1.4 (default; CARLA) or 1.8")
      ->check(CLI::IsMember({"1.4", "1.8"}));
  g->add_option("--max-memory", gen.max_memory_mib,
                "Bound in MiB: refuse a config whose estimate needs more, and stop the run "
                "cleanly if its resident memory passes it (default: refuse above the memory "
                "available, no bound while running)")
      ->check(CLI::Range(16.0, 1.0e9));
  g->add_flag("--force", gen.force,
              "Run even when the estimate says the config needs more memory than available "
              "or --max-memory");
  g->add_flag("--no-city-glb", gen.no_city_glb,
              "Do not write the single city.glb (large cities: stream the tiles instead)");
  g->footer(
      "Examples:\n"
      "  cityforge generate -o out                      # the built-in default city\n"
      "  cityforge generate data/examples/metropolis-4x5km.json -o out --seed 3\n"
      "Exit codes: 0 done, 2 bad input (the message names the file and the value), 1 other\n"
      "failure. Nothing is written unless the whole city was generated.");
  exporter::OneBuildingOptions one;
  bool one_quiet = false;
  CLI::App* b = app.add_subcommand(
      "building",
      "Generate one building from a style (a built-in name or a BDF .json path) and write it\n"
      "as glTF: for iterating on a style (docs/styles.md).");
  b->add_option("--style", one.style, "Built-in style name or path to a BDF .json")
      ->default_val(one.style);
  b->add_option("--footprint", one.footprint, "Footprint shape (rectangle, l_shape, ...)")
      ->default_val(one.footprint);
  b->add_option("--size", one.size, "WIDTHxDEPTH in metres")->default_val(one.size);
  b->add_option("--height", one.height_m, "Height in metres")->default_val(one.height_m);
  b->add_option("--massing", one.massing, "plain, cubified or staggered")->default_val(one.massing);
  b->add_option("--shape-param", one.shape_param, "Footprint proportion (notch, wing, cut)")
      ->check(CLI::Range(0.2, 0.8))
      ->default_val(one.shape_param);
  b->add_option("--seed", one.seed, "Seed")->default_val(one.seed);
  b->add_option("-o,--out", one.out, "Output .glb")->default_val(one.out);
  b->add_flag("-q,--quiet", one_quiet, "Errors only");
  b->footer(
      "Example:\n"
      "  cityforge building --style art_deco --footprint chamfered --size 30x24 --height 90 "
      "--massing staggered -o deco.glb");
  ImportOptions imp;
  CLI::App* im = app.add_subcommand(
      "import",
      "Build the city of a real place from an OpenStreetMap extract (.osm or .osm.pbf) on its\n"
      "terrain (a DEM: GeoTIFF, SRTM .hgt or ArcInfo ASCII grid) and export it like a\n"
      "generated city (docs/import.md). Map data (c) OpenStreetMap contributors, ODbL.");
  im->add_option("map", imp.map_path, "OSM extract: .osm (XML) or .osm.pbf")->required();
  im->add_option("--dem", imp.dem_paths,
                 "Elevation: .tif, .hgt or .asc, or a folder of them; repeat for several tiles, "
                 "mosaicked in any order (default: flat ground)")
      ->allow_extra_args(false);
  im->add_option("--bbox", imp.bbox,
                 "minlon,minlat,maxlon,maxlat to import (default: the file's bounds)");
  im->add_option("-o,--out", imp.out_dir, "Output folder (created if missing)")->default_val("out");
  im->add_option("--config", imp.config_path,
                 "City JSON whose rules (roads, styles, dressing, export) to use; default: the "
                 "built-in default city's");
  im->add_option("--seed", imp.seed, "Seed for what the map does not say (heights, styles...)");
  im->add_option("--cell", imp.cell_m, "Terrain grid spacing in metres (default: automatic)")
      ->check(CLI::Range(1.0, 500.0));
  im->add_option("--threads", imp.threads,
                 "Worker threads (default: all cores); output is identical for any count")
      ->check(CLI::Range(1, 1024));
  im->add_flag("--no-sumo", imp.no_sumo, "Do not run netconvert on the SUMO plain XML");
  im->add_flag("--tiles", imp.tiles,
               "Also write OUT/tiles/tileset.json (OGC 3D Tiles 1.1, placed on the globe)");
  im->add_flag("--no-city-glb", imp.no_city_glb, "Do not write the single city.glb");
  im->add_option("--max-memory", imp.max_memory_mib,
                 "Bound in MiB: stop the run cleanly if its resident memory passes it")
      ->check(CLI::Range(16.0, 1.0e9));
  im->add_option("--opendrive", imp.opendrive,
                 "ASAM OpenDRIVE version of OUT/opendrive/city.xodr: 1.4 (default; CARLA) or 1.8")
      ->check(CLI::IsMember({"1.4", "1.8"}));
  im->add_option("--instances", imp.instances, "ext (default), nodes or bake")
      ->check(CLI::IsMember({"ext", "nodes", "bake"}));
  im->add_flag("-q,--quiet", imp.quiet, "Errors only");
  im->footer(
      "Example:\n"
      "  cityforge import tests/data/osm/andorra.osm.pbf --dem tests/data/dem/andorra_srtm3.tif "
      "--bbox 1.515,42.500,1.545,42.515 -o andorra");
  exporter::WfcRunOptions wo;
  bool wfc_quiet = false;
  CLI::App* wc = app.add_subcommand(
      "wfc",
      "Solve a wave function collapse model on a square grid (docs/wfc.md) and write the tile\n"
      "names per cell with the solver's stats (.json) or the tiles as instanced meshes (.glb).");
  wc->add_option("--model", wo.model,
                 "Model JSON path, or a built-in model: builtin:NAME or NAME (cat, city_blocks, "
                 "rooftop, ...)")
      ->required();
  wc->add_option("--size", wo.size, "Cells per axis: X,Y,Z (or X,Y or X), each >= 1")->required();
  wc->add_option("--seed", wo.seed, "Seed; same seed, same solve")->default_val(wo.seed);
  wc->add_option("-o,--out", wo.out, "Output: .json (tiles + stats) or .glb")->required();
  wc->add_option("--trace", wo.trace, "Also write every observe / propagate step to this JSON");
  wc->add_option("--fix", wo.fixed, "Pre-place a tile: x,y,z=TILE (repeatable)");
  wc->add_option("--block", wo.block,
                 "Solve in overlapping blocks of N x N cells with local repair (0: one solve)")
      ->default_val(wo.block);
  wc->add_option("--backtracks", wo.backtracks, "Decisions undone before an attempt gives up")
      ->default_val(wo.backtracks);
  wc->add_option("--restarts", wo.restarts, "Fresh attempts after a failed one")
      ->default_val(wo.restarts);
  wc->add_option("--cell", wo.cell_m, "Cell size in metres in the .glb")->default_val(wo.cell_m);
  wc->add_flag("-q,--quiet", wfc_quiet, "Errors only");
  wc->footer(
      "Examples:\n"
      "  cityforge wfc --model city_blocks --size 32,32 --seed 3 -o blocks.glb\n"
      "  cityforge wfc --model builtin:rooftop --size 6,4,2 --fix 2,1,0=bulkhead -o roof.json "
      "--trace steps.json\n"
      "Exit codes: 0 done, 2 bad input or no solution within the budget, 1 other failure.");
  islands::IslandRequest io;
  bool island_quiet = false;
  CLI::App* isl = app.add_subcommand(
      "island",
      "Generate a small island level after Oskar Stalberg's island generator (docs/islands.md):\n"
      "an irregular grid, tiles solved by WFC in two passes so every walkable place is reachable,\n"
      "deformed, smoothed and coloured. Writes island.glb, island_nav.json, island_tiles.json\n"
      "and stats.json.");
  isl->add_option("--seed", io.seed, "Seed; same seed, same island (byte for byte)")
      ->default_val(io.seed);
  isl->add_option("--size", io.size, "Radius of the island's hexagon in cells, 2..24")
      ->default_val(io.size);
  isl->add_option("--grid", io.grid,
                  "Grid: mixed (squares and triangles, default), square or triangle")
      ->default_val(io.grid);
  isl->add_option("--layers", io.layers, "Layers of cells (height levels), 2..12")
      ->default_val(io.layers);
  // Checked by islands::make_island_files (exit 2 like every bad value), not by CLI11 (exit 106).
  isl->add_option("-o,--out", io.out, "Output folder (created if missing); required");
  isl->add_option("--kit", io.kit,
                  "Tile kit: a .glb of tiles with their corner states as custom properties\n"
                  "(docs/islands.md \"Tile kits\"); default the built-in kit");
  isl->add_option("--edit", io.edits,
                  "Edit the island after generating it: CELL:raise or CELL:lower raises or\n"
                  "lowers that plane cell's land one layer and solves again around it;\n"
                  "CELL:paint:K paints it with palette colour K (0..7: its house's walls, else\n"
                  "its grass); repeatable, applied in order")
      ->allow_extra_args(false);
  isl->add_option("--write-kit", io.write_kit,
                  "Write the built-in tile kit as a .glb to start your own from (without -o,\n"
                  "only the kit is written)");
  isl->add_flag("--trace", io.trace,
                "Keep the solver's steps (observations, backtracks, restarts of every pass) and\n"
                "write island_trace.json, for stepping through the solve on the island page");
  isl->add_flag("-q,--quiet", island_quiet, "Errors only");
  isl->footer(
      "Examples:\n"
      "  cityforge island --seed 7 -o island\n"
      "  cityforge island --seed 7 --size 10 --grid square -o square_island\n"
      "  cityforge island --write-kit my_kit.glb     (edit it in Blender, then:)\n"
      "  cityforge island --kit my_kit.glb --seed 7 -o my_island\n"
      "  cityforge island --seed 7 --edit 130:raise --edit 131:raise -o edited\n"
      "Exit codes: 0 done, 2 bad input or no island within the solver's budget, 1 other\n"
      "failure. Nothing is written unless the whole island was generated.");
  server::SimulateOptions so;
  int sim_threads = 0;
  bool sim_quiet = false;
  double trip_reach_km = 0;
  CLI::App* sc = app.add_subcommand(
      "simulate",
      "Run the traffic of a generated city headless (vehicles on lanes.json, signals, lane\n"
      "changes, trips, parked cars) and write a recording for the viewer and sim_stats.json.\n"
      "Under `mpirun -np N` the ranks share the driving and the pedestrians at full "
      "fidelity\n(docs/traffic.md and docs/crowd.md, \"Over MPI ranks\").");
  sc->add_option("dir", so.dir, "Folder written by `cityforge generate`")->required();
  sc->add_option("--seconds", so.seconds, "Simulated seconds")
      ->check(CLI::Range(0.0, 1e7))
      ->default_val(so.seconds);
  sc->add_option("--vehicles", so.vehicles,
                 "Moving vehicles kept in the network (clamped to "
                 "45% of the lane capacity)")
      ->default_val(so.vehicles);
  sc->add_option("--threads", sim_threads, "Worker threads (default: all cores); same result")
      ->check(CLI::Range(1, 1024));
  sc->add_option("--seed", so.seed, "Seed")->default_val(so.seed);
  sc->add_option("--dt", so.dt_s, "Tick length in seconds")
      ->check(CLI::Range(0.01, 1.0))
      ->default_val(so.dt_s);
  sc->add_option("--trip-share", so.trip_share,
                 "Share of vehicles on A* trips to destinations (the rest roam by density)")
      ->check(CLI::Range(0.0, 1.0))
      ->default_val(so.trip_share);
  sc->add_option("--trip-reach-km", trip_reach_km,
                 "Trips go to destinations within this distance of their start (0: anywhere; "
                 "a region's trips are mostly local)")
      ->check(CLI::Range(0.0, 1e4))
      ->default_val(0.0);
  sc->add_option("--parked-share", so.parked_share, "Share of parking spots holding a car")
      ->check(CLI::Range(0.0, 1.0))
      ->default_val(so.parked_share);
  sc->add_option("--record-hz", so.record_hz, "Recording frames per simulated second")
      ->check(CLI::Range(0.1, 100.0))
      ->default_val(so.record_hz);
  sc->add_option("-o,--out", so.out, "Recording path (default DIR/traffic.cfrec)");
  bool no_record = false;
  sc->add_flag("--no-record", no_record, "No recording (benchmarks); sim_stats.json goes to DIR");
  sc->add_flag("--audit", so.audit,
               "Check invariants after every tick (overlaps, conflicting movements); slower");
  sc->add_option("--pedestrians", so.pedestrians,
                 "Pedestrians on the sidewalks and crosswalks (0: no crowd)")
      ->default_val(so.pedestrians);
  sc->add_option("--viewer", so.viewer,
                 "Viewer for the levels of detail: x,y,z,yaw_deg (fixed) or a file of "
                 "\"t x y z yaw_deg\" lines (a path); default: the origin, looking east");
  sc->add_option("--event", so.events,
                 "flee@x,y,t[,radius_m[,duration_s]]: pedestrians within the radius flee "
                 "(repeatable)");
  bool no_lod = false;
  sc->add_flag("--no-lod", no_lod, "Every agent at full fidelity (no levels of detail)");
  sc->add_option("--off-step", so.off_step_s,
                 "Vehicles at level of detail off are driven once every this many seconds, "
                 "with that step (0: every tick)")
      ->check(CLI::Range(0.0, 60.0))
      ->default_val(so.off_step_s);
  sc->add_flag("-q,--quiet", sim_quiet, "Errors only");
  sc->footer(
      "Example:\n"
      "  cityforge generate -o out && cityforge simulate out --seconds 300 --vehicles 3000\n"
      "Figures go to sim_stats.json next to the recording (docs/traffic.md).");
  server::ServeOptions vo;
  vo.built_root = CITYFORGE_VIEWER_DIR;
  CLI::App* sv = app.add_subcommand(
      "serve",
      "Serve a generated city folder over HTTP at /city/<file> (and a viewer folder at /)\n"
      "until Ctrl-C. Binds 127.0.0.1 only, unless --host names another interface. An island\n"
      "folder (`cityforge island`) is editable at /island.html (docs/islands.md). With --live\n"
      "--scenario FILE a driving-study scenario is checked against the city first (a bad one:\n"
      "a message naming the file and JSON pointer, exit 2, nothing served) and served at\n"
      "/scenario.json (docs/scenarios.md).");
  sv->add_option("dir", vo.dir, "Folder written by `cityforge generate` or `cityforge island`")
      ->required();
  sv->add_option("--port", vo.port, "TCP port (0: any free one, printed on start)")
      ->check(CLI::Range(0, 65535))
      ->default_val(vo.port);
  sv->add_option("--host", vo.host,
                 "Address to bind (default 127.0.0.1: this machine only; 0.0.0.0 exposes the "
                 "city to the network)")
      ->default_val(vo.host);
  sv->add_option("--root", vo.root,
                 "Viewer folder (built static files) served at / (default: $CITYFORGE_VIEWER, "
                 "else this build's viewer/dist when it exists)");
  sv->add_flag("--live", vo.live,
               "Run the city's traffic and crowd in real time and stream them at ws://.../live "
               "(docs/live.md)");
  sv->add_option("--vehicles", vo.vehicles, "Live: moving vehicles (clamped to the capacity)")
      ->default_val(vo.vehicles);
  sv->add_option("--pedestrians", vo.pedestrians, "Live: pedestrians")->default_val(vo.pedestrians);
  sv->add_option("--seed", vo.seed, "Live: seed")->default_val(vo.seed);
  sv->add_option("--speed", vo.speed, "Live: simulated seconds per wall second")
      ->check(CLI::Range(0.05, 16.0))
      ->default_val(vo.speed);
  sv->add_option("--scenario", vo.scenario,
                 "Live: a scenario file (data/scenarios/*.json; docs/scenarios.md); its seed, "
                 "traffic, weather and time of day replace --seed, --vehicles and --pedestrians");
  sv->footer(
      "Examples:\n"
      "  cityforge generate -o out && cityforge serve out --live\n"
      "  cityforge serve out --live --scenario data/scenarios/night-rain-downtown.json\n"
      "  mpirun -np 2 cityforge serve out --live   # the simulation shared over 2 ranks,\n"
      "                                            # rank 0 serving (docs/live.md)\n"
      "Exit codes: 0 stopped by Ctrl-C / SIGTERM, 2 bad input (folder, scenario, vehicle file),\n"
      "1 other failure (the port is taken).");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (g->parsed() || im->parsed() || sc->parsed() || sv->parsed()) restart_with_huge_pages(argv);
  // GEOS is loaded, not linked (core/geos_library.hpp): a missing library stops here, clearly
  // (the island loads it once its heap is set up).
  if (!isl->parsed()) {
    if (Status geos = load_geos(); !geos) return fail(geos.error());
  }
  // Ctrl-C and SIGTERM stop cleanly (serve has its own handling: it stops serving).
  if (!sv->parsed()) stop_cleanly_on_signals();
  // Under mpirun (or srun), generate and import share the work over the ranks, simulate and
  // serve --live their traffic and crowd; the other commands are one process.
  if (started_by_mpi_launcher()) {
    if (sv->parsed() && !vo.live) {
      return fail(Error::invalid_input(
          "mpirun",
          "serve shares only its live simulation over ranks: add --live, or start it "
          "without mpirun"));
    }
    if (!g->parsed() && !im->parsed() && !sc->parsed() && !sv->parsed()) {
      return fail(Error::invalid_input(
          "mpirun",
          "only `generate`, `import`, `simulate` and `serve --live` run on several ranks; start "
          "this command alone"));
    }
#ifdef CITYFORGE_HAVE_MPI
    Result<std::unique_ptr<Ranks>> opened = mpi::open_ranks(&argc, &argv);
    if (!opened) return fail(opened.error());
    g_mpi = std::move(*opened);
#else
    return fail(Error::invalid_input(
        "mpirun",
        "this cityforge was built without MPI (install libopenmpi-dev and rebuild); "
        "run it without mpirun"));
#endif
  }
  if (g->parsed()) return generate(gen);
  if (im->parsed()) return import_place(imp);
  if (b->parsed()) return finish(exporter::write_one_building(one, warn), one_quiet);
  if (wc->parsed()) return finish(exporter::run_wfc(wo), wfc_quiet);
  if (isl->parsed()) return island(io, island_quiet);
  if (sv->parsed()) {
#ifdef CITYFORGE_HAVE_MPI
    if (g_mpi) vo.ranks = g_mpi.get();
#endif
    return serve(vo);
  }
  if (sc->parsed()) {
    so.record = !no_record;
    so.lod = !no_lod;
    so.trip_reach_m = trip_reach_km * 1000.0;
    if (g_mpi) so.ranks = g_mpi.get();
    return simulate(so, sim_threads, sim_quiet);
  }
  return kExitFailure;
}
