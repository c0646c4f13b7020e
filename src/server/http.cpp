// SPDX-License-Identifier: Apache-2.0
// HTTP/1.1 for `cityforge serve` (Boost.Beast over Boost.Asio): static files with single byte
// ranges so a viewer can seek in big recordings, every path resolved and checked against its
// root (static_files.cpp), the live figures at /live/stats, a scenario at /scenario.json, /live
// upgrades to the hub.
#include "http.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>
#include <vector>

#include "static_files.hpp"

namespace cityforge::server::detail {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxHeaderBytes = 8 * 1024;  ///< Request line + headers.
constexpr std::size_t kMaxBodyBytes = 0;           ///< GET / HEAD carry no body.
constexpr int kIdleTimeoutMs = 30'000;     ///< A keep-alive connection waiting for a request.
constexpr int kRequestTimeoutMs = 10'000;  ///< A request's header, from its first byte.
constexpr int kWriteStallMs = 30'000;      ///< A client that takes none of our bytes for this.
constexpr std::size_t kChunkBytes = 64 * 1024;

/// The connection's socket, non-blocking underneath, with deadlines: a read waits at most
/// until the deadline the session sets, a write at most kWriteStallMs for the client to take
/// more bytes. Without them a client that sends a header a byte at a time (slowloris) or never
/// reads a response holds its thread, and kMaxConnections of them hold the server.
/// A SyncReadStream and SyncWriteStream for Beast's http::read and http::write.
class TimedSocket {
 public:
  explicit TimedSocket(tcp::socket& socket) : m_socket(socket) {
    boost::system::error_code ignored;
    m_socket.non_blocking(true, ignored);
  }
  ~TimedSocket() { release(); }
  TimedSocket(const TimedSocket&) = delete;
  TimedSocket& operator=(const TimedSocket&) = delete;

  /// Back to blocking mode, as the live hub expects a socket handed to it.
  void release() {
    boost::system::error_code ignored;
    m_socket.non_blocking(false, ignored);
  }
  /// Non-blocking again after release(): a socket the live hub refused is answered here.
  void resume() {
    boost::system::error_code ignored;
    m_socket.non_blocking(true, ignored);
  }
  void read_by(Clock::time_point deadline) { m_read_deadline = deadline; }
  tcp::socket& socket() { return m_socket; }

  template <class Buffers>
  std::size_t read_some(const Buffers& buffers, boost::system::error_code& ec) {
    for (;;) {
      const std::size_t n = m_socket.read_some(buffers, ec);
      if (ec != asio::error::would_block && ec != asio::error::try_again) return n;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(m_read_deadline - Clock::now());
      if (!wait(POLLIN, static_cast<int>(std::max<std::int64_t>(0, left.count())), ec)) return 0;
    }
  }
  template <class Buffers>
  std::size_t read_some(const Buffers& buffers) {
    boost::system::error_code ec;
    const std::size_t n = read_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }
  template <class Buffers>
  std::size_t write_some(const Buffers& buffers, boost::system::error_code& ec) {
    for (;;) {
      const std::size_t n = m_socket.write_some(buffers, ec);
      if (ec != asio::error::would_block && ec != asio::error::try_again) return n;
      if (!wait(POLLOUT, kWriteStallMs, ec)) return 0;
    }
  }
  template <class Buffers>
  std::size_t write_some(const Buffers& buffers) {
    boost::system::error_code ec;
    const std::size_t n = write_some(buffers, ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }
  /// Waits up to `ms` for the socket to become readable: false on a timeout or an error.
  bool readable_within(int ms) {
    boost::system::error_code ec;
    return wait(POLLIN, ms, ec);
  }

 private:
  /// Waits for `events`; false with `ec` set (timed_out, or the poll's error) otherwise.
  bool wait(short events, int ms, boost::system::error_code& ec) {
    pollfd pfd{m_socket.native_handle(), events, 0};
    for (;;) {
      const int r = ::poll(&pfd, 1, ms);
      if (r > 0) {
        ec = {};
        return true;
      }
      if (r == 0) {
        ec = asio::error::timed_out;
        return false;
      }
      if (errno != EINTR) {
        ec = boost::system::error_code(errno, boost::system::system_category());
        return false;
      }
    }
  }

  tcp::socket& m_socket;
  Clock::time_point m_read_deadline = Clock::now();
};

namespace {

/// Closes our side, then reads (and drops) what the client still sends for a short while, so
/// that closing with unread input does not reset the connection before it reads our error.
void linger_close(TimedSocket& socket) {
  boost::system::error_code ec;
  socket.socket().shutdown(tcp::socket::shutdown_send, ec);
  std::array<char, 4096> sink{};
  socket.read_by(Clock::now() + std::chrono::seconds(2));
  for (std::size_t total = 0; total < 256 * 1024;) {
    const std::size_t n = socket.read_some(asio::buffer(sink), ec);
    if (ec || n == 0) return;
    total += n;
  }
}

/// Writes a whole response; false when the connection must close.
template <class Message>
bool write_message(TimedSocket& socket, Message& message) {
  boost::system::error_code ec;
  http::write(socket, message, ec);
  return !ec;
}

}  // namespace

void Server::session(tcp::socket& raw) {
  TimedSocket socket(raw);
  boost::beast::flat_buffer buffer(kMaxHeaderBytes);
  for (;;) {
    // An idle keep-alive connection holds a thread: let it go after a while.
    if (buffer.size() == 0 && !socket.readable_within(kIdleTimeoutMs)) return;
    // From its first byte, the whole header must come within kRequestTimeoutMs.
    socket.read_by(Clock::now() + std::chrono::milliseconds(kRequestTimeoutMs));
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
    if (ec == asio::error::timed_out) {
      m_timed_out.fetch_add(1, std::memory_order_relaxed);
      send_simple(socket, http::status::request_timeout, 11, "request too slow\n", false);
      linger_close(socket);
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
        socket.release();
        if (m_live->accept(raw, parser.release())) return;
        socket.resume();  // The 503 gets the write stall limit like every other answer.
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

void Server::send_simple(TimedSocket& socket, http::status status, unsigned version,
                         std::string_view body, bool keep_alive) {
  http::response<http::string_body> res{status, version};
  res.set(http::field::server, "cityforge");
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  if (status == http::status::method_not_allowed) res.set(http::field::allow, "GET, HEAD");
  res.keep_alive(keep_alive);
  res.body() = std::string(body);
  res.prepare_payload();
  write_message(socket, res);
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

std::pair<http::status, std::string> Server::island_edit(std::string_view query) {
  std::string cell, kind, colour;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    if (eq != std::string_view::npos) {
      if (pair.substr(0, eq) == "cell") cell = std::string(pair.substr(eq + 1));
      if (pair.substr(0, eq) == "kind") kind = std::string(pair.substr(eq + 1));
      if (pair.substr(0, eq) == "colour") colour = std::string(pair.substr(eq + 1));
    }
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
  }
  nlohmann::ordered_json j;
  Result<islands::IslandEdit> edit =
      islands::parse_edit(cell + ":" + kind + (kind == "paint" ? ":" + colour : std::string()));
  if (!edit || (kind != "paint" && !colour.empty())) {
    j["error"] = "expected ?cell=N&kind=raise|lower or ?cell=N&kind=paint&colour=0.." +
                 std::to_string(islands::kPaintColours - 1);
    return {http::status::bad_request, j.dump() + "\n"};
  }
  std::lock_guard lock(m_island_mutex);
  Result<islands::EditReport> r = m_island->edit(*edit);
  if (!r) {
    j["error"] = r.error().message;
    return {http::status::unprocessable_entity, j.dump() + "\n"};
  }
  j["cell"] = edit->plane_cell;
  j["kind"] = kind;
  j["edited"] = r->edited;
  j["rings"] = r->rings;
  j["region"] = r->region.size();
  j["changed"] = r->changed.size();
  if (edit->kind == islands::EditKind::paint) {
    j["colour"] = edit->colour;
    j["recoloured"] = r->recoloured;
  }
  j["solve_ms"] = r->solve_ms;
  j["total_ms"] = r->total_ms;
  j["edits"] = m_island->edits();
  return {http::status::ok, j.dump() + "\n"};
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
  j["clients_max"] = kMaxLiveClients;
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
  j["closed_protocol"] = m_live->closed_protocol.load();
  j["http_timed_out"] = m_timed_out.load();
  j["weather"] = st.weather;
  j["fog"] = st.fog;
  j["players"] = st.players;
  j["casualties"] = st.casualties;
  j["hits_refused"] = st.hits_refused;
  j["ranks"] = st.ranks;
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

bool Server::respond(TimedSocket& socket, const http::request<http::empty_body>& req) {
  const bool keep_alive = req.keep_alive();
  const unsigned version = req.version();
  const bool head = req.method() == http::verb::head;
  const std::string_view full_target(req.target().data(), req.target().size());
  if (m_island != nullptr && req.method() == http::verb::post &&
      full_target.substr(0, full_target.find('?')) == "/island/edit") {
    const std::size_t q = full_target.find('?');
    const auto [status, body] =
        island_edit(q == std::string_view::npos ? std::string_view() : full_target.substr(q + 1));
    http::response<http::string_body> res{status, version};
    res.set(http::field::server, "cityforge");
    res.set(http::field::content_type, "application/json");
    res.set(http::field::cache_control, "no-store");
    res.keep_alive(keep_alive);
    res.body() = body;
    res.prepare_payload();
    return write_message(socket, res) && keep_alive;
  }
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
    return write_message(socket, res) && keep_alive;
  }
  if (target.substr(0, target.find('?')) == "/scenario.json") {
    if (!m_scenario) {
      send_simple(socket, http::status::not_found, version, "not found (no --scenario given)\n",
                  keep_alive);
      return keep_alive;
    }
    http::response<http::string_body> res{http::status::ok, version};
    res.set(http::field::server, "cityforge");
    res.set(http::field::content_type, "application/json");
    res.set(http::field::cache_control, "no-store");
    res.keep_alive(keep_alive);
    res.body() = head ? std::string() : *m_scenario;
    res.prepare_payload();
    return write_message(socket, res) && keep_alive;
  }
  if (!m_viewer && (target == "/" || target == "/index.html")) {
    http::response<http::string_body> res{http::status::ok, version};
    res.set(http::field::server, "cityforge");
    res.set(http::field::content_type, "text/html; charset=utf-8");
    res.keep_alive(keep_alive);
    res.body() = head ? std::string() : index_page();
    res.prepare_payload();
    return write_message(socket, res) && keep_alive;
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
  // City files (tilesets above all) may be streamed by clients on other origins: CesiumJS,
  // Cesium for Unreal's web requests, deck.gl pages.
  if (target.substr(0, 6) == "/city/") res.set(http::field::access_control_allow_origin, "*");
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

}  // namespace cityforge::server::detail
