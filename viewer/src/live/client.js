// SPDX-License-Identifier: Apache-2.0
// WebSocket client of `cityforge serve --live` (ws://HOST/live): a text "hello" first, text
// {"type":"env"} messages when the shared environment changes, binary frames decoded by
// ./decode.js (StreamDecoder, the browser twin of traffic::StreamDecoder). Outbound messages are
// small JSON objects, rate-limited here below the server's limit (30/s).

// The decoder is another module of this viewer; resolved at build time, absent -> no live mode.
const decoders = import.meta.glob('./decode.js');

const MAX_SEND_PER_S = 20;

/// Resolves to true when the server answers on /live within `timeout_ms`.
export function probeLive(url, timeout_ms = 1500) {
  return new Promise((resolve) => {
    let ws;
    const done = (ok) => {
      clearTimeout(timer);
      if (ws) {
        ws.onopen = ws.onerror = ws.onclose = null;
        try {
          ws.close();
        } catch {
          // Closing a socket that never opened throws in some browsers.
        }
      }
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeout_ms);
    try {
      ws = new WebSocket(url);
    } catch {
      done(false);
      return;
    }
    ws.onopen = () => done(true);
    ws.onerror = () => done(false);
    ws.onclose = () => done(false);
  });
}

export function liveUrl() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${location.host}/live`;
}

export class LiveClient extends EventTarget {
  constructor(url = liveUrl()) {
    super();
    this.url = url;
    this.ws = null;
    this.hello = null;
    this.decoder = null;
    this.frames = 0;
    this.errors = 0;
    this.tokens = MAX_SEND_PER_S;
    this.lastRefill = performance.now();
    this.pending = new Map(); // type -> latest message held back by the rate limit
  }

  async connect() {
    const load = decoders['./decode.js'];
    if (!load) throw new Error('live mode needs src/live/decode.js (the stream decoder)');
    const { StreamDecoder } = await load();
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      ws.binaryType = 'arraybuffer';
      this.ws = ws;
      ws.onerror = () => reject(new Error(`cannot connect to ${this.url}`));
      ws.onclose = (e) => this.dispatchEvent(new CustomEvent('close', { detail: { code: e.code, reason: e.reason } }));
      ws.onmessage = (e) => {
        if (typeof e.data === 'string') {
          let msg;
          try {
            msg = JSON.parse(e.data);
          } catch {
            return;
          }
          if (msg.type === 'hello') {
            this.hello = msg;
            this.decoder = new StreamDecoder(msg);
            this.dispatchEvent(new CustomEvent('hello', { detail: msg }));
            resolve(this);
          } else if (msg.type === 'env') {
            this.dispatchEvent(new CustomEvent('env', { detail: msg }));
          }
          return;
        }
        if (!this.decoder) return;
        let frame;
        try {
          frame = this.decoder.decode(e.data);
        } catch {
          // A delta frame after a gap: the decoder waits for the next key frame.
          this.errors++;
          return;
        }
        if (!frame) return;
        if (frame.count === undefined) frame.count = frame.ids.length;
        this.frames++;
        this.dispatchEvent(new CustomEvent('frame', { detail: frame }));
      };
    });
  }

  /// Sends a JSON message; over the local rate the latest message of each type waits.
  send(obj) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    const now = performance.now();
    this.tokens = Math.min(MAX_SEND_PER_S, this.tokens + ((now - this.lastRefill) / 1000) * MAX_SEND_PER_S);
    this.lastRefill = now;
    if (this.tokens < 1) {
      this.pending.set(obj.type, obj);
      if (!this.flushTimer) this.flushTimer = setTimeout(() => this.flush(), 100);
      return false;
    }
    this.tokens -= 1;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  flush() {
    this.flushTimer = null;
    const msgs = [...this.pending.values()];
    this.pending.clear();
    for (const m of msgs) this.send(m);
  }

  close() {
    if (this.ws) this.ws.close();
  }
}
