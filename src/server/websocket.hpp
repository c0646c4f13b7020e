// SPDX-License-Identifier: Apache-2.0
// The live WebSocket of `cityforge serve --live` (docs/live.md): every client session runs as
// asynchronous Beast operations on one I/O thread (no locks between sessions; the simulation
// thread only posts each frame once), with a bounded outgoing queue and the inbound limits.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cityforge/server/live.hpp"

namespace cityforge::server::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
using tcp = asio::ip::tcp;

inline constexpr int kMaxLiveClients = 256;         ///< WebSocket sessions (async, no thread each).
inline constexpr std::size_t kMaxQueuedFrames = 4;  ///< Unsent frames per client...
inline constexpr std::size_t kMaxQueuedBytes = 2U << 20U;  ///< ...or bytes, before dropping.

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

  /// Takes an upgraded connection (any thread), or leaves `socket` to the caller when full.
  bool accept(tcp::socket& socket, http::request<http::empty_body> req) {
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
  std::atomic<std::uint64_t> closed_protocol{0};

 private:
  asio::io_context& m_io;
  LiveSim& m_sim;
  std::map<std::uint64_t, std::shared_ptr<LiveSession>> m_sessions;
  std::atomic<int> m_clients{0};
  std::atomic<std::uint64_t> m_next_id{0};
};

}  // namespace cityforge::server::detail
