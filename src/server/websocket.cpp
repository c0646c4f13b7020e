// SPDX-License-Identifier: Apache-2.0
// One live client: the upgrade, the hello and environment messages, control messages in (rate
// limited, parsed, handed to the simulation), stream frames out through a bounded queue that
// drops to the next key frame when a client falls behind.
#include "websocket.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace cityforge::server::detail {

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
    if (ec == websocket::error::bad_frame_payload) {
      ++m_hub.closed_malformed;
    } else if (ec == websocket::condition::protocol_violation) {
      ++m_hub.closed_protocol;  // Bytes that are no WebSocket frame: Beast sent 1002.
    }
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

}  // namespace cityforge::server::detail
