// SPDX-License-Identifier: Apache-2.0
// A tiny HTTP/1.1 client over raw sockets for the tests of `cityforge serve`: one request per
// connection (Connection: close), read until the server closes, never hanging the suite.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <string>

namespace cityforge::clitest {

struct Reply {
  int status = 0;                              ///< 0 when nothing (or no HTTP) came back.
  std::map<std::string, std::string> headers;  ///< Lower-case names.
  std::string body;
};

/// A connected socket to 127.0.0.1:port, or -1.
inline int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// Sends `request` verbatim and reads until the server closes (requests say Connection: close).
inline Reply http_exchange(int port, const std::string& request) {
  Reply r;
  const int fd = connect_to(port);
  if (fd < 0) return r;
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string raw;
  char buf[65536];
  for (;;) {
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 5000) <= 0) break;  // Never hang the suite.
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  const std::size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos || raw.size() < 12) return r;
  r.status = std::stoi(raw.substr(9, 3));
  std::size_t line = raw.find("\r\n") + 2;
  while (line < end) {
    const std::size_t eol = raw.find("\r\n", line);
    const std::string h = raw.substr(line, eol - line);
    const std::size_t colon = h.find(':');
    std::string name = h.substr(0, colon);
    for (char& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    r.headers[name] = h.substr(h.find_first_not_of(' ', colon + 1));
    line = eol + 2;
  }
  r.body = raw.substr(end + 4);
  return r;
}

/// `method target` with `extra` header lines ("Name: value\r\n" each).
inline Reply get(int port, const std::string& target, const std::string& extra = "",
                 const std::string& method = "GET") {
  return http_exchange(port, method + " " + target + " HTTP/1.1\r\nHost: localhost\r\n" + extra +
                                 "Connection: close\r\n\r\n");
}

}  // namespace cityforge::clitest
