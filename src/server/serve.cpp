// SPDX-License-Identifier: Apache-2.0
// `cityforge serve`: a small static HTTP/1.1 server (Boost.Beast over Boost.Asio) for a city
// folder at /city/<path> and the viewer's files at / (http.cpp), and with --live the city's
// simulation streamed over a WebSocket at /live (live.cpp, websocket.cpp).
#include "cityforge/server/serve.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>

#include "cityforge/core/ranks.hpp"
#include "cityforge/server/scenario.hpp"
#include "http.hpp"

namespace cityforge::server {
namespace {

namespace fs = std::filesystem;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

/// Files whose presence marks a city folder.
constexpr std::array<std::string_view, 7> kCityFiles = {
    "city.glb",      "tiles/tileset.json", "lanes.json", "layout.geojson",
    "traffic.cfrec", "shepherds.json",     "island.glb"};

/// What serve() reads before it listens: the city folder, the viewer's, an island's session
/// and a scenario.
struct Prepared {
  fs::path city;
  std::optional<fs::path> viewer;
  std::optional<islands::IslandSession> island;
  std::optional<Scenario> scenario;
  std::shared_ptr<const std::string> scenario_text;
};

/// The checks of step 1. `lead`: this process serves files (rank 0): the viewer and an island
/// are its alone.
Status prepare(const ServeOptions& options, bool lead, Prepared& p) {
  std::error_code ec;
  if (!fs::is_directory(options.dir, ec)) {
    return Error::invalid_input("", "OUT_DIR '" + options.dir +
                                        "' is not a folder (run `cityforge generate -o " +
                                        options.dir + "` first)");
  }
  const bool has_city = std::any_of(kCityFiles.begin(), kCityFiles.end(), [&](auto name) {
    return fs::is_regular_file(fs::path(options.dir) / name, ec);
  });
  if (!has_city) {
    return Error::invalid_input(
        "", "'" + options.dir +
                "' holds no city files (expected one of city.glb, "
                "tiles/tileset.json, lanes.json, layout.geojson, traffic.cfrec, "
                "shepherds.json, island.glb)");
  }
  std::string root = lead ? options.root : std::string();
  if (lead && root.empty()) {
    // $CITYFORGE_VIEWER, else the viewer this binary was built next to (when built).
    const char* env = std::getenv("CITYFORGE_VIEWER");
    if (env != nullptr) {
      root = std::string(env) == "none" ? std::string() : std::string(env);
    } else if (!options.built_root.empty() && fs::is_directory(options.built_root, ec)) {
      root = options.built_root;
    }
  }
  if (!root.empty()) {
    if (!fs::is_directory(root, ec)) {
      return Error::invalid_input(
          "", std::string(options.root.empty() ? "CITYFORGE_VIEWER" : "--root") + " '" + root +
                  "' is not a folder");
    }
    p.viewer = fs::canonical(root, ec);
  }
  p.city = fs::canonical(options.dir, ec);
  const fs::path& city = p.city;

  // An island folder (`cityforge island`), made again from its stats.json before anything
  // starts: the viewer's island page edits it and the files are written back.
  if (lead && fs::is_regular_file(city / "island.glb", ec) &&
      fs::is_regular_file(city / "stats.json", ec)) {
    Result<islands::IslandSession> session = islands::IslandSession::open(city.string());
    if (!session) return session.error();
    p.island.emplace(std::move(*session));
  }

  // A scenario is checked whole before anything listens: a bad one is a message, not a server.
  if (!options.scenario.empty()) {
    if (!options.live) {
      return Error::invalid_input("", "--scenario '" + options.scenario +
                                          "' needs --live (the scenario drives the live "
                                          "simulation)");
    }
    Result<Scenario> loaded = load_scenario(options.scenario, city.string());
    if (!loaded) return loaded.error();
    p.scenario.emplace(std::move(*loaded));
    p.scenario_text = std::make_shared<const std::string>(scenario_json(*p.scenario) + "\n");
  }
  return Ok{};
}

/// Step 2: binds and listens on the options' host and port.
Status listen(const ServeOptions& options, tcp::acceptor& acceptor, asio::ip::address& address) {
  boost::system::error_code bec;
  address = asio::ip::make_address(options.host, bec);
  if (bec) {
    return Error::invalid_input("", "--host '" + options.host + "' is not an IP address");
  }
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
  acceptor.open(endpoint.protocol(), bec);
  if (!bec) acceptor.set_option(asio::socket_base::reuse_address(true), bec);
  if (!bec) acceptor.bind(endpoint, bec);
  if (!bec) acceptor.listen(asio::socket_base::max_listen_connections, bec);
  if (bec) {
    return Error::io("", "cannot listen on " + options.host + " port " +
                             std::to_string(options.port) +
                             (bec == asio::error::address_in_use
                                  ? " (port " + std::to_string(options.port) + " is already in use)"
                                  : "") +
                             ": " + bec.message());
  }
  return Ok{};
}

}  // namespace

Status serve(const ServeOptions& options, std::ostream& out) {
  using detail::LiveHub;
  using detail::Server;
  // Under mpirun every rank checks and builds; rank 0 alone listens, serves and streams.
  const Ranks& ranks = options.ranks != nullptr ? *options.ranks : single_rank();
  const bool lead = ranks.rank() == 0;
  if (ranks.size() > 1 && !options.live) {
    return Error::invalid_input("mpirun",
                                "serve shares only its live simulation over ranks: add --live, "
                                "or start it without mpirun");
  }
  // 1. The folders (over ranks, the lowest failing rank's error on every rank).
  Prepared prepared;
  if (Status st = agree(ranks, prepare(options, lead, prepared)); !st) return st;
  const fs::path& city = prepared.city;
  std::optional<fs::path>& viewer = prepared.viewer;
  std::optional<islands::IslandSession>& island = prepared.island;
  const std::optional<Scenario>& scenario = prepared.scenario;
  const std::shared_ptr<const std::string>& scenario_text = prepared.scenario_text;

  // 2. Listen (rank 0).
  asio::io_context io;
  tcp::acceptor acceptor(io);
  asio::ip::address address;
  if (Status st = agree(ranks, lead ? listen(options, acceptor, address) : Status(Ok{})); !st)
    return st;
  const unsigned short port = lead ? acceptor.local_endpoint().port() : 0;
  const std::string host = address.is_v6() ? "[" + options.host + "]" : options.host;

  // 3. The live simulation, built before the URL is printed so that /live answers at once.
  std::unique_ptr<LiveSim> live;
  if (options.live) {
    LiveOptions lo;
    lo.dir = city.string();
    lo.vehicles = options.vehicles;
    lo.pedestrians = options.pedestrians;
    lo.seed = options.seed;
    lo.speed = options.speed;
    lo.ranks = &ranks;
    if (scenario) {
      lo.seed = scenario->seed;
      lo.vehicles = scenario->vehicles;
      lo.pedestrians = scenario->pedestrians;
      lo.weather = scenario->weather;
      lo.fog = scenario->fog;
      lo.hour = scenario->time_of_day_h;
      lo.day_length_s = 86400;  // A study's clock runs in real time.
    }
    Result<std::unique_ptr<LiveSim>> made = LiveSim::create(lo);
    if (!made) return Error::invalid_input("error", made.error().to_string());
    live = std::move(*made);
  }
  // The other ranks tick with rank 0 until it stops. Ctrl-C or mpirun's SIGTERM reaches every
  // rank: rank 0 alone acts on it and tells them (a rank ended by the signal would make the
  // launcher end rank 0 before it said goodbye to its clients).
  if (!lead) {
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGTERM, SIG_IGN);
    live->follow();
    return Ok{};
  }
  // 4. Live sessions run on one I/O thread; the HTTP connections accepted onto the same
  // context use their sockets synchronously on threads of their own.
  std::signal(SIGPIPE, SIG_IGN);  // Writes to a vanished client fail with EPIPE, not a signal.
  asio::io_context live_io(1);
  auto live_work = asio::make_work_guard(live_io);
  std::thread live_thread([&] { live_io.run(); });
  std::optional<LiveHub> hub;
  if (live) {
    hub.emplace(live_io, *live);
    live->start([&](const LiveFrame& f) { hub->broadcast(f); },
                [&](std::shared_ptr<const std::string> t) { hub->broadcast(std::move(t)); });
  }

  // 5. Accept until SIGINT / SIGTERM.
  Server server(city, viewer, hub ? &*hub : nullptr, island ? &*island : nullptr, scenario_text);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
  });
  std::function<void()> accept_next = [&] {
    acceptor.async_accept(live_io, [&](const boost::system::error_code& aec, tcp::socket socket) {
      if (aec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!aec) server.start(std::move(socket));
      accept_next();
    });
  };
  accept_next();
  // The URL last: everything a client meets (and every descriptor the process keeps) exists.
  out << "http://" << host << ":" << port << "/" << std::endl;
  out << (live ? live->summary() : std::string("live: off (--live runs the simulation)"))
      << std::endl;
  out << "serving " << city.string() << " at /city/"
      << (viewer ? ", viewer " + viewer->string() + " at /" : std::string()) << std::endl;
  if (scenario) {
    out << "scenario: " << scenario->name << " (" << scenario->file << ", "
        << scenario->hazards.size() << " hazards, vehicle " << scenario->vehicle
        << ") at /scenario.json; drive it at http://" << host << ":" << port << "/?scenario=1"
        << std::endl;
  }
  if (island) {
    out << "island: " << (city / "island.glb").string()
        << " (edit it at /island.html; POST /island/edit?cell=N&kind=raise|lower|paint[&colour=K])"
        << std::endl;
  }
  io.run();

  // 6. Shut down: HTTP threads, the simulation, then the live clients (a close frame each,
  // a second to answer it), then the I/O thread.
  server.stop();
  if (live) {
    live->stop();
    hub->close_all();
    for (int i = 0; i < 100 && hub->clients() > 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  live_work.reset();
  live_io.stop();
  live_thread.join();
  out << "serve: stopped" << std::endl;
  return Ok{};
}

}  // namespace cityforge::server
