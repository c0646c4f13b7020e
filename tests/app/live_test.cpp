// SPDX-License-Identifier: Apache-2.0
// `cityforge serve --live` on a small generated city, spoken to with Beast WebSocket clients:
// hello, env, then frames from a key frame; each inbound limit closes only its own connection
// with its code (1009 oversize, 1007 malformed, 1003 binary, 1008 rate) while another client
// keeps receiving; a client that vanishes without a close frame; 50 clients at once with the
// simulation keeping pace; the player's car in the frames with traffic stopping behind it; a
// weather change broadcast to another client; SIGTERM with clients connected.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/cli_run.hpp"
#include "cityforge/crowd/crowd.hpp"
#include "cityforge/roads/roads.hpp"
#include "cityforge/traffic/network.hpp"
#include "cityforge/traffic/partition.hpp"
#include "cityforge/traffic/stream.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;
using tcp = asio::ip::tcp;
using json = nlohmann::json;
using namespace cityforge;

/// A small city in the build tree, generated once for every test process (written to a
/// temporary folder and renamed, so that parallel tests never see half of one).
fs::path small_city() {
  const fs::path dir = fs::path(CITYFORGE_BINARY_DIR) / "test_cities" / "live_small";
  if (fs::exists(dir / "lanes.json")) return dir;
  const fs::path tmp = dir.string() + ".tmp" + std::to_string(::getpid());
  fs::create_directories(tmp);
  std::ofstream(tmp / "small.json") << clitest::kSmallCommercialCity;
  const auto r = clitest::run_cli("generate " + (tmp / "small.json").string() +
                                  " -q --no-sumo -o " + (tmp / "city").string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::error_code ec;
  fs::rename(tmp / "city", dir, ec);  // Another process may have won: fine.
  fs::remove_all(tmp);
  return dir;
}

/// `cityforge serve CITY --port 0 --live ...`, stopped with SIGTERM (which must exit 0). With
/// `ranks` > 0 under `mpirun -np RANKS` (stdout and stderr together): SIGTERM must stop rank 0
/// cleanly ("serve: stopped"), no rank killed (mpirun itself exits 1 after passing a signal on).
class Server {
 public:
  explicit Server(std::vector<std::string> extra = {}, int pedestrians = 300, int ranks = 0)
      : m_ranks(ranks) {
    int out[2];
    if (::pipe(out) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    if (ranks > 0) posix_spawn_file_actions_adddup2(&fa, out[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    std::vector<std::string> args = {CITYFORGE_EXE,
                                     "serve",
                                     small_city().string(),
                                     "--port",
                                     "0",
                                     "--live",
                                     "--vehicles",
                                     "200",
                                     "--pedestrians",
                                     std::to_string(pedestrians)};
    args.insert(args.end(), extra.begin(), extra.end());
    if (ranks > 0) {
      std::string line = "exec env " + clitest::mpirun(ranks);
      for (const std::string& a : args)
        line += a + " ";
      args = {"/bin/sh", "-c", line};
    }
    std::vector<char*> argv;
    for (std::string& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_store = {"CITYFORGE_VIEWER=none"};
    std::vector<char*> env = {env_store[0].data()};
    for (char** e = environ; *e != nullptr; ++e)
      if (std::string(*e).rfind("CITYFORGE_VIEWER=", 0) != 0) env.push_back(*e);
    env.push_back(nullptr);
    if (posix_spawn(&m_pid, argv[0], &fa, nullptr, argv.data(), env.data()) != 0) m_pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    m_out = ::fdopen(out[0], "r");
    char line[512] = {};
    // The URL first (under mpirun, after anything the launcher says).
    for (int i = 0; m_pid > 0 && i < 50 && url.rfind("http://", 0) != 0; ++i) {
      if (std::fgets(line, sizeof line, m_out) == nullptr) return;
      url = line;
    }
    if (url.rfind("http://127.0.0.1:", 0) == 0) port = std::stoi(url.substr(17));
    if (std::fgets(line, sizeof line, m_out) != nullptr) live_line = line;
  }
  ~Server() {
    if (m_pid > 0) {
      ::kill(m_pid, SIGTERM);
      int status = 0;
      ::waitpid(m_pid, &status, 0);
      if (m_ranks == 0) {
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "no clean shutdown";
      } else {
        std::string rest;
        char line[512];
        while (m_out && std::fgets(line, sizeof line, m_out) != nullptr)
          rest += line;
        EXPECT_TRUE(WIFEXITED(status)) << "mpirun killed";
        EXPECT_NE(rest.find("serve: stopped"), std::string::npos) << "no clean shutdown:\n" << rest;
        EXPECT_EQ(rest.find("signal"), std::string::npos) << "a rank was killed:\n" << rest;
      }
    }
    if (m_out) std::fclose(m_out);
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// GET /live/stats.
  json stats() const {
    const auto r = clitest::run_command(
        "curl -s --max-time 5 http://127.0.0.1:" + std::to_string(port) + "/live/stats");
    return json::parse(r.output, nullptr, false);
  }

  pid_t pid() const { return m_pid; }

  /// Waits up to `timeout_s` for the process to end by itself: its wait status and the rest
  /// of its output, or false when it still runs.
  bool wait_exit(double timeout_s, int* status, std::string* rest) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (m_pid > 0 && std::chrono::steady_clock::now() < end) {
      if (::waitpid(m_pid, status, WNOHANG) == m_pid) {
        m_pid = -1;
        char line[512];
        while (m_out && std::fgets(line, sizeof line, m_out) != nullptr)
          *rest += line;
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  int port = 0;
  std::string url;
  std::string live_line;

 private:
  int m_ranks = 0;
  pid_t m_pid = -1;
  FILE* m_out = nullptr;
};

/// /live/stats once `done` holds of it (counters change as the server's threads get to them),
/// or as it is after 5 s.
template <class Pred>
json stats_when(const Server& s, Pred done) {
  json st;
  for (int i = 0; i < 50; ++i) {
    st = s.stats();
    if (done(st)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return st;
}

struct Message {
  bool binary = false;
  std::string data;
};

/// A WebSocket client whose reads give up after a deadline (async reads on its own context).
class Client {
 public:
  bool connect(int port) {
    boost::system::error_code ec;
    m_ws.next_layer().connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)), ec);
    if (ec) return false;
    m_ws.handshake("127.0.0.1", "/live", ec);
    return !ec;
  }
  /// The next message, or nullopt on a close (close_code() says which), error or timeout.
  std::optional<Message> next(double timeout_s = 5) {
    m_buf.clear();
    boost::system::error_code ec = asio::error::would_block;
    m_ws.async_read(m_buf, [&](const boost::system::error_code& e, std::size_t) { ec = e; });
    m_io.restart();
    m_io.run_for(std::chrono::milliseconds(static_cast<long>(timeout_s * 1000)));
    if (ec == asio::error::would_block) {  // Timed out: abandon the read.
      boost::system::error_code ignored;
      m_ws.next_layer().cancel(ignored);
      m_io.restart();
      m_io.run();
      m_timed_out = true;
      return std::nullopt;
    }
    if (ec) {
      m_error = ec;
      return std::nullopt;
    }
    Message m;
    m.binary = m_ws.got_binary();
    m.data = beast::buffers_to_string(m_buf.data());
    return m;
  }
  /// The next binary message, skipping text ones.
  std::optional<Message> next_frame(double timeout_s = 5) {
    for (;;) {
      std::optional<Message> m = next(timeout_s);
      if (!m || m->binary) return m;
    }
  }
  bool send_text(const std::string& text) {
    boost::system::error_code ec;
    m_ws.text(true);
    m_ws.write(asio::buffer(text), ec);
    return !ec;
  }
  bool send_binary(const std::string& data) {
    boost::system::error_code ec;
    m_ws.binary(true);
    m_ws.write(asio::buffer(data), ec);
    return !ec;
  }
  /// Reads until the server closes; the close code (0: none came before the deadline).
  int wait_close(double timeout_s = 5) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      if (!next(timeout_s)) break;
    }
    return m_error == websocket::error::closed ? static_cast<int>(m_ws.reason().code) : 0;
  }
  /// Drops the connection without a close frame: RST (linger 0).
  void vanish() {
    boost::system::error_code ignored;
    m_ws.next_layer().set_option(asio::socket_base::linger(true, 0), ignored);
    m_ws.next_layer().close(ignored);
  }
  bool timed_out() const { return m_timed_out; }

 private:
  asio::io_context m_io;
  websocket::stream<tcp::socket> m_ws{m_io};
  beast::flat_buffer m_buf;
  boost::system::error_code m_error;
  bool m_timed_out = false;
};

traffic::StreamConfig config_of(const json& hello) {
  traffic::StreamConfig c;
  c.origin = Vec3{hello["origin"][0].get<double>(), hello["origin"][1].get<double>(),
                  hello["origin"][2].get<double>()};
  c.step_m = hello["step_m"].get<float>();
  c.key_every = hello["key_every"].get<std::uint32_t>();
  return c;
}

std::span<const std::uint8_t> bytes(const Message& m) {
  return {reinterpret_cast<const std::uint8_t*>(m.data.data()), m.data.size()};
}

/// Connects and reads hello and env; the decoder configured from the hello.
struct Joined {
  Client client;
  json hello;
  json env;
};
bool join(Joined& j, int port) {
  if (!j.client.connect(port)) return false;
  std::optional<Message> h = j.client.next();
  std::optional<Message> e = j.client.next();
  if (!h || !e || h->binary || e->binary) return false;
  j.hello = json::parse(h->data, nullptr, false);
  j.env = json::parse(e->data, nullptr, false);
  return j.hello.value("type", "") == "hello" && j.env.value("type", "") == "env";
}

/// Whether `c` still receives frames that decode in order.
void expect_frames_flow(Client& c, const traffic::StreamConfig& config, int count,
                        const char* when) {
  traffic::StreamDecoder dec(config);
  int decoded = 0;
  for (int i = 0; i < count + 20 && decoded < count; ++i) {
    std::optional<Message> m = c.next_frame();
    ASSERT_TRUE(m) << when << ": the other client stopped receiving frames";
    if (dec.decode(bytes(*m)).ok()) ++decoded;
  }
  EXPECT_EQ(decoded, count) << when;
}

TEST(LiveServe, HelloEnvThenFramesFromAKeyFrame) {
  Server s;
  ASSERT_GT(s.port, 0) << s.url;
  EXPECT_NE(s.live_line.find("live:"), std::string::npos) << s.live_line;
  Joined j;
  ASSERT_TRUE(join(j, s.port));
  EXPECT_EQ(j.hello["format"], "cityforge-live");
  EXPECT_EQ(j.hello["max_message_bytes"], 4096);
  EXPECT_EQ(j.env["weather"], "clear");
  traffic::StreamDecoder dec(config_of(j.hello));
  std::optional<Message> first = j.client.next_frame();
  ASSERT_TRUE(first);
  Result<traffic::StreamFrame> f = dec.decode(bytes(*first));
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_TRUE(f->key) << "a joining client starts at a key frame";
  EXPECT_EQ(f->agents.size(), 500u);  // 200 vehicles + 300 pedestrians.
  std::uint64_t tick = f->tick;
  for (int i = 0; i < 15; ++i) {
    std::optional<Message> m = j.client.next_frame();
    ASSERT_TRUE(m);
    Result<traffic::StreamFrame> g = dec.decode(bytes(*m));
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    EXPECT_EQ(g->tick, tick + 1) << "one frame per tick, none skipped";
    tick = g->tick;
  }
}

TEST(LiveServe, OversizedMessageClosesOnlyThatClientWith1009) {
  Server s;
  Joined a;
  Joined b;
  ASSERT_TRUE(join(a, s.port));
  ASSERT_TRUE(join(b, s.port));
  a.client.send_text(R"({"type":"viewer","x":0,"y":0,"z":0,"yaw_deg":0,"pad":")" +
                     std::string(5000, 'x') + "\"}");
  EXPECT_EQ(a.client.wait_close(), 1009);
  expect_frames_flow(b.client, config_of(b.hello), 12, "after an oversized message");
  EXPECT_EQ(
      stats_when(s, [](const json& j) { return j["closed_oversize"] == 1; })["closed_oversize"], 1);
}

TEST(LiveServe, BadMessagesCloseOnlyTheirConnection) {
  Server s;
  Joined watcher;
  ASSERT_TRUE(join(watcher, s.port));
  struct Case {
    const char* name;
    std::string text;
    bool binary;
    int code;
  };
  const std::vector<Case> cases = {
      {"not JSON", "{type: viewer", false, 1007},
      {"unknown type", R"({"type":"teleport"})", false, 1007},
      {"wrong field type", R"({"type":"viewer","x":"1","y":0,"z":0,"yaw_deg":0})", false, 1007},
      {"missing field", R"({"type":"player","x":1,"y":2,"z":0,"heading_rad":0})", false, 1007},
      {"bad weather", R"({"type":"weather","kind":"snow","fog":false})", false, 1007},
      {"binary", std::string("\x01\x02\x03", 3), true, 1003},
  };
  for (const Case& c : cases) {
    Joined j;
    ASSERT_TRUE(join(j, s.port)) << c.name;
    if (c.binary) {
      j.client.send_binary(c.text);
    } else {
      j.client.send_text(c.text);
    }
    EXPECT_EQ(j.client.wait_close(), c.code) << c.name;
    expect_frames_flow(watcher.client, config_of(watcher.hello), 3, c.name);
  }
  // Over the rate: 30 a second with bursts of 60, so 100 at once cannot pass.
  Joined fast;
  ASSERT_TRUE(join(fast, s.port));
  for (int i = 0; i < 100; ++i) {
    if (!fast.client.send_text(R"({"type":"viewer","x":1,"y":2,"z":3,"yaw_deg":4})")) break;
  }
  EXPECT_EQ(fast.client.wait_close(), 1008);
  expect_frames_flow(watcher.client, config_of(watcher.hello), 5, "after a flood");
  const json st = stats_when(s, [](const json& j) { return j["clients"] == 1; });
  EXPECT_EQ(st["closed_malformed"], 5);
  EXPECT_EQ(st["closed_binary"], 1);
  EXPECT_EQ(st["closed_rate"], 1);
  EXPECT_EQ(st["clients"], 1);
}

TEST(LiveServe, AClientVanishingMidStreamStopsNothing) {
  Server s;
  Joined stays;
  ASSERT_TRUE(join(stays, s.port));
  for (int round = 0; round < 3; ++round) {
    Joined gone;
    ASSERT_TRUE(join(gone, s.port));
    ASSERT_TRUE(gone.client.next_frame());
    // Its car (off the road here: no lane within 8 m of the far corner) goes with it.
    ASSERT_TRUE(gone.client.send_text(
        R"({"type":"player","x":-500,"y":-500,"z":0,"heading_rad":0,"speed_mps":0})"));
    ASSERT_TRUE(gone.client.next_frame());
    gone.client.vanish();  // No close frame: a reset.
  }
  expect_frames_flow(stays.client, config_of(stays.hello), 15, "after resets");
  // The vanished sessions are gone from the hub, their cars from the simulation (at the next
  // tick).
  const json st =
      stats_when(s, [](const json& j) { return j["clients"] == 1 && j["players"] == 0; });
  EXPECT_EQ(st["clients"], 1);
  EXPECT_EQ(st["players"], 0);
}

// A full hub: every live place taken, the next upgrade is answered 503 with a reason (and
// nobody else is disturbed); once one client leaves, its place is taken again.
TEST(LiveServe, AFullHubAnswers503AndAFreedPlaceIsTakenAgain) {
  Server s({}, 50);
  const int kFull = s.stats()["clients_max"].get<int>();
  ASSERT_GT(kFull, 0);
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < kFull; ++i) {
    clients.push_back(std::make_unique<Client>());
    ASSERT_TRUE(clients.back()->connect(s.port)) << "client " << i;
  }
  EXPECT_EQ(stats_when(s, [&](const json& j) { return j["clients"] == kFull; })["clients"], kFull);
  // One more upgrade, read as plain HTTP so the 503's body can be seen too.
  asio::io_context io;
  tcp::socket sock(io);
  boost::system::error_code ec;
  sock.connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(s.port)), ec);
  ASSERT_FALSE(ec) << ec.message();
  beast::http::request<beast::http::empty_body> req{beast::http::verb::get, "/live", 11};
  req.set(beast::http::field::host, "127.0.0.1");
  req.set(beast::http::field::connection, "Upgrade");
  req.set(beast::http::field::upgrade, "websocket");
  req.set(beast::http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  req.set(beast::http::field::sec_websocket_version, "13");
  beast::http::write(sock, req, ec);
  ASSERT_FALSE(ec) << ec.message();
  beast::flat_buffer buf;
  beast::http::response<beast::http::string_body> res;
  beast::http::read(sock, buf, res, ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 503u);
  EXPECT_EQ(res.body(), "too many live clients\n");
  // The last client leaves; its place is free again once the hub has seen it go.
  clients.back()->vanish();
  clients.pop_back();
  EXPECT_EQ(stats_when(s, [&](const json& j) { return j["clients"] == kFull - 1; })["clients"],
            kFull - 1);
  Joined again;
  EXPECT_TRUE(join(again, s.port));
  expect_frames_flow(again.client, config_of(again.hello), 5, "in the freed place");
}

// A client that stops reading: its queue fills (after the kernel's buffers), its frames are
// dropped and counted, and another client goes on decoding every frame in order. At 16 x
// speed and 3000 pedestrians the buffers fill within seconds.
TEST(LiveServe, AStalledClientHasFramesDroppedAndStallsNoOne) {
  Server s({"--speed", "16"}, 3000);
  ASSERT_GT(s.port, 0);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const int small = 4096;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(s.port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string upgrade =
      "GET /live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
  ASSERT_EQ(::send(fd, upgrade.data(), upgrade.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(upgrade.size()));
  Joined reader;
  ASSERT_TRUE(join(reader, s.port));
  traffic::StreamDecoder dec(config_of(reader.hello));
  // Reads while the stalled client's queue fills, until drops are counted (or 40 s).
  int decoded = 0;
  int failed = 0;
  json st;
  for (int round = 0; round < 80; ++round) {
    for (int i = 0; i < 80; ++i) {
      std::optional<Message> m = reader.client.next_frame();
      ASSERT_TRUE(m) << "the reading client stopped receiving";
      if (dec.decode(bytes(*m)).ok()) {
        ++decoded;
      } else {
        ++failed;
      }
    }
    st = s.stats();
    if (st["frames_dropped"].get<int>() > 0) break;
  }
  EXPECT_GT(st["frames_dropped"].get<int>(), 0) << st.dump();
  EXPECT_EQ(st["clients"], 2);
  EXPECT_EQ(failed, 0) << "the reading client lost frames";
  EXPECT_GT(decoded, 0);
  ::close(fd);
}

TEST(LiveServe, FiftyClientsReceiveFramesAndTheSimulationKeepsPace) {
  Server s;
  constexpr int kClients = 50;
  std::vector<std::unique_ptr<Joined>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<Joined>());
    ASSERT_TRUE(join(*clients.back(), s.port)) << "client " << i;
  }
  const json before = s.stats();
  ASSERT_EQ(before["clients"], kClients);
  // Every client reads and decodes for 4 s on its own thread.
  std::vector<int> decoded(kClients, 0);
  std::vector<int> errors(kClients, 0);
  std::vector<std::thread> readers;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  for (int i = 0; i < kClients; ++i) {
    readers.emplace_back([&, i] {
      traffic::StreamDecoder dec(config_of(clients[i]->hello));
      while (std::chrono::steady_clock::now() < end) {
        std::optional<Message> m = clients[i]->client.next_frame(2);
        if (!m) break;
        if (dec.decode(bytes(*m)).ok()) {
          ++decoded[i];
        } else {
          ++errors[i];
        }
      }
    });
  }
  for (std::thread& t : readers)
    t.join();
  const json after = s.stats();
  for (int i = 0; i < kClients; ++i) {
    EXPECT_GE(decoded[i], 10) << "client " << i;
    EXPECT_EQ(errors[i], 0) << "client " << i << ": frames lost without waiting for a key";
  }
  // Simulated time kept up with wall time (target 1:1, with a wide margin).
  const double sim_s = after["time_s"].get<double>() - before["time_s"].get<double>();
  const double wall_s = after["wall_s"].get<double>() - before["wall_s"].get<double>();
  EXPECT_GE(sim_s, 0.8 * wall_s) << after.dump();
  const double per_client_bps =
      (after["bytes_sent"].get<double>() - before["bytes_sent"].get<double>()) / wall_s / kClients;
  std::printf(
      "[ live ] 50 clients: %.1f ticks/s (target %.0f), sim %.2f s in %.2f s wall, "
      "%.0f bytes/s per client, %.2f bytes per agent per frame, %s frames dropped\n",
      after["ticks_per_s"].get<double>(), after["target_ticks_per_s"].get<double>(), sim_s, wall_s,
      per_client_bps, after["bytes_per_agent_per_frame"].get<double>(),
      after["frames_dropped"].dump().c_str());
  // The server is stopped (SIGTERM) with the 50 clients still connected: it must exit 0.
}

// The soak (bench/live_soak.cpp; bench/live_soak.sh runs it for 10 minutes): 100 clients for
// 30 s, of which 80 readers leaving and joining again, 8 slow readers, 4 clients sending
// garbage, 4 sending oversized frames and 4 slowloris HTTP clients. Every reader decodes every
// frame, every abuse closes only its own connection with its code, the slowloris connections
// are answered 408 at the request deadline, /live/stats answers throughout, the simulation
// keeps pace and the server's memory does not grow after the warm-up.
TEST(LiveServe, SoakOfAHundredClientsUnderAbuse) {
  Server s;
  ASSERT_GT(s.port, 0);
  const auto r =
      clitest::run_command(std::string(CITYFORGE_LIVE_SOAK) + " --port " + std::to_string(s.port) +
                           " --pid " + std::to_string(s.pid()) + " --seconds 30 --warmup-s 8");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::size_t at = r.output.find("\n{");
  ASSERT_NE(at, std::string::npos) << r.output;
  std::printf("%s", r.output.substr(0, at + 1).c_str());  // Its progress lines.
  const json rep = json::parse(r.output.substr(at + 1), nullptr, false);
  ASSERT_TRUE(rep.is_object()) << r.output;
  const json& readers = rep["readers"];
  EXPECT_EQ(readers["decode_errors"], 0) << readers.dump();
  EXPECT_EQ(readers["first_frame_not_key"], 0) << readers.dump();
  EXPECT_EQ(readers["closed_by_server"], 0) << readers.dump();
  EXPECT_EQ(readers["join_failures"], 0) << readers.dump();
  EXPECT_GT(readers["joins"].get<int>(), 80) << "readers leave and join again";
  EXPECT_GE(readers["min_frames_per_slot"].get<int>(), 50) << readers.dump();
  EXPECT_GT(rep["slow"]["frames_decoded"].get<int>(), 0) << rep["slow"].dump();
  EXPECT_EQ(rep["slow"]["decode_errors"], 0) << rep["slow"].dump();
  // Each abuse, each time, closed its connection with its code and no other.
  const std::map<std::string, std::string> garbage_code = {
      {"not_a_frame", "1002"}, {"not_json", "1007"}, {"invalid_utf8", "1007"}, {"binary", "1003"}};
  for (const auto& [kind, code] : garbage_code) {
    const json& c = rep["garbage"]["close_codes"][kind];
    ASSERT_TRUE(c.is_object()) << kind << ": " << rep["garbage"].dump();
    EXPECT_EQ(c.size(), 1u) << kind << ": " << c.dump();
    EXPECT_GE(c.value(code, 0), 2) << kind << ": " << c.dump();
  }
  for (const char* kind : {"5000_bytes", "claimed_2^40"}) {
    const json& c = rep["oversize"]["close_codes"][kind];
    ASSERT_TRUE(c.is_object()) << kind << ": " << rep["oversize"].dump();
    EXPECT_EQ(c.size(), 1u) << kind << ": " << c.dump();
    EXPECT_GE(c.value("1009", 0), 2) << kind << ": " << c.dump();
  }
  // Slowloris: every connection held at most the 10 s request deadline (and a margin), 408.
  const json& sl = rep["slowloris"];
  EXPECT_GE(sl["closed_by_server"].get<int>(), 4) << sl.dump();
  EXPECT_EQ(sl["answered_408"], sl["closed_by_server"]) << sl.dump();
  EXPECT_LE(sl["hold_s_max"].get<double>(), 16.0) << sl.dump();
  EXPECT_EQ(rep["probes"]["failures"], 0) << rep["probes"].dump();
  // The server's own counters agree, the simulation kept pace, memory stayed flat.
  const json& server = rep["server"];
  ASSERT_TRUE(server.contains("stats_end")) << rep.dump();
  const json& st = server["stats_end"];
  EXPECT_GE(st["closed_protocol"].get<int>(), 2) << st.dump();
  EXPECT_GE(st["closed_oversize"].get<int>(), 4) << st.dump();
  EXPECT_GE(st["http_timed_out"].get<int>(), 4) << st.dump();
  EXPECT_GE(server["pace"].get<double>(), 0.8) << server.dump();
  EXPECT_LE(server["rss_growth_mib"].get<double>(),
            std::max(16.0, 0.1 * server["rss_mib_after_warmup"].get<double>()))
      << server.dump();
  std::printf("[ soak ] %s\n", server.dump().c_str());
}

/// The nearest point of a lane's centre line: distance and arc length.
struct OnLane {
  double d = 1e300;
  double s = 0;
  double dir_x = 1, dir_y = 0;
};
OnLane project(const traffic::Network& net, traffic::LaneId lane, double x, double y) {
  OnLane best;
  for (std::uint32_t i = net.point_begin[lane]; i + 1 < net.point_begin[lane + 1]; ++i) {
    const Vec3 a = net.points[i];
    const Vec3 b = net.points[i + 1];
    const double dx = b.x - a.x;
    const double dy = b.y - a.y;
    const double l2 = dx * dx + dy * dy;
    if (l2 <= 0) continue;
    const double u = std::clamp(((x - a.x) * dx + (y - a.y) * dy) / l2, 0.0, 1.0);
    const double d = std::hypot(a.x + dx * u - x, a.y + dy * u - y);
    if (d < best.d) {
      best.d = d;
      best.s = net.point_s[i] + u * (net.point_s[i + 1] - net.point_s[i]);
      best.dir_x = dx / std::sqrt(l2);
      best.dir_y = dy / std::sqrt(l2);
    }
  }
  return best;
}

Vec3 point_at(const traffic::Network& net, traffic::LaneId lane, double s, double* heading) {
  for (std::uint32_t i = net.point_begin[lane]; i + 1 < net.point_begin[lane + 1]; ++i) {
    if (net.point_s[i + 1] < s) continue;
    const Vec3 a = net.points[i];
    const Vec3 b = net.points[i + 1];
    const double u = (s - net.point_s[i]) / std::max(1e-9f, net.point_s[i + 1] - net.point_s[i]);
    *heading = std::atan2(b.y - a.y, b.x - a.x);
    return a + (b - a) * u;
  }
  return net.points[net.point_begin[lane + 1] - 1];
}

/// The player's car parked 25 m in front of a moving vehicle on a single lane (one of `lanes`
/// when given): it is streamed where it was put, the vehicle stops behind it, nothing on its
/// lane runs into it, and player_off removes it.
void expect_player_car_stops_traffic(const Server& s, const std::vector<bool>* lanes = nullptr) {
  Result<traffic::LanesFile> file =
      traffic::load_lanes_json((small_city() / "lanes.json").string());
  ASSERT_TRUE(file.ok());
  Result<traffic::Network> built = traffic::build_network(file->graph, file->controls);
  ASSERT_TRUE(built.ok());
  const traffic::Network& net = *built;
  Joined j;
  ASSERT_TRUE(join(j, s.port));
  traffic::StreamDecoder dec(config_of(j.hello));

  // 1. A moving vehicle alone on a single-lane stretch with room ahead: the player parks 25 m
  // in front of it.
  traffic::LaneId lane = traffic::kNoLane;
  double s_player = 0;
  std::uint32_t follower = 0;
  for (int tries = 0; tries < 100 && lane == traffic::kNoLane; ++tries) {
    std::optional<Message> m = j.client.next_frame();
    ASSERT_TRUE(m);
    Result<traffic::StreamFrame> f = dec.decode(bytes(*m));
    if (!f.ok()) continue;
    for (const traffic::VehicleSample& v : f->agents) {
      if (v.kind == traffic::EntityKind::pedestrian || v.speed_mps < 3) continue;
      for (traffic::LaneId l : net.spawn_lanes) {
        if (net.left[l] != traffic::kNoLane || net.right[l] != traffic::kNoLane) continue;
        if (lanes != nullptr && !(*lanes)[l]) continue;
        const OnLane p = project(net, l, v.position.x, v.position.y);
        if (p.d > 0.5 ||
            p.dir_x * std::cos(v.heading_rad) + p.dir_y * std::sin(v.heading_rad) < 0.95)
          continue;
        if (p.s < 5 || p.s + 25 > net.length_m[l] - 8) continue;
        lane = l;
        s_player = p.s + 25;
        follower = v.id;
        break;
      }
      if (lane != traffic::kNoLane) break;
    }
  }
  ASSERT_NE(lane, traffic::kNoLane) << "no moving vehicle with 25 m of single lane ahead";
  double heading = 0;
  const Vec3 at = point_at(net, lane, s_player, &heading);
  char msg[256];
  std::snprintf(msg, sizeof msg,
                R"({"type":"player","x":%.3f,"y":%.3f,"z":%.3f,"heading_rad":%.5f,"speed_mps":0})",
                at.x, at.y, at.z, heading);

  // 2. Nine seconds of frames, the pose sent every half second.
  bool player_seen = false;
  bool follower_stopped = false;
  double worst_front = -1e9;  // Largest s of a vehicle behind the player on its lane.
  for (int i = 0; i < 90; ++i) {
    if (i % 5 == 0) {
      ASSERT_TRUE(j.client.send_text(msg));
    }
    std::optional<Message> m = j.client.next_frame();
    ASSERT_TRUE(m);
    Result<traffic::StreamFrame> f = dec.decode(bytes(*m));
    if (!f.ok()) continue;
    for (const traffic::VehicleSample& v : f->agents) {
      if (v.kind == traffic::EntityKind::player) {
        player_seen = true;
        EXPECT_NEAR(v.position.x, at.x, 0.05);
        EXPECT_NEAR(v.position.y, at.y, 0.05);
        continue;
      }
      if (v.kind == traffic::EntityKind::pedestrian) continue;
      const OnLane p = project(net, lane, v.position.x, v.position.y);
      const bool along =
          p.dir_x * std::cos(v.heading_rad) + p.dir_y * std::sin(v.heading_rad) > 0.9;
      if (p.d > 1.0 || !along || p.s > s_player + 1) continue;
      worst_front = std::max(worst_front, p.s);
      // IDM closes in slowly: "stopped" is under 0.5 m/s within 8 m of the car's rear.
      if (v.id == follower && v.speed_mps < 0.5 && p.s > s_player - 4.5 - 8) {
        follower_stopped = true;
      }
    }
  }
  EXPECT_TRUE(player_seen);
  // The car's body is [s - 4.5, s]: nothing on its lane behind it reaches into it.
  EXPECT_LE(worst_front, s_player - 4.5 + 0.1);
  EXPECT_TRUE(follower_stopped) << "vehicle " << follower << " never stopped behind the car";
  const json st = s.stats();
  EXPECT_EQ(st["players"], 1);
  EXPECT_EQ(st["player"]["lane"], lane);

  // 3. player_off removes it.
  ASSERT_TRUE(j.client.send_text(R"({"type":"player_off"})"));
  bool gone = false;
  for (int i = 0; i < 20 && !gone; ++i) {
    std::optional<Message> m = j.client.next_frame();
    ASSERT_TRUE(m);
    Result<traffic::StreamFrame> f = dec.decode(bytes(*m));
    if (!f.ok()) continue;
    gone = std::none_of(f->agents.begin(), f->agents.end(), [](const traffic::VehicleSample& v) {
      return v.kind == traffic::EntityKind::player;
    });
  }
  EXPECT_TRUE(gone);
}

TEST(LiveServe, PlayerCarIsStreamedAndTrafficStopsBehindIt) {
  Server s;
  expect_player_car_stops_traffic(s);
}

/// Every agent, light and walk of a frame as bytes (not the rate the server measured).
std::string frame_content(const traffic::StreamFrame& f) {
  std::string out;
  const auto put = [&out](const auto& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  };
  put(f.tick);
  put(f.time_s);
  for (const traffic::VehicleSample& v : f.agents) {
    put(v.id);
    put(v.kind);
    put(v.flags);
    put(v.position.x);
    put(v.position.y);
    put(v.position.z);
    put(v.heading_rad);
    put(v.speed_mps);
    put(v.lod);
    put(v.state);
    put(v.variant);
  }
  for (const traffic::LightState l : f.lights)
    put(l);
  for (const traffic::WalkState w : f.walks)
    put(w);
  return out;
}

/// The content of every frame a client decodes, by tick, until tick `last` (or 30 s).
std::map<std::uint64_t, std::string> frames_until(const Server& s, std::uint64_t last) {
  std::map<std::uint64_t, std::string> out;
  Joined j;
  if (!join(j, s.port)) return out;
  traffic::StreamDecoder dec(config_of(j.hello));
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < end) {
    std::optional<Message> m = j.client.next_frame();
    if (!m) break;
    Result<traffic::StreamFrame> f = dec.decode(bytes(*m));
    if (!f.ok()) continue;
    out[f->tick] = frame_content(*f);
    if (f->tick >= last) break;
  }
  return out;
}

// Under mpirun the live simulation is shared over the ranks (docs/live.md, "Over MPI ranks"):
// without a client steering it, the stream is the one process's, frame for frame, for 2 and 3
// ranks (vehicles, pedestrians, their levels of detail, lights and walks).
TEST(LiveServe, OverMpiRanksTheStreamIsTheSameAsOneProcess) {
  if (const std::string why = clitest::no_mpi(); !why.empty()) GTEST_SKIP() << why;
  constexpr std::uint64_t kLast = 150;  // 15 simulated seconds, at speed 4.
  std::map<std::uint64_t, std::string> alone;
  {
    Server s({"--speed", "4"});
    ASSERT_GT(s.port, 0) << s.url;
    alone = frames_until(s, kLast);
  }
  ASSERT_FALSE(alone.empty());
  for (const int np : {2, 3}) {
    Server s({"--speed", "4"}, 300, np);
    ASSERT_GT(s.port, 0) << s.url;
    EXPECT_NE(s.live_line.find("over " + std::to_string(np) + " MPI ranks"), std::string::npos)
        << s.live_line;
    EXPECT_EQ(s.stats()["ranks"], np);
    const std::map<std::uint64_t, std::string> shared = frames_until(s, kLast);
    int compared = 0;
    for (const auto& [tick, content] : shared) {
      const auto it = alone.find(tick);
      if (it == alone.end()) continue;
      ++compared;
      EXPECT_TRUE(it->second == content)
          << np << " ranks: the frame of tick " << tick << " differs";
      if (it->second != content) break;
    }
    EXPECT_GE(compared, 50) << np << " ranks: too few frames in common";
  }
}

/// The process below `ancestor` whose environment says it is MPI rank `rank`, or -1.
pid_t rank_pid(pid_t ancestor, int rank) {
  const auto parent_of = [](pid_t pid) -> pid_t {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const std::size_t close = text.rfind(')');  // After the command name, which may hold spaces.
    if (close == std::string::npos) return -1;
    std::istringstream rest(text.substr(close + 1));
    std::string state;
    pid_t ppid = -1;
    rest >> state >> ppid;
    return ppid;
  };
  const std::string want = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    pid_t up = pid;
    for (int depth = 0; depth < 8 && up > 1 && up != ancestor; ++depth)
      up = parent_of(up);
    if (up != ancestor || pid == ancestor) continue;
    std::ifstream env("/proc/" + name + "/environ");
    std::string vars((std::istreambuf_iterator<char>(env)), std::istreambuf_iterator<char>());
    std::istringstream in(vars);
    for (std::string v; std::getline(in, v, '\0');)
      if (v == want) return pid;
  }
  return -1;
}

// A rank that dies mid-stream stops the job (the launcher ends the others): the clients lose
// the stream, nothing hangs.
TEST(LiveServe, OverMpiRanksAKilledRankStopsTheJob) {
  if (const std::string why = clitest::no_mpi(); !why.empty()) GTEST_SKIP() << why;
  Server s({}, 300, 2);
  ASSERT_GT(s.port, 0) << s.url;
  Joined j;
  ASSERT_TRUE(join(j, s.port));
  ASSERT_TRUE(j.client.next_frame());
  const pid_t rank1 = rank_pid(s.pid(), 1);
  ASSERT_GT(rank1, 0) << "no process of rank 1 below mpirun " << s.pid();
  ::kill(rank1, SIGKILL);
  bool streaming = true;
  for (int i = 0; i < 300 && streaming; ++i)
    streaming = j.client.next(2).has_value();
  EXPECT_FALSE(streaming) << "frames kept coming after rank 1 died";
  int status = 0;
  std::string rest;
  ASSERT_TRUE(s.wait_exit(30, &status, &rest)) << "the job still runs 30 s after rank 1 died";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << rest;
}

// The clients' controls reach every rank: a player's car parked on a lane of rank 1 (the cut
// the server makes: METIS is seeded) stops the vehicle behind it, and a density change applies
// on every rank (a rank that missed it would fail the exchange's count check and stop the job).
TEST(LiveServe, OverMpiRanksAPlayersCarStopsTheTrafficOfAnotherRank) {
  if (const std::string why = clitest::no_mpi(); !why.empty()) GTEST_SKIP() << why;
  Result<traffic::LanesFile> file =
      traffic::load_lanes_json((small_city() / "lanes.json").string());
  ASSERT_TRUE(file.ok());
  Result<traffic::Network> built = traffic::build_network(file->graph, file->controls);
  ASSERT_TRUE(built.ok());
  Result<traffic::Partition> cut = traffic::partition_network(*built, 2, 1);
  ASSERT_TRUE(cut.ok()) << cut.error().to_string();
  std::vector<bool> rank1(built->lane_count(), false);
  for (traffic::LaneId l = 0; l < built->lane_count(); ++l)
    rank1[l] = cut->lane_part[l] == 1;
  Server s({}, 300, 2);
  ASSERT_GT(s.port, 0) << s.url;
  expect_player_car_stops_traffic(s, &rank1);
  Joined j;
  ASSERT_TRUE(join(j, s.port));
  ASSERT_TRUE(j.client.send_text(R"({"type":"density","vehicles":120,"pedestrians":150})"));
  const json st = stats_when(s, [](const json& x) {
    return x.value("vehicles", 0) <= 120 && x.value("pedestrians", 0) == 150;
  });
  EXPECT_LE(st["vehicles"].get<int>(), 120) << st.dump();
  EXPECT_EQ(st["pedestrians"], 150) << st.dump();
  expect_frames_flow(j.client, config_of(j.hello), 20, "after the density change");
}

TEST(LiveServe, AHitPedestrianLiesDownWhereItFellAndTheOthersAroundFlee) {
  Server s({}, 600);  // Dense enough that someone walks within the flee radius.
  ASSERT_GT(s.port, 0) << s.url;
  Joined j;
  ASSERT_TRUE(join(j, s.port));
  traffic::StreamDecoder dec(config_of(j.hello));
  const auto next = [&]() -> std::optional<traffic::StreamFrame> {
    for (int i = 0; i < 20; ++i) {
      std::optional<Message> m = j.client.next_frame();
      if (!m) return std::nullopt;
      Result<traffic::StreamFrame> f = dec.decode(bytes(*m));
      if (f.ok()) return std::move(*f);
    }
    return std::nullopt;
  };
  // 1. A walking pedestrian; a hit without a car driving is refused.
  traffic::VehicleSample victim;
  bool found = false;
  for (int tries = 0; tries < 50 && !found; ++tries) {
    std::optional<traffic::StreamFrame> f = next();
    ASSERT_TRUE(f);
    for (const traffic::VehicleSample& v : f->agents) {
      if (v.kind == traffic::EntityKind::pedestrian && v.speed_mps > 0.8f && v.state == 0) {
        victim = v;
        found = true;
        break;
      }
    }
  }
  ASSERT_TRUE(found) << "no walking pedestrian";
  char msg[256];
  std::snprintf(msg, sizeof msg, R"({"type":"hit","id":%u})", victim.id);
  ASSERT_TRUE(j.client.send_text(msg));
  // 2. The car where the pedestrian is, then the hit.
  char car[256];
  std::snprintf(car, sizeof car,
                R"({"type":"player","x":%.3f,"y":%.3f,"z":%.3f,"heading_rad":0,"speed_mps":0})",
                victim.position.x, victim.position.y, victim.position.z);
  ASSERT_TRUE(j.client.send_text(car));
  ASSERT_TRUE(j.client.send_text(msg));
  // 3. Down from then on, where it was, not moving, for two seconds of frames; its neighbours
  // flee.
  std::optional<Vec3> lies;
  int down_frames = 0;
  std::uint32_t fleeing = 0;
  for (int i = 0; i < 40; ++i) {
    if (i % 5 == 0) {
      ASSERT_TRUE(j.client.send_text(car));
    }
    std::optional<traffic::StreamFrame> f = next();
    ASSERT_TRUE(f);
    for (const traffic::VehicleSample& v : f->agents) {
      if (v.kind != traffic::EntityKind::pedestrian) continue;
      if (v.id != victim.id) {
        fleeing += v.state == static_cast<std::uint8_t>(crowd::Behaviour::flee) ? 1U : 0U;
        continue;
      }
      if (v.state != static_cast<std::uint8_t>(crowd::Behaviour::down)) {
        EXPECT_FALSE(lies) << "got up again";
        continue;
      }
      down_frames += 1;
      EXPECT_EQ(v.speed_mps, 0.0f);
      if (!lies) {
        lies = v.position;
        EXPECT_LT(std::hypot(v.position.x - victim.position.x, v.position.y - victim.position.y),
                  3.0);
      }
      EXPECT_NEAR(v.position.x, lies->x, 0.05);
      EXPECT_NEAR(v.position.y, lies->y, 0.05);
    }
  }
  EXPECT_GE(down_frames, 30);
  EXPECT_GT(fleeing, 0U) << "no one around fled";
  // 4. Counted once; a second hit on it, or one on someone far from the car, is refused.
  ASSERT_TRUE(j.client.send_text(msg));
  std::snprintf(msg, sizeof msg, R"({"type":"hit","id":%u})", 999999U);
  ASSERT_TRUE(j.client.send_text(msg));
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(next());
  const json st = s.stats();
  EXPECT_EQ(st["casualties"], 1) << st.dump();
  EXPECT_EQ(st["hits_refused"], 3) << st.dump();
}

int pedestrians_max(const json& hello) { return hello["pedestrians_max"].get<int>(); }

TEST(LiveServe, WeatherChangeIsBroadcastToOtherClients) {
  Server s;
  Joined a;
  Joined b;
  ASSERT_TRUE(join(a, s.port));
  ASSERT_TRUE(join(b, s.port));
  ASSERT_TRUE(a.client.send_text(R"({"type":"weather","kind":"rain","fog":true})"));
  ASSERT_TRUE(a.client.send_text(R"({"type":"time","hour":20.5,"day_length_s":600})"));
  json env;
  for (int i = 0; i < 100; ++i) {
    std::optional<Message> m = b.client.next();
    ASSERT_TRUE(m);
    if (m->binary) continue;
    env = json::parse(m->data, nullptr, false);
    if (env.value("type", "") == "env" && env.value("day_length_s", 0.0) == 600) break;
  }
  EXPECT_EQ(env["weather"], "rain");
  EXPECT_EQ(env["fog"], true);
  EXPECT_NEAR(env["hour"].get<double>(), 20.5, 0.01);
  EXPECT_EQ(stats_when(s, [](const json& j) { return j["weather"] == "rain"; })["weather"], "rain");
  // Densities are clamped and shared the same way.
  ASSERT_TRUE(a.client.send_text(R"({"type":"density","vehicles":50,"pedestrians":100000})"));
  for (int i = 0; i < 100; ++i) {
    std::optional<Message> m = b.client.next();
    ASSERT_TRUE(m);
    if (m->binary) continue;
    env = json::parse(m->data, nullptr, false);
    if (env.value("type", "") == "env" && env.value("vehicles", 0) == 50) break;
  }
  EXPECT_EQ(env["vehicles"], 50);
  EXPECT_EQ(env["pedestrians"], pedestrians_max(b.hello));
  // A client joining later gets the environment as it is now.
  Joined c;
  ASSERT_TRUE(join(c, s.port));
  EXPECT_EQ(c.env["weather"], "rain");
}

}  // namespace
