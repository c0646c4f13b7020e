// SPDX-License-Identifier: Apache-2.0
// The HTTP/1.1 side of `cityforge serve`: one thread per connection, a bounded number of
// connections and request size, the city at /city/<path>, the viewer at /, /live/stats, and
// WebSocket upgrades of /live handed to the live hub.
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "cityforge/islands/island_files.hpp"
#include "websocket.hpp"

namespace cityforge::server::detail {

namespace fs = std::filesystem;

inline constexpr int kMaxConnections = 256;  ///< HTTP connections (each holds a thread).

class TimedSocket;  ///< http.cpp: the socket with read and write deadlines.

/// Shared state: the roots, and the live connections so that shutdown can wake them.
class Server {
 public:
  Server(fs::path city, std::optional<fs::path> viewer, LiveHub* live,
         islands::IslandSession* island = nullptr,
         std::shared_ptr<const std::string> scenario = nullptr)
      : m_city(std::move(city)),
        m_viewer(std::move(viewer)),
        m_live(live),
        m_island(island),
        m_scenario(std::move(scenario)) {}

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
  void session(tcp::socket& raw);
  /// Writes one response; false when the connection must close.
  bool respond(TimedSocket& socket, const http::request<http::empty_body>& req);
  void send_simple(TimedSocket& socket, http::status status, unsigned version,
                   std::string_view body, bool keep_alive);
  std::optional<fs::path> resolve(std::string_view target, http::status* why) const;
  std::string index_page() const;
  std::string live_stats() const;
  /// POST /island/edit?cell=N&kind=raise|lower: the edit's report as JSON, or its error (422).
  std::pair<http::status, std::string> island_edit(std::string_view query);

  fs::path m_city;
  std::optional<fs::path> m_viewer;
  LiveHub* m_live;                   ///< Null without --live.
  islands::IslandSession* m_island;  ///< Null unless serving an island folder.
  /// GET /scenario.json (serve --scenario), null without one (404).
  std::shared_ptr<const std::string> m_scenario;
  std::mutex m_island_mutex;  ///< One edit at a time.
  std::mutex m_mutex;
  std::condition_variable m_done;
  std::set<int> m_fds;
  int m_active = 0;
  bool m_stopping = false;
  std::atomic<std::uint64_t> m_timed_out{0};  ///< Requests closed with 408 (too slow).
};

}  // namespace cityforge::server::detail
