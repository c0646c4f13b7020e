// SPDX-License-Identifier: Apache-2.0
// `cityforge serve` on a tiny fake city folder, spoken to over raw sockets: content types and
// exact bytes, HEAD, byte ranges, 404 / 416, path traversal (.., encoded dots, absolute paths,
// a symlink leading out) refused, a client vanishing mid-download, bad folders.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli_run.hpp"
#include "app/http_client.hpp"

extern char** environ;

namespace fs = std::filesystem;
using cityforge::clitest::connect_to;
using cityforge::clitest::get;
using cityforge::clitest::http_exchange;
using cityforge::clitest::Reply;
using cityforge::clitest::run_cli;

namespace {

void write_file(const fs::path& p, const std::string& data) {
  std::ofstream f(p, std::ios::binary);
  f << data;
}

/// Starts `cityforge serve DIR --port 0` with no default viewer; sets the process, its
/// stdout and the port it printed (left 0 when it printed no URL).
void spawn_serve(const fs::path& dir, pid_t& pid, FILE*& out_file, int& port) {
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  const std::string exe = CITYFORGE_EXE;
  const std::string folder = dir.string();
  std::vector<char*> argv = {
      const_cast<char*>(exe.c_str()), const_cast<char*>("serve"), const_cast<char*>(folder.c_str()),
      const_cast<char*>("--port"),    const_cast<char*>("0"),     nullptr};
  // No default viewer (a built viewer/dist would be served at / otherwise).
  std::string no_viewer = "CITYFORGE_VIEWER=none";
  std::vector<char*> env = {no_viewer.data()};
  for (char** e = environ; *e != nullptr; ++e)
    if (std::string(*e).rfind("CITYFORGE_VIEWER=", 0) != 0) env.push_back(*e);
  env.push_back(nullptr);
  ASSERT_EQ(posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), env.data()), 0);
  posix_spawn_file_actions_destroy(&fa);
  ::close(out[1]);
  out_file = ::fdopen(out[0], "r");
  char line[256] = {};
  ASSERT_NE(std::fgets(line, sizeof line, out_file), nullptr) << "serve printed nothing";
  const std::string url = line;  // http://127.0.0.1:PORT/
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
  port = std::stoi(url.substr(17));
}

/// A fake city folder, a secret next to it, and `cityforge serve DIR --port 0` running.
class ServeCity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_base = new fs::path(cityforge::clitest::temp_dir("serve"));
    const fs::path city = *s_base / "city";
    fs::create_directories(city / "points");
    std::string rec;
    for (int i = 0; i < 200000; ++i)
      rec += static_cast<char>(i * 7 % 251);
    s_rec = new std::string(rec);
    write_file(city / "traffic.cfrec", rec);
    write_file(city / "lanes.json", "{\"lanes\": []}\n");
    write_file(city / "layout.geojson", "{\"type\": \"FeatureCollection\", \"features\": []}\n");
    write_file(city / "city.glb", std::string("glTF\x02\0\0\0", 8) + "0123456789abcdefghij");
    write_file(city / "points" / "audio.ply", "ply\n");
    fs::create_directories(city / "tiles" / "0" / "0");
    write_file(city / "tiles" / "tileset.json", "{\"asset\": {\"version\": \"1.1\"}}\n");
    write_file(city / "tiles" / "0" / "0" / "0.glb", std::string("glTF\x02\0\0\0", 8));
    write_file(*s_base / "secret.txt", "top secret\n");
    fs::create_symlink(*s_base / "secret.txt", city / "leak.json");

    spawn_serve(city, s_pid, s_out, s_port);
    ASSERT_GT(s_port, 0);
  }
  static void TearDownTestSuite() {
    if (s_pid > 0) {
      ::kill(s_pid, SIGTERM);
      int status = 0;
      ::waitpid(s_pid, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "no clean shutdown";
    }
    if (s_out) std::fclose(s_out);
    fs::remove_all(*s_base);
    delete s_base;
    delete s_rec;
  }

  static fs::path* s_base;
  static std::string* s_rec;
  static pid_t s_pid;
  static FILE* s_out;
  static int s_port;
};
fs::path* ServeCity::s_base = nullptr;
std::string* ServeCity::s_rec = nullptr;
pid_t ServeCity::s_pid = -1;
FILE* ServeCity::s_out = nullptr;
int ServeCity::s_port = 0;

// The long commands restart once with glibc's malloc asking for transparent huge pages
// (apps/cityforge/main.cpp, restart_with_huge_pages): the running server's start environment
// holds the tunable, after whatever GLIBC_TUNABLES the caller had, and the caller's value
// kept to be put back for the tools the program runs.
TEST_F(ServeCity, RestartedWithHugePagesAskedOfMalloc) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizer builds use their own allocator and do not restart";
#else
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(thp, mode);
  if (mode.empty() || mode.find("[never]") != std::string::npos)
    GTEST_SKIP() << "the kernel gives no transparent huge pages here";
  const char* caller = std::getenv("GLIBC_TUNABLES");
  if (caller != nullptr && std::string(caller).find("hugetlb") != std::string::npos)
    GTEST_SKIP() << "GLIBC_TUNABLES already sets hugetlb";
  std::ifstream f("/proc/" + std::to_string(s_pid) + "/environ", std::ios::binary);
  const std::string env = std::string(1, '\0') + std::string((std::istreambuf_iterator<char>(f)),
                                                             std::istreambuf_iterator<char>());
  const auto has = [&env](const std::string& entry) {
    return env.find(std::string(1, '\0') + entry + std::string(1, '\0')) != std::string::npos;
  };
  // The caller's value, kept for the restarted copy to put back ("" when it had none).
  const std::string was = caller == nullptr ? "" : "=" + std::string(caller);
  EXPECT_TRUE(has("CITYFORGE_GLIBC_TUNABLES_WAS=" + was)) << "the server did not restart";
  // (With a value of the caller's, glibc cuts the string where it parsed it: not checked.)
  if (caller == nullptr) {
    EXPECT_TRUE(has("GLIBC_TUNABLES=glibc.malloc.hugetlb=1")) << "no tunable in its start";
  }
#endif
}

TEST_F(ServeCity, ServesFilesWithTheirTypeAndExactBytes) {
  Reply lanes = get(s_port, "/city/lanes.json");
  EXPECT_EQ(lanes.status, 200);
  EXPECT_EQ(lanes.headers["content-type"], "application/json");
  EXPECT_EQ(lanes.body, "{\"lanes\": []}\n");

  Reply glb = get(s_port, "/city/city.glb");
  EXPECT_EQ(glb.status, 200);
  EXPECT_EQ(glb.headers["content-type"], "model/gltf-binary");
  EXPECT_EQ(glb.body.size(), 28u);

  Reply rec = get(s_port, "/city/traffic.cfrec?t=1");
  EXPECT_EQ(rec.status, 200);
  EXPECT_EQ(rec.headers["content-type"], "application/octet-stream");
  EXPECT_EQ(rec.headers["accept-ranges"], "bytes");
  EXPECT_TRUE(rec.body == *s_rec) << "got " << rec.body.size() << " bytes";

  EXPECT_EQ(get(s_port, "/city/layout.geojson").headers["content-type"], "application/json");
  EXPECT_EQ(get(s_port, "/city/points/audio.ply").status, 200);
}

TEST_F(ServeCity, StreamsTilesToAnyOriginAndMissingTilesAre404) {
  Reply ts = get(s_port, "/city/tiles/tileset.json");
  EXPECT_EQ(ts.status, 200);
  EXPECT_EQ(ts.headers["content-type"], "application/json");
  EXPECT_EQ(ts.headers["access-control-allow-origin"], "*") << "CesiumJS on another origin";
  Reply tile = get(s_port, "/city/tiles/0/0/0.glb");
  EXPECT_EQ(tile.status, 200);
  EXPECT_EQ(tile.headers["content-type"], "model/gltf-binary");
  EXPECT_EQ(get(s_port, "/city/tiles/5/3/9.glb").status, 404) << "a missing tile";
  EXPECT_EQ(get(s_port, "/city/tiles/0/0/0.glb").status, 200) << "and the server keeps going";
}

TEST_F(ServeCity, HeadSendsHeadersOnly) {
  Reply r = get(s_port, "/city/traffic.cfrec", "", "HEAD");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-length"], std::to_string(s_rec->size()));
  EXPECT_TRUE(r.body.empty());
}

TEST_F(ServeCity, ByteRanges) {
  Reply r = get(s_port, "/city/traffic.cfrec", "Range: bytes=10-19\r\n");
  EXPECT_EQ(r.status, 206);
  EXPECT_EQ(r.headers["content-range"], "bytes 10-19/" + std::to_string(s_rec->size()));
  EXPECT_EQ(r.body, s_rec->substr(10, 10));

  Reply tail = get(s_port, "/city/traffic.cfrec", "Range: bytes=-5\r\n");
  EXPECT_EQ(tail.status, 206);
  EXPECT_EQ(tail.body, s_rec->substr(s_rec->size() - 5));

  Reply open = get(s_port, "/city/traffic.cfrec", "Range: bytes=199990-\r\n");
  EXPECT_EQ(open.status, 206);
  EXPECT_EQ(open.body, s_rec->substr(199990));

  Reply beyond = get(s_port, "/city/traffic.cfrec", "Range: bytes=200000-200010\r\n");
  EXPECT_EQ(beyond.status, 416);
  EXPECT_EQ(beyond.headers["content-range"], "bytes */200000");
}

TEST_F(ServeCity, MissingIs404AndOtherMethods405) {
  EXPECT_EQ(get(s_port, "/city/nothing.json").status, 404);
  EXPECT_EQ(get(s_port, "/city/points").status, 404);
  EXPECT_EQ(get(s_port, "/elsewhere.html").status, 404);
  EXPECT_EQ(get(s_port, "/city/lanes.json", "", "DELETE").status, 405);
  Reply index = get(s_port, "/");
  EXPECT_EQ(index.status, 200);
  EXPECT_NE(index.body.find("/city/lanes.json"), std::string::npos);
}

TEST_F(ServeCity, RefusesPathsLeavingTheFolder) {
  for (const char* target :
       {"/city/../secret.txt", "/city/%2e%2e/secret.txt", "/city/%2E%2E%2Fsecret.txt",
        "/city/points/../../secret.txt", "/city//etc/passwd", "/city/%2fetc%2fpasswd",
        "/city/leak.json", "/../CMakeLists.txt", "/city/..%2fsecret.txt",
        "/city/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/city/.%2e/secret.txt",
        "/%2e%2e/%2e%2e/etc/passwd", "/city/points/%2E%2E/%2E%2E/secret.txt"}) {
    Reply r = get(s_port, target);
    EXPECT_TRUE(r.status == 403 || r.status == 404 || r.status == 400)
        << target << " -> " << r.status;
    EXPECT_EQ(r.body.find("secret"), std::string::npos) << target;
    EXPECT_EQ(r.body.find("root:"), std::string::npos) << target;
  }
  EXPECT_EQ(get(s_port, "/city/leak.json").status, 403);
  EXPECT_EQ(get(s_port, "/city/%2e%2e/secret.txt").status, 403);
}

// Loopback only unless --host says otherwise: the listening socket's address in the kernel's
// table (/proc/PID/net/tcp: local address as hex "0100007F:PORT", state 0A = listen).
TEST_F(ServeCity, ListensOnLoopbackOnlyByDefault) {
  std::ifstream tcp("/proc/" + std::to_string(s_pid) + "/net/tcp");
  ASSERT_TRUE(tcp) << "no /proc";
  char port_hex[8];
  std::snprintf(port_hex, sizeof port_hex, "%04X", s_port);
  std::string line;
  std::vector<std::string> listening;
  while (std::getline(tcp, line)) {
    std::istringstream ss(line);
    std::string sl, local, remote, state;
    ss >> sl >> local >> remote >> state;
    if (state == "0A" && local.size() > 5 && local.substr(local.size() - 4) == port_hex)
      listening.push_back(local);
  }
  ASSERT_EQ(listening.size(), 1u);
  EXPECT_EQ(listening[0], std::string("0100007F:") + port_hex);
  // Nothing on IPv6 either (:: would also take IPv4 connections).
  std::ifstream tcp6("/proc/" + std::to_string(s_pid) + "/net/tcp6");
  while (std::getline(tcp6, line)) {
    std::istringstream ss(line);
    std::string sl, local, remote, state;
    ss >> sl >> local >> remote >> state;
    EXPECT_FALSE(state == "0A" && local.size() > 5 && local.substr(local.size() - 4) == port_hex)
        << line;
  }
}

// Without --live there is no /live: a WebSocket upgrade and the figures are 404.
TEST_F(ServeCity, NoLiveEndpointsWithoutLive) {
  Reply up = get(s_port, "/live",
                 "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n");
  EXPECT_EQ(up.status, 404);
  EXPECT_EQ(get(s_port, "/live/stats").status, 404);
}

TEST_F(ServeCity, RefusesOversizedRequests) {
  Reply r = get(s_port, "/city/lanes.json", "X-Big: " + std::string(20000, 'a') + "\r\n");
  EXPECT_EQ(r.status, 431);
  EXPECT_EQ(get(s_port, "/city/lanes.json").status, 200);
}

std::size_t open_fds(pid_t pid) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

TEST_F(ServeCity, SurvivesAClientLeavingMidDownload) {
  const std::size_t fds_before = open_fds(s_pid);
  for (int i = 0; i < 5; ++i) {
    const int fd = connect_to(s_port);
    ASSERT_GE(fd, 0);
    const std::string req = "GET /city/traffic.cfrec HTTP/1.1\r\nHost: x\r\n\r\n";
    ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    char buf[1024];
    pollfd pfd{fd, POLLIN, 0};
    ASSERT_GT(::poll(&pfd, 1, 5000), 0);
    ASSERT_GT(::recv(fd, buf, sizeof buf, 0), 0);
    ::close(fd);  // 199 kB still to come.
  }
  Reply r = get(s_port, "/city/traffic.cfrec", "Range: bytes=0-3\r\n");
  EXPECT_EQ(r.status, 206);
  EXPECT_EQ(r.body, s_rec->substr(0, 4));
  // Every connection's socket and file are closed once its thread ends (no leaked fd).
  std::size_t fds_after = open_fds(s_pid);
  for (int i = 0; i < 100 && fds_after > fds_before; ++i) {
    ::usleep(20'000);
    fds_after = open_fds(s_pid);
  }
  EXPECT_EQ(fds_after, fds_before);
}

TEST_F(ServeCity, KeepAliveServesSeveralRequests) {
  const int fd = connect_to(s_port);
  ASSERT_GE(fd, 0);
  const std::string req =
      "GET /city/lanes.json HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /city/lanes.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string raw;
  char buf[4096];
  for (;;) {
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 5000) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  std::size_t count = 0;
  for (std::size_t p = raw.find("{\"lanes\""); p != std::string::npos;
       p = raw.find("{\"lanes\"", p + 1))
    ++count;
  EXPECT_EQ(count, 2u) << raw;
}

TEST(ServeCli, MissingOrEmptyFolderExits2) {
  const auto missing = run_cli("serve /nonexistent/cityforge_city --port 0");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("/nonexistent/cityforge_city"), std::string::npos)
      << missing.output;

  const fs::path empty = cityforge::clitest::temp_dir("serve_empty");
  const auto none = run_cli("serve " + empty.string() + " --port 0");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("no city files"), std::string::npos) << none.output;
  fs::remove_all(empty);
}

TEST(ServeCli, PortInUseExits1NamingThePort) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);

  const fs::path dir = cityforge::clitest::temp_dir("serve_busy");
  write_file(dir / "lanes.json", "{}");
  const auto r = run_cli("serve " + dir.string() + " --port " + std::to_string(port));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(std::to_string(port)), std::string::npos) << r.output;
  ::close(fd);
  fs::remove_all(dir);
}

// An island folder: made again from its stats.json, edited over POST /island/edit, the files
// written back with the edit listed; malformed and refused edits answered 400 and 422.
TEST(ServeIsland, EditsAreSolvedWrittenBackAndBadOnesRefused) {
  const fs::path dir = cityforge::clitest::temp_dir("serve_island");
  const fs::path island = dir / "island";
  const auto made = run_cli("island --seed 5 --size 4 -q -o " + island.string());
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const auto nav = nlohmann::json::parse(std::ifstream(island / "island_nav.json"));
  std::vector<int> floors;  // Walkable floors on layer 1, the last first: away from the start.
  for (const auto& n : nav["nodes"]) {
    if (n["layer"] == 1 && !n["stairs"].get<bool>())
      floors.insert(floors.begin(), n["cell"].get<int>());
  }
  ASSERT_FALSE(floors.empty());
  std::ifstream before_in(island / "island_tiles.json");
  const std::string before((std::istreambuf_iterator<char>(before_in)),
                           std::istreambuf_iterator<char>());

  pid_t pid = -1;
  FILE* f = nullptr;
  int port = 0;
  spawn_serve(island, pid, f, port);
  ASSERT_GT(port, 0);
  struct Reap {  // A failed assertion must not leave the server running until the timeout.
    pid_t pid;
    ~Reap() {
      if (pid > 0) {
        ::kill(pid, SIGTERM);
        ::waitpid(pid, nullptr, 0);
      }
    }
  } reap{pid};

  const Reply bad = get(port, "/island/edit?cell=x", "", "POST");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_NE(bad.body.find("expected ?cell=N&kind=raise|lower"), std::string::npos) << bad.body;
  const Reply outside = get(port, "/island/edit?cell=99999&kind=raise", "", "POST");
  EXPECT_EQ(outside.status, 422) << outside.body;
  EXPECT_NE(outside.body.find("expected a cell of the grid"), std::string::npos) << outside.body;
  EXPECT_EQ(get(port, "/somewhere", "", "POST").status, 405);
  // Not every floor can rise (on the mixed grid a square cell takes its whole field along, and
  // some changes no three rings can repair): the first that can; a refusal changes nothing.
  int cell = -1;
  Reply ok;
  for (std::size_t i = 0; i < floors.size() && i < 12 && cell < 0; ++i) {
    ok = get(port, "/island/edit?cell=" + std::to_string(floors[i]) + "&kind=raise", "", "POST");
    if (ok.status == 200) {
      cell = floors[i];
    } else {
      EXPECT_EQ(ok.status, 422) << ok.body;
      std::ifstream same_in(island / "island_tiles.json");
      EXPECT_EQ(before, std::string((std::istreambuf_iterator<char>(same_in)),
                                    std::istreambuf_iterator<char>()));
    }
  }
  ASSERT_GE(cell, 0) << "no floor of the first 12 could rise: " << ok.body;
  const auto report = nlohmann::json::parse(ok.body);
  EXPECT_EQ(report["cell"], cell);
  EXPECT_EQ(report["edits"], 1);
  EXPECT_GT(report["changed"].get<int>(), 0);
  EXPECT_EQ(get(port, "/city/island.glb").status, 200);
  const auto stats = nlohmann::json::parse(std::ifstream(island / "stats.json"));
  ASSERT_EQ(stats["edits"].size(), 1U);
  EXPECT_EQ(stats["edits"][0], std::to_string(cell) + ":raise");
  std::ifstream after_in(island / "island_tiles.json");
  const std::string after((std::istreambuf_iterator<char>(after_in)),
                          std::istreambuf_iterator<char>());
  EXPECT_NE(before, after);
  // Painting: colours only, listed like the other edits; a colour outside the palette is a
  // malformed query.
  const Reply paint =
      get(port, "/island/edit?cell=" + std::to_string(cell) + "&kind=paint&colour=3", "", "POST");
  ASSERT_EQ(paint.status, 200) << paint.body;
  const auto painted = nlohmann::json::parse(paint.body);
  EXPECT_EQ(painted["colour"], 3);
  EXPECT_GT(painted["recoloured"].get<int>(), 0);
  EXPECT_EQ(painted["edits"], 2);
  EXPECT_EQ(get(port, "/island/edit?cell=1&kind=paint&colour=8", "", "POST").status, 400);
  EXPECT_EQ(get(port, "/island/edit?cell=1&kind=raise&colour=2", "", "POST").status, 400);
  const auto stats2 = nlohmann::json::parse(std::ifstream(island / "stats.json"));
  ASSERT_EQ(stats2["edits"].size(), 2U);
  EXPECT_EQ(stats2["edits"][1], std::to_string(cell) + ":paint:3");
  std::ifstream glb_in(island / "island.glb", std::ios::binary);
  const std::string glb((std::istreambuf_iterator<char>(glb_in)), std::istreambuf_iterator<char>());
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  reap.pid = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::fclose(f);

  // The folder is made again with the edit: `cityforge island` from its stats.json gives it.
  const auto again =
      run_cli("island --seed 5 --size 4 -q --edit " + std::to_string(cell) + ":raise --edit " +
              std::to_string(cell) + ":paint:3 -o " + (dir / "again").string());
  ASSERT_EQ(again.exit_code, 0) << again.output;
  std::ifstream again_in(dir / "again" / "island_tiles.json");
  const std::string again_tiles((std::istreambuf_iterator<char>(again_in)),
                                std::istreambuf_iterator<char>());
  EXPECT_EQ(after, again_tiles);
  std::ifstream again_glb_in(dir / "again" / "island.glb", std::ios::binary);
  const std::string again_glb((std::istreambuf_iterator<char>(again_glb_in)),
                              std::istreambuf_iterator<char>());
  EXPECT_TRUE(glb == again_glb) << "the painted island.glb differs from the one --edit makes";
  // A colour outside the palette on the command line: exit 2, named.
  const auto bad_paint =
      run_cli("island --seed 5 --size 4 -q --edit 3:paint:8 -o " + (dir / "bad_paint").string());
  EXPECT_EQ(bad_paint.exit_code, 2) << bad_paint.output;
  EXPECT_NE(bad_paint.output.find("CELL:paint:COLOUR"), std::string::npos) << bad_paint.output;
  EXPECT_FALSE(fs::exists(dir / "bad_paint" / "island.glb"));

  // A folder whose stats.json is not an island's: a clear error naming it, exit 2.
  write_file(dir / "again" / "stats.json", "{\"seed\": \"x\"}");
  const auto broken = run_cli("serve " + (dir / "again").string() + " --port 0");
  EXPECT_EQ(broken.exit_code, 2) << broken.output;
  EXPECT_NE(broken.output.find("stats.json"), std::string::npos) << broken.output;
  // Nested too deep, or a seed that is not a whole number: named, exit 2, never a crash.
  write_file(dir / "again" / "stats.json", std::string(100000, '['));
  const auto deep = run_cli("serve " + (dir / "again").string() + " --port 0");
  EXPECT_EQ(deep.exit_code, 2) << deep.output;
  EXPECT_NE(deep.output.find("nested deeper than"), std::string::npos) << deep.output;
  write_file(dir / "again" / "stats.json",
             "{\"seed\": -3, \"grid\": {\"kind\": \"mixed\", \"radius\": 6, \"layers\": 5}}");
  const auto negative = run_cli("serve " + (dir / "again").string() + " --port 0");
  EXPECT_EQ(negative.exit_code, 2) << negative.output;
  EXPECT_NE(negative.output.find("stats.json: /seed"), std::string::npos) << negative.output;
  fs::remove_all(dir);
}

}  // namespace
