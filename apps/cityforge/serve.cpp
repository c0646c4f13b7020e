// SPDX-License-Identifier: Apache-2.0
// `cityforge serve`: a small static HTTP/1.1 server (Boost.Beast over Boost.Asio) for a city
// folder at /city/<path> and the viewer's files at /. One thread per connection, a bounded
// number of connections and request size, single byte ranges (RFC 9110, section 14) so a viewer
// can seek in big recordings, and every path resolved and checked against its root so that
// nothing outside it (.., encoded dots, absolute paths, symlinks) is ever read.
// With --live, a WebSocket upgrade of /live hands the connection to the live hub: every client
// session runs as asynchronous Beast operations on one I/O thread (no locks between sessions;
// the simulation thread only posts each frame once), with a bounded outgoing queue and the
// inbound limits of docs/live.md.
#include "serve.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "live.hpp"

namespace cityforge::app {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
namespace fs = std::filesystem;
using tcp = asio::ip::tcp;

constexpr int kExitBind = 1;
constexpr int kExitInput = 2;
constexpr std::size_t kMaxHeaderBytes = 8 * 1024;   ///< Request line + headers.
constexpr std::size_t kMaxBodyBytes = 0;            ///< GET / HEAD carry no body.
constexpr int kMaxConnections = 256;                ///< HTTP connections (each holds a thread).
constexpr int kMaxLiveClients = 256;                ///< WebSocket sessions (async, no thread each).
constexpr std::size_t kMaxQueuedFrames = 4;         ///< Unsent frames per client...
constexpr std::size_t kMaxQueuedBytes = 2U << 20U;  ///< ...or bytes, before dropping.
constexpr int kIdleTimeoutMs = 30'000;  ///< A keep-alive connection waiting for a request.
constexpr std::size_t kChunkBytes = 64 * 1024;

/// Files whose presence marks a city folder.
constexpr std::array<std::string_view, 5> kCityFiles = {"city.glb", "lanes.json", "layout.geojson",
                                                        "traffic.cfrec", "shepherds.json"};

std::string_view content_type(const fs::path& p) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 18> kTypes = {{
      {".glb", "model/gltf-binary"},
      {".gltf", "model/gltf+json"},
      {".json", "application/json"},
      {".geojson", "application/json"},
      {".cfrec", "application/octet-stream"},
      {".ply", "application/octet-stream"},
      {".bin", "application/octet-stream"},
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript"},
      {".mjs", "text/javascript"},
      {".css", "text/css"},
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".svg", "image/svg+xml"},
      {".wasm", "application/wasm"},
      {".xml", "application/xml"},
      {".txt", "text/plain; charset=utf-8"},
      {".map", "application/json"},
  }};
  const std::string ext = p.extension().string();
  for (const auto& [e, type] : kTypes) {
    if (ext == e) return type;
  }
  return "application/octet-stream";
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Percent-decodes a URL path; nullopt on a malformed escape or a NUL byte.
std::optional<std::string> url_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      const int hi = hex_value(in[i + 1]);
      const int lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    if (c == '\0') return std::nullopt;
    out += c;
  }
  return out;
}

/// The relative path a decoded URL path names: segments without "." and "..", no empty ones
/// (so "//etc/passwd" cannot become absolute). nullopt when a segment tries to climb.
std::optional<fs::path> safe_relative(std::string_view decoded) {
  fs::path rel;
  std::size_t start = 0;
  while (start <= decoded.size()) {
    std::size_t end = decoded.find('/', start);
    if (end == std::string_view::npos) end = decoded.size();
    const std::string_view seg = decoded.substr(start, end - start);
    if (seg == "." || seg == "..") return std::nullopt;
    if (!seg.empty()) rel /= std::string(seg);
    start = end + 1;
  }
  return rel;
}

/// Whether `p` (canonical) lies inside `root` (canonical).
bool inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin();
  auto q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (q == p.end() || *r != *q) return false;
  }
  return true;
}

struct ByteRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;  ///< Inclusive.
};

enum class RangeResult { none, ok, unsatisfiable };

/// Parses a single "bytes=a-b", "bytes=a-" or "bytes=-n". Anything else (several ranges,
/// other units, garbage) is ignored and the whole file is sent, as RFC 9110 allows.
RangeResult parse_range(std::string_view v, std::uint64_t size, ByteRange* out) {
  constexpr std::string_view kPrefix = "bytes=";
  if (v.substr(0, kPrefix.size()) != kPrefix) return RangeResult::none;
  v.remove_prefix(kPrefix.size());
  if (v.find(',') != std::string_view::npos) return RangeResult::none;
  const std::size_t dash = v.find('-');
  if (dash == std::string_view::npos) return RangeResult::none;
  const auto number = [](std::string_view s, std::uint64_t* n) {
    if (s.empty() || s.size() > 19) return false;
    *n = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      *n = *n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return true;
  };
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  const std::string_view sa = v.substr(0, dash);
  const std::string_view sb = v.substr(dash + 1);
  if (sa.empty()) {  // Suffix: the last n bytes.
    if (!number(sb, &b)) return RangeResult::none;
    if (b == 0 || size == 0) return RangeResult::unsatisfiable;
    out->first = size - std::min(b, size);
    out->last = size - 1;
    return RangeResult::ok;
  }
  if (!number(sa, &a)) return RangeResult::none;
  if (sb.empty()) {
    b = size == 0 ? 0 : size - 1;
  } else if (!number(sb, &b) || b < a) {
    return RangeResult::none;
  }
  if (a >= size) return RangeResult::unsatisfiable;
  out->first = a;
  out->last = std::min(b, size - 1);
  return RangeResult::ok;
}

/// Closes our side, then reads (and drops) what the client still sends for a short while, so
/// that closing with unread input does not reset the connection before it reads our error.
void linger_close(tcp::socket& socket) {
  boost::system::error_code ec;
  socket.shutdown(tcp::socket::shutdown_send, ec);
  std::array<char, 4096> sink{};
  for (std::size_t total = 0; total < 256 * 1024;) {
    pollfd pfd{socket.native_handle(), POLLIN, 0};
    if (::poll(&pfd, 1, 500) <= 0) return;
    const std::size_t n = socket.read_some(asio::buffer(sink), ec);
    if (ec || n == 0) return;
    total += n;
  }
}

class LiveHub;

/// One WebSocket client of /live. Every member runs on the hub's I/O thread.
class LiveSession : public std::enable_shared_from_this<LiveSession> {
 public:
  LiveSession(tcp::socket socket, LiveHub& hub, std::uint64_t id)
      : m_ws(beast::tcp_stream(std::move(socket))), m_hub(hub), m_id(id) {}

  /// Answers the upgrade request (on the I/O thread) and, once open, joins the hub.
  void start(http::request<http::empty_body> req);
  void send_frame(const LiveFrame& frame);
  void send_text(std::shared_ptr<const std::string> text);
  /// Server shutdown: a close frame (1001 going away).
  void going_away();

 private:
  struct Out {
    std::shared_ptr<const std::string> text;  ///< Or:
    std::shared_ptr<const std::vector<std::uint8_t>> frame;
    std::size_t size() const { return text ? text->size() : frame->size(); }
  };
  void on_accept(const boost::system::error_code& ec);
  void read_next();
  void on_read(const boost::system::error_code& ec);
  void enqueue(Out out);
  void write_next();
  void close_with(websocket::close_code code);
  void finish();

  websocket::stream<beast::tcp_stream> m_ws;
  LiveHub& m_hub;
  std::uint64_t m_id;
  http::request<http::empty_body> m_req;
  beast::flat_buffer m_in;
  std::deque<Out> m_out;
  std::size_t m_out_frames = 0;
  std::size_t m_out_bytes = 0;
  bool m_writing = false;
  bool m_open = false;
  bool m_closing = false;
  bool m_done = false;
  bool m_wait_key = true;   ///< Joined or dropped: frames resume at the next key frame.
  bool m_overflow = false;  ///< Waiting for a key frame because the queue overflowed.
  double m_tokens = kLiveMessageBurst;
  std::chrono::steady_clock::time_point m_refilled = std::chrono::steady_clock::now();
};

/// The live clients and their counters. Sessions are only touched on the I/O thread; the
/// counters are atomics that /live/stats reads from the HTTP threads.
class LiveHub {
 public:
  LiveHub(asio::io_context& io, LiveSim& sim) : m_io(io), m_sim(sim) {}

  /// Takes an upgraded connection (any thread).
  bool accept(tcp::socket socket, http::request<http::empty_body> req) {
    if (m_clients.load() >= kMaxLiveClients) return false;
    auto s = std::make_shared<LiveSession>(std::move(socket), *this, ++m_next_id);
    s->start(std::move(req));
    return true;
  }
  /// From the simulation thread: one post per frame, whatever the number of clients.
  void broadcast(const LiveFrame& frame) {
    asio::post(m_io, [this, frame] {
      for (const auto& [id, s] : m_sessions)
        s->send_frame(frame);
    });
  }
  void broadcast(std::shared_ptr<const std::string> text) {
    asio::post(m_io, [this, text = std::move(text)] {
      for (const auto& [id, s] : m_sessions)
        s->send_text(text);
    });
  }
  /// Sends every client a close frame (any thread).
  void close_all() {
    asio::post(m_io, [this] {
      for (const auto& [id, s] : m_sessions)
        s->going_away();
    });
  }
  // I/O thread only.
  void add(std::uint64_t id, std::shared_ptr<LiveSession> s) {
    m_sessions.emplace(id, std::move(s));
    m_clients = static_cast<int>(m_sessions.size());
  }
  void remove(std::uint64_t id) {
    m_sessions.erase(id);
    m_clients = static_cast<int>(m_sessions.size());
    m_sim.client_gone(id);
  }
  LiveSim& sim() { return m_sim; }
  int clients() const { return m_clients.load(); }

  std::atomic<std::uint64_t> frames_sent{0};
  std::atomic<std::uint64_t> frames_dropped{0};
  std::atomic<std::uint64_t> bytes_sent{0};
  std::atomic<std::uint64_t> closed_oversize{0};
  std::atomic<std::uint64_t> closed_malformed{0};
  std::atomic<std::uint64_t> closed_rate{0};
  std::atomic<std::uint64_t> closed_binary{0};

 private:
  asio::io_context& m_io;
  LiveSim& m_sim;
  std::map<std::uint64_t, std::shared_ptr<LiveSession>> m_sessions;
  std::atomic<int> m_clients{0};
  std::atomic<std::uint64_t> m_next_id{0};
};

void LiveSession::start(http::request<http::empty_body> req) {
  m_req = std::move(req);
  asio::post(m_ws.get_executor(), [self = shared_from_this()] {
    self->m_ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    self->m_ws.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "cityforge"); }));
    self->m_ws.read_message_max(kLiveMaxMessageBytes);
    self->m_ws.async_accept(self->m_req,
                            [self](const boost::system::error_code& ec) { self->on_accept(ec); });
  });
}

void LiveSession::on_accept(const boost::system::error_code& ec) {
  if (ec) return;  // Handshake failed: nothing joined, the socket closes with us.
  m_open = true;
  m_hub.add(m_id, shared_from_this());
  enqueue({m_hub.sim().hello(), nullptr});
  enqueue({m_hub.sim().env(), nullptr});
  read_next();
}

void LiveSession::read_next() {
  m_in.clear();
  m_ws.async_read(m_in, [self = shared_from_this()](const boost::system::error_code& ec,
                                                    std::size_t) { self->on_read(ec); });
}

void LiveSession::on_read(const boost::system::error_code& ec) {
  if (ec) {
    // Beast has sent 1009 (too big) or 1007 (invalid UTF-8) itself before failing the read.
    if (ec == websocket::error::message_too_big) ++m_hub.closed_oversize;
    if (ec == websocket::error::bad_frame_payload) ++m_hub.closed_malformed;
    finish();
    return;
  }
  if (m_closing) return;
  if (m_ws.got_binary()) {
    ++m_hub.closed_binary;
    close_with(websocket::close_code::unknown_data);
    return;
  }
  // Token bucket: kLiveMessagesPerS, bursts of kLiveMessageBurst.
  const auto now = std::chrono::steady_clock::now();
  m_tokens = std::min(
      kLiveMessageBurst,
      m_tokens + std::chrono::duration<double>(now - m_refilled).count() * kLiveMessagesPerS);
  m_refilled = now;
  if (m_tokens < 1) {
    ++m_hub.closed_rate;
    close_with(websocket::close_code::policy_error);
    return;
  }
  m_tokens -= 1;
  const auto data = static_cast<const char*>(m_in.cdata().data());
  Result<Control> c = parse_control(std::string_view(data, m_in.size()));
  if (!c) {
    ++m_hub.closed_malformed;
    close_with(websocket::close_code::bad_payload);
    return;
  }
  m_hub.sim().post(m_id, *c);
  read_next();
}

void LiveSession::close_with(websocket::close_code code) {
  if (m_closing) return;
  m_closing = true;
  m_out.clear();  // Frames not yet written are not owed to a client we are closing.
  m_out_frames = 0;
  m_out_bytes = 0;
  m_ws.async_close(
      code, [self = shared_from_this()](const boost::system::error_code&) { self->finish(); });
}

void LiveSession::going_away() { close_with(websocket::close_code::going_away); }

void LiveSession::finish() {
  if (m_done) return;
  m_done = true;
  if (m_open) m_hub.remove(m_id);
  boost::system::error_code ignored;
  beast::get_lowest_layer(m_ws).socket().close(ignored);
}

void LiveSession::send_frame(const LiveFrame& frame) {
  if (m_closing || m_done) return;
  if (m_wait_key && !frame.key) {
    if (m_overflow) ++m_hub.frames_dropped;
    return;
  }
  if (m_out_frames >= kMaxQueuedFrames || m_out_bytes + frame.bytes->size() > kMaxQueuedBytes) {
    // A delta frame needs the one before it: once one is dropped, the rest wait for a key.
    ++m_hub.frames_dropped;
    m_wait_key = true;
    m_overflow = true;
    return;
  }
  m_wait_key = false;
  m_overflow = false;
  ++m_out_frames;
  m_out_bytes += frame.bytes->size();
  enqueue({nullptr, frame.bytes});
}

void LiveSession::send_text(std::shared_ptr<const std::string> text) {
  if (m_closing || m_done) return;
  enqueue({std::move(text), nullptr});
}

void LiveSession::enqueue(Out out) {
  m_out.push_back(std::move(out));
  if (!m_writing) write_next();
}

void LiveSession::write_next() {
  if (m_out.empty() || m_closing || m_done) {
    m_writing = false;
    return;
  }
  m_writing = true;
  Out out = m_out.front();
  m_ws.text(out.text != nullptr);
  const asio::const_buffer buf =
      out.text ? asio::buffer(*out.text) : asio::buffer(out.frame->data(), out.frame->size());
  m_ws.async_write(
      buf, [self = shared_from_this(), out](const boost::system::error_code& ec, std::size_t n) {
        if (ec) {
          self->m_writing = false;
          self->finish();
          return;
        }
        if (out.frame) {
          ++self->m_hub.frames_sent;
          self->m_hub.bytes_sent += n;
        }
        if (!self->m_out.empty()) {  // close_with() may have emptied it meanwhile.
          if (self->m_out.front().frame) {
            --self->m_out_frames;
            self->m_out_bytes -= self->m_out.front().size();
          }
          self->m_out.pop_front();
        }
        self->write_next();
      });
}

/// Shared state: the roots, and the live connections so that shutdown can wake them.
class Server {
 public:
  Server(fs::path city, std::optional<fs::path> viewer, LiveHub* live)
      : m_city(std::move(city)), m_viewer(std::move(viewer)), m_live(live) {}

  /// Takes ownership of `socket` on a new thread, or refuses it when too many are open.
  void start(tcp::socket socket) {
    {
      std::lock_guard lock(m_mutex);
      if (m_stopping || m_active >= kMaxConnections) return;  // Socket closes here.
      ++m_active;
      m_fds.insert(socket.native_handle());
    }
    std::thread([this, s = std::move(socket)]() mutable {
      const int fd = s.native_handle();  // session() may hand the socket to the live hub.
      session(s);
      std::lock_guard lock(m_mutex);
      m_fds.erase(fd);
      boost::system::error_code ignored;
      s.close(ignored);
      --m_active;
      m_done.notify_all();
    }).detach();
  }

  /// Wakes every connection thread and waits for all of them to finish.
  void stop() {
    std::unique_lock lock(m_mutex);
    m_stopping = true;
    for (int fd : m_fds)
      ::shutdown(fd, SHUT_RDWR);
    m_done.wait(lock, [this] { return m_active == 0; });
  }

 private:
  void session(tcp::socket& socket);
  /// Writes one response; false when the connection must close.
  bool respond(tcp::socket& socket, const http::request<http::empty_body>& req);
  void send_simple(tcp::socket& socket, http::status status, unsigned version,
                   std::string_view body, bool keep_alive);
  std::optional<fs::path> resolve(std::string_view target, http::status* why) const;
  std::string index_page() const;
  std::string live_stats() const;

  fs::path m_city;
  std::optional<fs::path> m_viewer;
  LiveHub* m_live;  ///< Null without --live.
  std::mutex m_mutex;
  std::condition_variable m_done;
  std::set<int> m_fds;
  int m_active = 0;
  bool m_stopping = false;
};

void Server::session(tcp::socket& socket) {
  boost::beast::flat_buffer buffer(kMaxHeaderBytes);
  for (;;) {
    // An idle keep-alive connection holds a thread: let it go after a while.
    if (buffer.size() == 0) {
      pollfd pfd{socket.native_handle(), POLLIN, 0};
      if (::poll(&pfd, 1, kIdleTimeoutMs) <= 0) return;
    }
    http::request_parser<http::empty_body> parser;
    parser.header_limit(kMaxHeaderBytes);
    parser.body_limit(kMaxBodyBytes);
    boost::system::error_code ec;
    http::read(socket, buffer, parser, ec);
    if (ec == http::error::end_of_stream || ec == asio::error::eof ||
        ec == asio::error::connection_reset || ec == asio::error::operation_aborted ||
        ec == asio::error::bad_descriptor) {
      return;
    }
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      send_simple(socket, http::status::request_header_fields_too_large, 11, "request too large\n",
                  false);
      linger_close(socket);
      return;
    }
    if (ec == http::error::body_limit) {
      send_simple(socket, http::status::payload_too_large, 11, "no request body allowed\n", false);
      linger_close(socket);
      return;
    }
    if (ec) {
      send_simple(socket, http::status::bad_request, 11, "malformed request\n", false);
      linger_close(socket);
      return;
    }
    http::request<http::empty_body>& req = parser.get();
    if (websocket::is_upgrade(req)) {
      const std::string_view t(req.target().data(), req.target().size());
      if (m_live && t.substr(0, t.find('?')) == "/live") {
        if (m_live->accept(std::move(socket), parser.release())) return;
        send_simple(socket, http::status::service_unavailable, 11, "too many live clients\n",
                    false);
        return;
      }
      send_simple(socket, http::status::not_found, 11, "not found\n", false);
      return;
    }
    if (!respond(socket, req)) return;
  }
}

void Server::send_simple(tcp::socket& socket, http::status status, unsigned version,
                         std::string_view body, bool keep_alive) {
  http::response<http::string_body> res{status, version};
  res.set(http::field::server, "cityforge");
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  if (status == http::status::method_not_allowed) res.set(http::field::allow, "GET, HEAD");
  res.keep_alive(keep_alive);
  res.body() = std::string(body);
  res.prepare_payload();
  boost::system::error_code ignored;
  http::write(socket, res, ignored);
}

std::string Server::index_page() const {
  std::string html =
      "<!doctype html><meta charset=\"utf-8\"><title>cityforge</title>\n<h1>cityforge</h1>\n"
      "<p>No viewer folder given (<code>--root</code>); the city files:</p>\n<ul>\n";
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(m_city, ec)) {
    if (e.is_regular_file(ec)) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  for (const std::string& n : names)
    html += "<li><a href=\"/city/" + n + "\">" + n + "</a></li>\n";
  return html + "</ul>\n";
}

std::string Server::live_stats() const {
  const LiveStats st = m_live->sim().stats();
  nlohmann::ordered_json j;
  j["ticks"] = st.ticks;
  j["time_s"] = st.time_s;
  j["ticks_per_s"] = st.ticks_per_s;
  j["target_ticks_per_s"] = st.target_ticks_per_s;
  j["ticks_behind"] = st.ticks_behind;
  j["wall_s"] = st.wall_s;
  j["clients"] = m_live->clients();
  j["frames"] = st.frames;
  j["frames_sent"] = m_live->frames_sent.load();
  j["frames_dropped"] = m_live->frames_dropped.load();
  j["bytes_sent"] = m_live->bytes_sent.load();
  j["frame_bytes"] = st.frame_bytes;
  j["bytes_per_frame"] = st.frames > 0 ? static_cast<double>(st.frame_bytes) / st.frames : 0.0;
  j["bytes_per_agent_per_frame"] =
      st.agent_samples > 0 ? static_cast<double>(st.frame_bytes) / st.agent_samples : 0.0;
  j["agents"] = st.agents;
  j["vehicles"] = st.vehicles;
  j["pedestrians"] = st.pedestrians;
  j["closed_oversize"] = m_live->closed_oversize.load();
  j["closed_malformed"] = m_live->closed_malformed.load();
  j["closed_rate"] = m_live->closed_rate.load();
  j["closed_binary"] = m_live->closed_binary.load();
  j["weather"] = st.weather;
  j["fog"] = st.fog;
  j["players"] = st.players;
  if (st.players > 0) {
    j["player"] = {
        {"lane", st.player_lane}, {"s_m", st.player_s_m}, {"speed_mps", st.player_speed_mps}};
  } else {
    j["player"] = nullptr;
  }
  return j.dump() + "\n";
}

/// Maps a request target to a regular file inside its root, or sets `why` (404 / 403).
std::optional<fs::path> Server::resolve(std::string_view target, http::status* why) const {
  *why = http::status::not_found;
  const std::size_t q = target.find_first_of("?#");
  if (q != std::string_view::npos) target = target.substr(0, q);
  if (target.empty() || target.front() != '/') {
    *why = http::status::bad_request;
    return std::nullopt;
  }
  const std::optional<std::string> decoded = url_decode(target);
  if (!decoded) {
    *why = http::status::bad_request;
    return std::nullopt;
  }
  std::string_view path = *decoded;
  const fs::path* root = nullptr;
  constexpr std::string_view kCity = "/city/";
  if (path.substr(0, kCity.size()) == kCity) {
    root = &m_city;
    path.remove_prefix(kCity.size());
  } else if (m_viewer) {
    root = &*m_viewer;
  } else {
    return std::nullopt;
  }
  const std::optional<fs::path> rel = safe_relative(path);
  if (!rel) {
    *why = http::status::forbidden;
    return std::nullopt;
  }
  std::error_code ec;
  fs::path full = fs::weakly_canonical(*root / *rel, ec);
  if (ec) return std::nullopt;
  if (!inside(*root, full)) {  // A symlink leading out.
    *why = http::status::forbidden;
    return std::nullopt;
  }
  if (root != &m_city && fs::is_directory(full, ec)) {
    full = fs::weakly_canonical(full / "index.html", ec);
    if (ec || !inside(*root, full)) {
      *why = http::status::forbidden;
      return std::nullopt;
    }
  }
  if (!fs::is_regular_file(full, ec)) return std::nullopt;
  return full;
}

bool Server::respond(tcp::socket& socket, const http::request<http::empty_body>& req) {
  const bool keep_alive = req.keep_alive();
  const unsigned version = req.version();
  const bool head = req.method() == http::verb::head;
  if (req.method() != http::verb::get && !head) {
    send_simple(socket, http::status::method_not_allowed, version, "GET and HEAD only\n",
                keep_alive);
    return keep_alive;
  }
  const std::string_view target(req.target().data(), req.target().size());
  if (m_live && target.substr(0, target.find('?')) == "/live/stats") {
    http::response<http::string_body> res{http::status::ok, version};
    res.set(http::field::server, "cityforge");
    res.set(http::field::content_type, "application/json");
    res.set(http::field::cache_control, "no-store");
    res.keep_alive(keep_alive);
    res.body() = head ? std::string() : live_stats();
    res.prepare_payload();
    boost::system::error_code ec;
    http::write(socket, res, ec);
    return keep_alive && !ec;
  }
  if (!m_viewer && (target == "/" || target == "/index.html")) {
    http::response<http::string_body> res{http::status::ok, version};
    res.set(http::field::server, "cityforge");
    res.set(http::field::content_type, "text/html; charset=utf-8");
    res.keep_alive(keep_alive);
    res.body() = head ? std::string() : index_page();
    res.prepare_payload();
    boost::system::error_code ec;
    http::write(socket, res, ec);
    return keep_alive && !ec;
  }
  http::status why{};
  const std::optional<fs::path> file = resolve(target, &why);
  if (!file) {
    const std::string_view body = why == http::status::forbidden   ? "forbidden\n"
                                  : why == http::status::not_found ? "not found\n"
                                                                   : "bad request\n";
    send_simple(socket, why, version, body, keep_alive);
    return keep_alive;
  }
  std::ifstream in(*file, std::ios::binary);
  std::error_code fec;
  const std::uint64_t size = fs::file_size(*file, fec);
  if (!in || fec) {
    send_simple(socket, http::status::not_found, version, "not found\n", keep_alive);
    return keep_alive;
  }

  // 1. Headers, with the range when one is asked for and satisfiable.
  http::response<http::empty_body> res{http::status::ok, version};
  res.set(http::field::server, "cityforge");
  const std::string_view type = content_type(*file);
  res.set(http::field::content_type, boost::beast::string_view(type.data(), type.size()));
  res.set(http::field::accept_ranges, "bytes");
  res.set(http::field::cache_control, "no-cache");
  res.set("X-Content-Type-Options", "nosniff");
  res.keep_alive(keep_alive);
  ByteRange range{0, size == 0 ? 0 : size - 1};
  std::uint64_t length = size;
  const auto range_field = req.find(http::field::range);
  if (range_field != req.end()) {
    const std::string_view value(range_field->value().data(), range_field->value().size());
    switch (parse_range(value, size, &range)) {
      case RangeResult::ok:
        res.result(http::status::partial_content);
        length = range.last - range.first + 1;
        res.set(http::field::content_range, "bytes " + std::to_string(range.first) + "-" +
                                                std::to_string(range.last) + "/" +
                                                std::to_string(size));
        break;
      case RangeResult::unsatisfiable:
        res.result(http::status::range_not_satisfiable);
        res.set(http::field::content_range, "bytes */" + std::to_string(size));
        length = 0;
        break;
      case RangeResult::none:
        break;
    }
  }
  res.set(http::field::content_length, std::to_string(length));
  boost::system::error_code ec;
  http::response_serializer<http::empty_body> sr{res};
  http::write_header(socket, sr, ec);
  if (ec) return false;
  if (head || res.result() == http::status::range_not_satisfiable) return keep_alive;

  // 2. The bytes, in chunks: memory stays bounded and a vanished client stops the loop.
  in.seekg(static_cast<std::streamoff>(range.first));
  std::vector<char> chunk(kChunkBytes);
  std::uint64_t left = length;
  while (left > 0) {
    const auto n = static_cast<std::streamsize>(std::min<std::uint64_t>(left, chunk.size()));
    in.read(chunk.data(), n);
    if (in.gcount() != n) return false;  // File shrank under us: the length is now a lie.
    asio::write(socket, asio::buffer(chunk.data(), static_cast<std::size_t>(n)), ec);
    if (ec) return false;
    left -= static_cast<std::uint64_t>(n);
  }
  return keep_alive;
}

}  // namespace

int serve(const ServeOptions& options) {
  // 1. The folders.
  std::error_code ec;
  if (!fs::is_directory(options.dir, ec)) {
    std::cerr << "serve: OUT_DIR '" << options.dir
              << "' is not a folder (run `cityforge generate -o " << options.dir << "` first)\n";
    return kExitInput;
  }
  const bool has_city = std::any_of(kCityFiles.begin(), kCityFiles.end(), [&](auto name) {
    return fs::is_regular_file(fs::path(options.dir) / name, ec);
  });
  if (!has_city) {
    std::cerr << "serve: '" << options.dir
              << "' holds no city files (expected one of city.glb, lanes.json, "
                 "layout.geojson, traffic.cfrec, shepherds.json)\n";
    return kExitInput;
  }
  std::optional<fs::path> viewer;
  std::string root = options.root;
  if (root.empty()) {
    // $CITYFORGE_VIEWER, else the viewer this binary was built next to (when built).
    const char* env = std::getenv("CITYFORGE_VIEWER");
    if (env != nullptr) {
      root = std::string(env) == "none" ? std::string() : std::string(env);
    } else if (fs::is_directory(CITYFORGE_VIEWER_DIR, ec)) {
      root = CITYFORGE_VIEWER_DIR;
    }
  }
  if (!root.empty()) {
    if (!fs::is_directory(root, ec)) {
      std::cerr << "serve: " << (options.root.empty() ? "CITYFORGE_VIEWER" : "--root") << " '"
                << root << "' is not a folder\n";
      return kExitInput;
    }
    viewer = fs::canonical(root, ec);
  }
  const fs::path city = fs::canonical(options.dir, ec);

  // 2. Listen.
  asio::io_context io;
  tcp::acceptor acceptor(io);
  boost::system::error_code bec;
  const asio::ip::address address = asio::ip::make_address(options.host, bec);
  if (bec) {
    std::cerr << "serve: --host '" << options.host << "' is not an IP address\n";
    return kExitInput;
  }
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
  acceptor.open(endpoint.protocol(), bec);
  if (!bec) acceptor.set_option(asio::socket_base::reuse_address(true), bec);
  if (!bec) acceptor.bind(endpoint, bec);
  if (!bec) acceptor.listen(asio::socket_base::max_listen_connections, bec);
  if (bec) {
    std::cerr << "serve: cannot listen on " << options.host << " port " << options.port
              << (bec == asio::error::address_in_use
                      ? " (port " + std::to_string(options.port) + " is already in use)"
                      : "")
              << ": " << bec.message() << "\n";
    return kExitBind;
  }
  const unsigned short port = acceptor.local_endpoint().port();
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
    Result<std::unique_ptr<LiveSim>> made = LiveSim::create(lo);
    if (!made) {
      std::cerr << "serve: error: " << made.error().to_string() << "\n";
      return kExitInput;
    }
    live = std::move(*made);
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
  Server server(city, viewer, hub ? &*hub : nullptr);
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
  std::cout << "http://" << host << ":" << port << "/" << std::endl;
  std::cout << (live ? live->summary() : std::string("live: off (--live runs the simulation)"))
            << std::endl;
  std::cout << "serving " << city.string() << " at /city/"
            << (viewer ? ", viewer " + viewer->string() + " at /" : std::string()) << std::endl;
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
  std::cout << "serve: stopped" << std::endl;
  return 0;
}

}  // namespace cityforge::app
