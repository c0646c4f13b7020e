// SPDX-License-Identifier: Apache-2.0
// `cityforge serve`: a small static HTTP/1.1 server (Boost.Beast over Boost.Asio) for a city
// folder at /city/<path> and the viewer's files at /. One thread per connection, a bounded
// number of connections and request size, single byte ranges (RFC 9110, section 14) so a viewer
// can seek in big recordings, and every path resolved and checked against its root so that
// nothing outside it (.., encoded dots, absolute paths, symlinks) is ever read.
#include "serve.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace cityforge::app {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
namespace fs = std::filesystem;
using tcp = asio::ip::tcp;

constexpr int kExitBind = 1;
constexpr int kExitInput = 2;
constexpr std::size_t kMaxHeaderBytes = 8 * 1024;  ///< Request line + headers.
constexpr std::size_t kMaxBodyBytes = 0;           ///< GET / HEAD carry no body.
constexpr int kMaxConnections = 64;
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

/// Shared state: the roots, and the live connections so that shutdown can wake them.
class Server {
 public:
  Server(fs::path city, std::optional<fs::path> viewer)
      : m_city(std::move(city)), m_viewer(std::move(viewer)) {}

  /// Takes ownership of `socket` on a new thread, or refuses it when too many are open.
  void start(tcp::socket socket) {
    {
      std::lock_guard lock(m_mutex);
      if (m_stopping || m_active >= kMaxConnections) return;  // Socket closes here.
      ++m_active;
      m_fds.insert(socket.native_handle());
    }
    std::thread([this, s = std::move(socket)]() mutable {
      session(s);
      std::lock_guard lock(m_mutex);
      m_fds.erase(s.native_handle());
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

  fs::path m_city;
  std::optional<fs::path> m_viewer;
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
    if (!respond(socket, parser.get())) return;
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
  if (!options.root.empty()) {
    if (!fs::is_directory(options.root, ec)) {
      std::cerr << "serve: --root '" << options.root << "' is not a folder\n";
      return kExitInput;
    }
    viewer = fs::canonical(options.root, ec);
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
  std::cout << "http://" << host << ":" << port << "/" << std::endl;
  std::cout << "serving " << city.string() << " at /city/"
            << (viewer ? ", viewer " + viewer->string() + " at /" : std::string()) << std::endl;

  // 3. Accept until SIGINT / SIGTERM. Writes to a vanished client fail with EPIPE, not a signal.
  std::signal(SIGPIPE, SIG_IGN);
  Server server(city, viewer);
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
  });
  std::function<void()> accept_next = [&] {
    acceptor.async_accept([&](const boost::system::error_code& aec, tcp::socket socket) {
      if (aec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!aec) server.start(std::move(socket));
      accept_next();
    });
  };
  accept_next();
  io.run();
  server.stop();
  std::cout << "serve: stopped" << std::endl;
  return 0;
}

}  // namespace cityforge::app
