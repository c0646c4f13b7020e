// SPDX-License-Identifier: Apache-2.0
// A soak of `cityforge serve --live` under load and abuse (issue 27): for a given time it keeps
// up to 100 clients on the server at once, of five kinds,
//   readers    WebSocket clients that decode every frame and send a viewer message a second,
//              leaving and joining again after a while (churn);
//   slow       readers with a 4 KiB receive buffer that take one message every 300 ms;
//   garbage    clients that send, in turn, bytes that are no WebSocket frame, text that is no
//              JSON, invalid UTF-8 and a binary message, and join again after each close;
//   oversize   clients that send a 5000-byte message or a frame header claiming 2^40 bytes;
//   slowloris  HTTP clients that send a request header one byte a second and never end it;
// and once a second it asks GET /live/stats (its latency is measured) and reads the server's
// resident memory from /proc/PID/status. It prints one JSON report on standard output (the
// test and bench/live_soak.sh read it) and a progress line every 10 s on standard error.
//
//   cityforge_live_soak --port P --pid PID --seconds S [--readers 80 --slow 8 --garbage 4
//                       --oversize 4 --slowloris 4 --warmup-s 10]
//
// Every client runs as a C++20 coroutine on one I/O thread, so the load the tool itself puts
// on the machine is small next to the server's.
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>
// (clang-format would sort <utility> below the Boost headers.)
// clang-format off
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
// clang-format on
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cityforge/traffic/stream.hpp"

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
using tcp = asio::ip::tcp;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using asio::awaitable;
using asio::use_awaitable;
using boost::system::error_code;

struct Options {
  int port = 0;
  int pid = 0;
  double seconds = 30;
  double warmup_s = 10;
  int readers = 80;
  int slow = 8;
  int garbage = 4;
  int oversize = 4;
  int slowloris = 4;
};

/// What the clients saw, all touched on the one I/O thread.
struct Tally {
  // Readers and slow readers.
  std::uint64_t joins = 0;
  std::uint64_t join_failures = 0;
  std::uint64_t frames = 0;
  std::uint64_t decode_errors = 0;
  std::uint64_t non_key_first = 0;  ///< A joining client's first frame was not a key frame.
  std::uint64_t slow_frames = 0;
  std::uint64_t slow_decode_errors = 0;
  std::uint64_t viewer_messages = 0;
  std::uint64_t unexpected_closes = 0;  ///< A reader closed by the server (not by the run's end).
  std::vector<std::uint64_t> reader_frames;  ///< Per reader slot, over the whole run.
  // Abusers: attempts, and the close codes the server answered with (0: the TCP connection
  // ended without a close frame).
  std::uint64_t garbage_sent = 0;
  std::map<std::string, std::map<int, std::uint64_t>> garbage_codes;  // By kind.
  std::uint64_t oversize_sent = 0;
  std::map<std::string, std::map<int, std::uint64_t>> oversize_codes;
  // Slowloris: connections the server closed, and after how long.
  std::uint64_t slowloris_opened = 0;
  std::uint64_t slowloris_408 = 0;
  std::vector<double> slowloris_hold_s;
  // Probes of /live/stats.
  std::uint64_t probes = 0;
  std::uint64_t probe_failures = 0;
  std::vector<double> probe_ms;
  struct Sample {
    double t = 0;
    json stats;
    double rss_mib = 0;
  };
  std::vector<Sample> samples;
};

class Soak {
 public:
  Soak(const Options& o) : m_o(o), m_end(Clock::now() + seconds(o.seconds)) {
    m_tally.reader_frames.assign(static_cast<std::size_t>(o.readers), 0);
  }

  json run() {
    for (int i = 0; i < m_o.readers; ++i)
      spawn(reader(i, false));
    for (int i = 0; i < m_o.slow; ++i)
      spawn(reader(i, true));
    for (int i = 0; i < m_o.garbage; ++i)
      spawn(garbage(i));
    for (int i = 0; i < m_o.oversize; ++i)
      spawn(oversize(i));
    for (int i = 0; i < m_o.slowloris; ++i)
      spawn(slowloris(i));
    spawn(prober());
    m_io.run_until(m_end + std::chrono::seconds(2));
    return report();
  }

 private:
  static Clock::duration seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }
  double now_s() const {
    return std::chrono::duration<double>(Clock::now() - (m_end - seconds(m_o.seconds))).count();
  }
  bool over() const { return Clock::now() >= m_end; }
  void spawn(awaitable<void> a) { asio::co_spawn(m_io, std::move(a), asio::detached); }

  awaitable<void> sleep(double s) {
    asio::steady_timer t(m_io, seconds(s));
    error_code ec;
    co_await t.async_wait(asio::redirect_error(use_awaitable, ec));
  }

  tcp::endpoint endpoint() const {
    return {asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(m_o.port)};
  }

  /// A connected and upgraded WebSocket, or nullopt.
  awaitable<bool> open(websocket::stream<tcp::socket>& ws, int rcvbuf = 0) {
    error_code ec;
    tcp::socket& s = ws.next_layer();
    s.open(tcp::v4(), ec);
    if (rcvbuf > 0) s.set_option(asio::socket_base::receive_buffer_size(rcvbuf), ec);
    co_await s.async_connect(endpoint(), asio::redirect_error(use_awaitable, ec));
    if (ec) co_return false;
    co_await ws.async_handshake("127.0.0.1", "/live", asio::redirect_error(use_awaitable, ec));
    co_return !ec;
  }

  /// Reads until the server closes: its close code (0 without a close frame), or -1 at the
  /// end of the run.
  awaitable<int> close_code(websocket::stream<tcp::socket>& ws) {
    beast::flat_buffer buf;
    for (;;) {
      error_code ec;
      buf.clear();
      co_await ws.async_read(buf, asio::redirect_error(use_awaitable, ec));
      if (over()) co_return -1;
      if (ec == websocket::error::closed) co_return static_cast<int>(ws.reason().code);
      if (ec) co_return 0;
    }
  }

  /// A reader (or a slow reader): joins, decodes every frame, sends a viewer message a second,
  /// and leaves after 10-40 s to join again (readers only).
  awaitable<void> reader(int slot, bool slow) {
    std::mt19937_64 rng(0x50a4ULL * 131 + static_cast<std::uint64_t>(slot) * 2 + (slow ? 1 : 0));
    std::uniform_real_distribution<double> life(10, 40);
    // Joins are spread over the first two seconds.
    co_await sleep(std::uniform_real_distribution<double>(0, 2)(rng));
    while (!over()) {
      websocket::stream<tcp::socket> ws(m_io);
      if (!co_await open(ws, slow ? 4096 : 0)) {
        ++m_tally.join_failures;
        co_await sleep(1);
        continue;
      }
      ++m_tally.joins;
      const Clock::time_point leave =
          slow ? m_end : std::min(m_end, Clock::now() + seconds(life(rng)));
      std::optional<cityforge::traffic::StreamDecoder> dec;
      bool first = true;
      Clock::time_point next_viewer = Clock::now() + std::chrono::seconds(1);
      bool writing = false;
      beast::flat_buffer buf;
      bool closed_by_server = false;
      while (Clock::now() < leave) {
        error_code ec;
        buf.clear();
        co_await ws.async_read(buf, asio::redirect_error(use_awaitable, ec));
        if (ec) {
          closed_by_server = !over();
          break;
        }
        if (ws.got_text()) {
          const json m = json::parse(beast::buffers_to_string(buf.data()), nullptr, false);
          if (m.is_object() && m.value("type", "") == "hello") {
            cityforge::traffic::StreamConfig c;
            c.origin = {m["origin"][0].get<double>(), m["origin"][1].get<double>(),
                        m["origin"][2].get<double>()};
            c.step_m = m["step_m"].get<float>();
            c.key_every = m["key_every"].get<std::uint32_t>();
            dec.emplace(c);
          }
        } else if (dec) {
          const auto* p = static_cast<const std::uint8_t*>(buf.cdata().data());
          auto f = dec->decode(std::span<const std::uint8_t>(p, buf.size()));
          if (f.ok()) {
            if (first && !f->key) ++m_tally.non_key_first;
            first = false;
            ++(slow ? m_tally.slow_frames : m_tally.reader_frames[static_cast<std::size_t>(slot)]);
            if (!slow) ++m_tally.frames;
          } else {
            ++(slow ? m_tally.slow_decode_errors : m_tally.decode_errors);
          }
        }
        if (!slow && !writing && Clock::now() >= next_viewer) {
          // One write at a time: the message goes out while the loop keeps reading.
          next_viewer = Clock::now() + std::chrono::seconds(1);
          writing = true;
          auto text = std::make_shared<std::string>(json{
              {"type", "viewer"},
              {"x", 100 + slot},
              {"y", 50.0},
              {"z", 30.0},
              {"yaw_deg", (slot * 37) % 360}}.dump());
          ws.text(true);
          ws.async_write(asio::buffer(*text), [this, text, &writing](error_code e, std::size_t) {
            if (!e) ++m_tally.viewer_messages;
            writing = false;
          });
        }
        if (slow) co_await sleep(0.3);
      }
      if (closed_by_server) ++m_tally.unexpected_closes;
      // A pending write must finish before the stream goes away.
      while (writing)
        co_await sleep(0.01);
      if (!over()) {
        error_code ec;
        co_await ws.async_close(websocket::close_code::normal,
                                asio::redirect_error(use_awaitable, ec));
      }
    }
  }

  /// Abuse on an open WebSocket, in turn: raw bytes, text that is no JSON, invalid UTF-8,
  /// a binary message. Each should close only this connection, with its code.
  awaitable<void> garbage(int slot) {
    static const char* kKinds[] = {"not_a_frame", "not_json", "invalid_utf8", "binary"};
    std::mt19937_64 rng(0x9a4bULL + static_cast<std::uint64_t>(slot));
    for (int round = slot; !over(); ++round) {
      co_await sleep(0.2);
      websocket::stream<tcp::socket> ws(m_io);
      if (!co_await open(ws)) continue;
      const std::string kind = kKinds[round % 4];
      error_code ec;
      if (kind == "not_a_frame") {
        std::string bytes(64, '\0');
        for (char& c : bytes)
          c = static_cast<char>(rng() & 0x7FU);  // Unmasked, reserved bits: no client frame.
        co_await asio::async_write(ws.next_layer(), asio::buffer(bytes),
                                   asio::redirect_error(use_awaitable, ec));
      } else if (kind == "not_json") {
        ws.text(true);
        co_await ws.async_write(asio::buffer(std::string("{type: viewer, x: ")),
                                asio::redirect_error(use_awaitable, ec));
      } else if (kind == "invalid_utf8") {
        ws.text(true);
        co_await ws.async_write(asio::buffer(std::string("{\"type\":\"\xC3\x28\"}")),
                                asio::redirect_error(use_awaitable, ec));
      } else {
        ws.binary(true);
        co_await ws.async_write(asio::buffer(std::string("\x01\x02\x03\x04", 4)),
                                asio::redirect_error(use_awaitable, ec));
      }
      ++m_tally.garbage_sent;
      const int code = co_await close_code(ws);
      if (code >= 0) ++m_tally.garbage_codes[kind][code];
    }
  }

  /// A 5000-byte message (the limit is 4096), or a frame header that claims 2^40 bytes.
  awaitable<void> oversize(int slot) {
    for (int round = slot; !over(); ++round) {
      co_await sleep(0.2);
      websocket::stream<tcp::socket> ws(m_io);
      if (!co_await open(ws)) continue;
      error_code ec;
      const bool claim = round % 2 == 1;
      if (claim) {
        // FIN + text, masked, 64-bit length 2^40, a mask, then a few bytes of payload.
        std::string h = {'\x81', '\xFF', 0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 3, 4};
        h += std::string(256, 'x');
        co_await asio::async_write(ws.next_layer(), asio::buffer(h),
                                   asio::redirect_error(use_awaitable, ec));
      } else {
        ws.text(true);
        const std::string text = R"({"type":"viewer","x":0,"y":0,"z":0,"yaw_deg":0,"pad":")" +
                                 std::string(5000, 'x') + "\"}";
        co_await ws.async_write(asio::buffer(text), asio::redirect_error(use_awaitable, ec));
      }
      ++m_tally.oversize_sent;
      const int code = co_await close_code(ws);
      if (code >= 0) ++m_tally.oversize_codes[claim ? "claimed_2^40" : "5000_bytes"][code];
    }
  }

  /// Slowloris: a request line, then one header byte a second, never the end of the header.
  /// The server should answer 408 and close; this measures after how long.
  awaitable<void> slowloris(int slot) {
    co_await sleep(0.25 * slot);
    while (!over()) {
      tcp::socket s(m_io);
      error_code ec;
      co_await s.async_connect(endpoint(), asio::redirect_error(use_awaitable, ec));
      if (ec) {
        co_await sleep(1);
        continue;
      }
      ++m_tally.slowloris_opened;
      const Clock::time_point opened = Clock::now();
      const std::string start = "GET /live/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n";
      co_await asio::async_write(s, asio::buffer(start), asio::redirect_error(use_awaitable, ec));
      // Reads on their own: the answer (408) and the close come while we keep dripping.
      bool closed = false;
      std::string answer;
      auto reading = [&]() -> awaitable<void> {
        std::array<char, 512> b{};
        for (;;) {
          error_code rec;
          const std::size_t n =
              co_await s.async_read_some(asio::buffer(b), asio::redirect_error(use_awaitable, rec));
          if (rec) break;
          if (answer.size() < 64) answer.append(b.data(), std::min<std::size_t>(n, 64));
        }
        closed = true;
      };
      spawn(reading());
      const std::string drip = "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
      for (std::size_t i = 0; !closed && !over(); i = (i + 1) % drip.size()) {
        error_code wec;
        co_await asio::async_write(s, asio::buffer(&drip[i], 1),
                                   asio::redirect_error(use_awaitable, wec));
        if (wec) break;
        co_await sleep(1);
      }
      while (!closed && !over())
        co_await sleep(0.05);
      if (closed && !over()) {
        m_tally.slowloris_hold_s.push_back(
            std::chrono::duration<double>(Clock::now() - opened).count());
        if (answer.rfind("HTTP/1.1 408", 0) == 0) ++m_tally.slowloris_408;
      }
      error_code ignored;
      s.close(ignored);
      // The reading coroutine (its lambda lives in this frame) ends with the close.
      while (!closed)
        co_await sleep(0.01);
    }
  }

  /// GET /live/stats and the server's resident memory, once a second.
  awaitable<void> prober() {
    double next_log = 10;
    while (!over()) {
      const Clock::time_point t0 = Clock::now();
      tcp::socket s(m_io);
      error_code ec;
      co_await s.async_connect(endpoint(), asio::redirect_error(use_awaitable, ec));
      json stats;
      if (!ec) {
        http::request<http::empty_body> req{http::verb::get, "/live/stats", 11};
        req.set(http::field::host, "127.0.0.1");
        co_await http::async_write(s, req, asio::redirect_error(use_awaitable, ec));
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        if (!ec) co_await http::async_read(s, buf, res, asio::redirect_error(use_awaitable, ec));
        if (!ec && res.result() == http::status::ok)
          stats = json::parse(res.body(), nullptr, false);
      }
      ++m_tally.probes;
      if (!stats.is_object()) {
        ++m_tally.probe_failures;
      } else {
        m_tally.probe_ms.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        m_tally.samples.push_back({now_s(), stats, rss_mib()});
        if (now_s() >= next_log) {
          next_log += 10;
          std::fprintf(stderr,
                       "[ soak ] %4.0f s: %d clients, %.1f ticks/s, %.0f MiB resident, %llu "
                       "frames decoded, %llu errors\n",
                       now_s(), stats.value("clients", 0), stats.value("ticks_per_s", 0.0),
                       m_tally.samples.back().rss_mib,
                       static_cast<unsigned long long>(m_tally.frames),
                       static_cast<unsigned long long>(m_tally.decode_errors));
        }
      }
      co_await sleep(std::max(0.0, 1.0 - std::chrono::duration<double>(Clock::now() - t0).count()));
    }
  }

  double rss_mib() const {
    std::ifstream in("/proc/" + std::to_string(m_o.pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("VmRSS:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;
    }
    return 0;
  }

  static double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
  }

  json report() const {
    const Tally& t = m_tally;
    json r;
    r["seconds"] = m_o.seconds;
    r["clients"] = {{"readers", m_o.readers},
                    {"slow", m_o.slow},
                    {"garbage", m_o.garbage},
                    {"oversize", m_o.oversize},
                    {"slowloris", m_o.slowloris},
                    {"total", m_o.readers + m_o.slow + m_o.garbage + m_o.oversize + m_o.slowloris}};
    const auto [lo, hi] = std::minmax_element(t.reader_frames.begin(), t.reader_frames.end());
    r["readers"] = {{"joins", t.joins},
                    {"join_failures", t.join_failures},
                    {"frames_decoded", t.frames},
                    {"decode_errors", t.decode_errors},
                    {"first_frame_not_key", t.non_key_first},
                    {"closed_by_server", t.unexpected_closes},
                    {"viewer_messages", t.viewer_messages},
                    {"min_frames_per_slot", lo == t.reader_frames.end() ? 0 : *lo},
                    {"max_frames_per_slot", hi == t.reader_frames.end() ? 0 : *hi}};
    r["slow"] = {{"frames_decoded", t.slow_frames}, {"decode_errors", t.slow_decode_errors}};
    json codes = json::object();
    for (const auto& [kind, m] : t.garbage_codes)
      for (const auto& [code, n] : m)
        codes[kind][std::to_string(code)] = n;
    r["garbage"] = {{"sent", t.garbage_sent}, {"close_codes", codes}};
    codes = json::object();
    for (const auto& [kind, m] : t.oversize_codes)
      for (const auto& [code, n] : m)
        codes[kind][std::to_string(code)] = n;
    r["oversize"] = {{"sent", t.oversize_sent}, {"close_codes", codes}};
    r["slowloris"] = {
        {"opened", t.slowloris_opened},
        {"closed_by_server", t.slowloris_hold_s.size()},
        {"answered_408", t.slowloris_408},
        {"hold_s_median", percentile(t.slowloris_hold_s, 0.5)},
        {"hold_s_max", t.slowloris_hold_s.empty() ? 0.0
                                                  : *std::max_element(t.slowloris_hold_s.begin(),
                                                                      t.slowloris_hold_s.end())}};
    r["probes"] = {{"count", t.probes},
                   {"failures", t.probe_failures},
                   {"latency_ms_median", percentile(t.probe_ms, 0.5)},
                   {"latency_ms_p99", percentile(t.probe_ms, 0.99)}};
    // The server: pace and memory after the warm-up, and its own counters at the end.
    json server;
    std::vector<const Tally::Sample*> after;
    for (const Tally::Sample& s : t.samples)
      if (s.t >= m_o.warmup_s) after.push_back(&s);
    if (after.size() >= 2) {
      const json& a = after.front()->stats;
      const json& b = after.back()->stats;
      const double sim = b["time_s"].get<double>() - a["time_s"].get<double>();
      const double wall = b["wall_s"].get<double>() - a["wall_s"].get<double>();
      server["pace"] = wall > 0 ? sim / wall : 0.0;
      std::vector<double> tps;
      double rss_max = 0;
      for (const Tally::Sample* s : after) {
        tps.push_back(s->stats["ticks_per_s"].get<double>());
        rss_max = std::max(rss_max, s->rss_mib);
      }
      server["ticks_per_s_median"] = percentile(tps, 0.5);
      server["ticks_per_s_min"] = *std::min_element(tps.begin(), tps.end());
      server["target_ticks_per_s"] = b["target_ticks_per_s"];
      server["ticks_behind"] =
          b["ticks_behind"].get<std::int64_t>() - a["ticks_behind"].get<std::int64_t>();
      server["rss_mib_after_warmup"] = after.front()->rss_mib;
      server["rss_mib_end"] = after.back()->rss_mib;
      server["rss_mib_max"] = rss_max;
      server["rss_growth_mib"] = after.back()->rss_mib - after.front()->rss_mib;
      // Memory over time, one point per tenth of the run.
      json curve = json::array();
      const std::size_t step = std::max<std::size_t>(1, after.size() / 10);
      for (std::size_t i = 0; i < after.size(); i += step)
        curve.push_back({std::round(after[i]->t), std::round(after[i]->rss_mib * 10) / 10});
      server["rss_mib_curve"] = curve;
      server["stats_end"] = b;
    }
    r["server"] = server;
    return r;
  }

  Options m_o;
  Clock::time_point m_end;
  asio::io_context m_io;
  Tally m_tally;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--port") {
      o.port = std::atoi(v);
    } else if (k == "--pid") {
      o.pid = std::atoi(v);
    } else if (k == "--seconds") {
      o.seconds = std::atof(v);
    } else if (k == "--warmup-s") {
      o.warmup_s = std::atof(v);
    } else if (k == "--readers") {
      o.readers = std::atoi(v);
    } else if (k == "--slow") {
      o.slow = std::atoi(v);
    } else if (k == "--garbage") {
      o.garbage = std::atoi(v);
    } else if (k == "--oversize") {
      o.oversize = std::atoi(v);
    } else if (k == "--slowloris") {
      o.slowloris = std::atoi(v);
    } else {
      std::fprintf(stderr, "cityforge_live_soak: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (o.port <= 0 || o.pid <= 0 || o.seconds <= 0) {
    std::fprintf(stderr,
                 "usage: cityforge_live_soak --port P --pid PID --seconds S [--readers N "
                 "--slow N --garbage N --oversize N --slowloris N --warmup-s S]\n");
    return 2;
  }
  Soak soak(o);
  std::printf("%s\n", soak.run().dump(2).c_str());
  return 0;
}
