// SPDX-License-Identifier: Apache-2.0
// Decoder of the live stream frames of `cityforge serve --live` (traffic::StreamEncoder,
// src/traffic/stream.cpp). Byte layout in docs/live.md ("Frame format"); keep the three in step.
// No dependencies; typed arrays throughout so 20k agents decode without per-agent objects.

const MAGIC = [0x43, 0x46, 0x4c, 0x53]; // "CFLS"
const VERSION = 1;
const FRAME_KEY = 1;
const FRAME_LIGHTS = 2;
const FRAME_WALKS = 4;
const HEADING_STEPS = 1024;
const MAX_STEP = 2 ** 30 - 1;
const MIN_STEP = -(2 ** 30);
const PED_CLASS = 2 ** 32;
const MAX_KEY = 2 ** 33 - 1;
const KIND_COUNT = 6;
const KIND_PEDESTRIAN = 5;
const OP_NAMES = ['skip', 'update', 'remove', 'insert'];

class Reader {
  constructor(bytes) {
    this.b = bytes;
    this.pos = 0;
  }
  fail(at, what) {
    throw new Error(`live stream frame: byte ${at}: ${what}`);
  }
  need(n, what) {
    if (this.b.length - this.pos < n) {
      this.fail(this.pos, `expected ${what} (${n} bytes), message ends after ${this.b.length - this.pos}`);
    }
  }
  u8(what) {
    this.need(1, what);
    return this.b[this.pos++];
  }
  le(n, what) {
    this.need(n, what);
    let v = 0;
    for (let i = n - 1; i >= 0; --i) v = v * 256 + this.b[this.pos + i];
    this.pos += n;
    return v;
  }
  // At most 5 bytes (35 bits): exact in a double.
  varint(what) {
    const at = this.pos;
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 5; ++i) {
      if (this.pos >= this.b.length) this.need(1, what);
      const byte = this.b[this.pos++];
      v += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return v;
      scale *= 128;
    }
    this.fail(at, `expected ${what} as a varint of at most 5 bytes`);
  }
  svarint(what) {
    const z = this.varint(what);
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }
}

const FIELDS = ['key', 'x', 'y', 'z', 'dx', 'dy', 'dz', 'heading', 'speed', 'variant', 'kind', 'flags', 'lod', 'state'];

// Structure of arrays holding the quantised agents of one frame (the decoder's state between
// frames). x, y, z in steps; dx, dy, dz the step from the frame before (the prediction).
class Agents {
  constructor(capacity) {
    this.n = 0;
    this.key = new Float64Array(capacity);
    this.x = new Int32Array(capacity);
    this.y = new Int32Array(capacity);
    this.z = new Int32Array(capacity);
    this.dx = new Int32Array(capacity);
    this.dy = new Int32Array(capacity);
    this.dz = new Int32Array(capacity);
    this.heading = new Uint16Array(capacity);
    this.speed = new Uint16Array(capacity);
    this.variant = new Uint16Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.lod = new Uint8Array(capacity);
    this.state = new Uint8Array(capacity);
  }
  // Appends a copy of agent i of `src` and returns the new index.
  copyFrom(src, i) {
    const j = this.n++;
    this.key[j] = src.key[i];
    this.x[j] = src.x[i];
    this.y[j] = src.y[i];
    this.z[j] = src.z[i];
    this.dx[j] = src.dx[i];
    this.dy[j] = src.dy[i];
    this.dz[j] = src.dz[i];
    this.heading[j] = src.heading[i];
    this.speed[j] = src.speed[i];
    this.variant[j] = src.variant[i];
    this.kind[j] = src.kind[i];
    this.flags[j] = src.flags[i];
    this.lod[j] = src.lod[i];
    this.state[j] = src.state[i];
    return j;
  }
  // Copies `count` agents from `src` starting at i, each moved by its step (the prediction).
  skipFrom(r, src, i, count) {
    const j = this.n;
    if (count < 64) {
      for (let k = 0; k < count; ++k) this.copyFrom(src, i + k);
    } else {
      for (const f of FIELDS) this[f].set(src[f].subarray(i, i + count), j);
      this.n += count;
    }
    const { x, y, z, dx, dy, dz } = this;
    for (let k = j; k < j + count; ++k) {
      const px = x[k] + dx[k];
      const py = y[k] + dy[k];
      const pz = z[k] + dz[k];
      if (px < MIN_STEP || px > MAX_STEP || py < MIN_STEP || py > MAX_STEP || pz < MIN_STEP || pz > MAX_STEP) {
        r.fail(r.pos, `expected the predicted position of a skipped agent within +-2^30 steps, got ${px}, ${py}, ${pz}`);
      }
      x[k] = px;
      y[k] = py;
      z[k] = pz;
    }
  }
}

function checkStep(r, at, q, what) {
  if (q < MIN_STEP || q > MAX_STEP) r.fail(at, `expected ${what} within +-2^30 steps, got ${q}`);
  return q;
}

function checkKind(r, at, kind, key) {
  if (kind >= KIND_COUNT) r.fail(at, `expected a kind 0..5, got ${kind}`);
  if ((kind === KIND_PEDESTRIAN) !== key >= PED_CLASS) {
    r.fail(at, `kind ${kind} does not match its key's class (${key >= PED_CLASS ? 'pedestrian' : 'vehicle'})`);
  }
}

// A full record into slot j of `a`; `before` is the slot of the agent before it, or -1.
function readFull(r, a, j, before) {
  const at = r.pos;
  const gap = r.varint('key gap');
  const key = before >= 0 ? a.key[before] + 1 + gap : gap;
  if (key > MAX_KEY) r.fail(at, `expected a key below 2^33 (class << 32 | id), got ${key}`);
  a.key[j] = key;
  const attrAt = r.pos;
  const attr = r.u8('attribute byte');
  const kind = attr & 7;
  checkKind(r, attrAt, kind, key);
  a.kind[j] = kind;
  a.lod[j] = (attr >> 3) & 3;
  a.flags[j] = attr & 0x20 ? r.u8('flags') : 0;
  a.state[j] = attr & 0x40 ? r.u8('state') : 0;
  const varAt = r.pos;
  const variant = attr & 0x80 ? r.varint('variant') : 0;
  if (variant > 0xffff) r.fail(varAt, 'expected a variant <= 65535');
  a.variant[j] = variant;
  const posAt = r.pos;
  const x = r.svarint('x step') + (before >= 0 ? a.x[before] : 0);
  const y = r.svarint('y step') + (before >= 0 ? a.y[before] : 0);
  const z = r.svarint('z step') + (before >= 0 ? a.z[before] : 0);
  a.x[j] = checkStep(r, posAt, x, 'x');
  a.y[j] = checkStep(r, posAt, y, 'y');
  a.z[j] = checkStep(r, posAt, z, 'z');
  a.dx[j] = 0;
  a.dy[j] = 0;
  a.dz[j] = 0;
  const hAt = r.pos;
  const heading = r.varint('heading');
  if (heading >= HEADING_STEPS) r.fail(hAt, `expected a heading below 1024, got ${heading}`);
  a.heading[j] = heading;
  const sAt = r.pos;
  const speed = r.varint('speed');
  if (speed > 0xffff) r.fail(sAt, 'expected a speed <= 65535 (0.1 m/s)');
  a.speed[j] = speed;
}

// Applies an update record to slot j (a copy of the agent's previous state).
function readUpdate(r, a, j) {
  const mask = r.u8('update mask');
  let at = r.pos;
  let d = a.dx[j] + (mask & 1 ? r.svarint('x') : 0);
  a.x[j] = checkStep(r, at, a.x[j] + d, 'x');
  a.dx[j] = d;
  at = r.pos;
  d = a.dy[j] + (mask & 2 ? r.svarint('y') : 0);
  a.y[j] = checkStep(r, at, a.y[j] + d, 'y');
  a.dy[j] = d;
  at = r.pos;
  d = a.dz[j] + (mask & 4 ? r.svarint('z') : 0);
  a.z[j] = checkStep(r, at, a.z[j] + d, 'z');
  a.dz[j] = d;
  if (mask & 0x08) {
    const at = r.pos;
    const d = r.svarint('heading delta');
    if (d < -512 || d >= 512) r.fail(at, `expected a heading delta in -512..511, got ${d}`);
    a.heading[j] = (a.heading[j] + d + HEADING_STEPS) % HEADING_STEPS;
  }
  if (mask & 0x10) {
    const at = r.pos;
    const s = a.speed[j] + r.svarint('speed delta');
    if (s < 0 || s > 0xffff) r.fail(at, `expected a speed in 0..65535 after the delta, got ${s}`);
    a.speed[j] = s;
  }
  if (mask & 0x20) a.flags[j] = r.u8('flags');
  if (mask & 0x40) {
    const at = r.pos;
    const v = r.varint('lod and state');
    if (v >= 1024) r.fail(at, 'expected a state <= 255');
    a.lod[j] = v & 3;
    a.state[j] = Math.floor(v / 4);
  }
  if (mask & 0x80) {
    const at = r.pos;
    const kind = r.u8('kind');
    checkKind(r, at, kind, a.key[j]);
    a.kind[j] = kind;
    const vAt = r.pos;
    const v = r.varint('variant');
    if (v > 0xffff) r.fail(vAt, 'expected a variant <= 65535');
    a.variant[j] = v;
  }
}

function readDelta(r, prev, count, out) {
  let i = 0;
  while (i < prev.n || out.n < count) {
    const at = r.pos;
    const op = r.varint('an op (count << 2 | code)');
    const code = op % 4;
    const n = (op - code) / 4;
    const name = OP_NAMES[code];
    if (n === 0) r.fail(at, `expected a ${name} count >= 1`);
    if (code !== 3 && n > prev.n - i) {
      r.fail(at, `${name} of ${n} agents, but only ${prev.n - i} previous agents are left`);
    }
    if (code !== 2 && n > count - out.n) {
      r.fail(at, `${name} of ${n} agents would exceed the frame's agent count ${count}`);
    }
    if (code === 2) {
      i += n;
      continue;
    }
    if (code === 0) {
      out.skipFrom(r, prev, i, n);
      i += n;
      continue;
    }
    for (let k = 0; k < n; ++k) {
      if (code === 1) {
        readUpdate(r, out, out.copyFrom(prev, i++));
      } else {
        const aAt = r.pos;
        const j = out.n++;
        readFull(r, out, j, j > 0 ? j - 1 : -1);
        if (i < prev.n && out.key[j] >= prev.key[i]) {
          r.fail(aAt, `inserted key ${out.key[j]} is not below the next previous agent's key ${prev.key[i]}`);
        }
      }
    }
  }
}

function readStates(r, count, what) {
  const bytes = (count + 3) >> 2;
  r.need(bytes, what);
  const out = new Uint8Array(count);
  for (let i = 0; i < count; ++i) out[i] = (r.b[r.pos + (i >> 2)] >> (2 * (i & 3))) & 3;
  r.pos += bytes;
  return out;
}

/// Decodes the frames of one live stream in order. A delta frame needs the frame before it;
/// otherwise decode throws "missing frame" and the caller waits for the next key frame.
export class StreamDecoder {
  /// `hello`: the parsed hello message (origin, step_m, key_every, signal_lanes,
  /// crosswalk_lanes).
  constructor(hello) {
    if (!hello || !Array.isArray(hello.origin) || hello.origin.length !== 3 || !(hello.step_m > 0)) {
      throw new Error('live stream: hello needs origin [x, y, z] and step_m > 0');
    }
    this.origin = hello.origin.map(Number);
    this.step = Number(hello.step_m);
    this.signalLanes = hello.signal_lanes ? hello.signal_lanes.length : null;
    this.crosswalkLanes = hello.crosswalk_lanes ? hello.crosswalk_lanes.length : null;
    this.prev = null;
    this.seq = 0;
    this.lights = new Uint8Array(0);
    this.walks = new Uint8Array(0);
  }

  /// Decodes one binary message (ArrayBuffer, or a Uint8Array view). Returns typed arrays of
  /// the frame's agents in key order (vehicles by id, then pedestrians by id), dequantised.
  /// Throws Error naming the byte offset on bad input; the decoder's state is then unchanged.
  decode(buffer) {
    const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
    const r = new Reader(bytes);
    // 1. Header.
    r.need(4, 'the magic "CFLS"');
    for (let i = 0; i < 4; ++i) if (bytes[i] !== MAGIC[i]) r.fail(0, 'expected the magic "CFLS"');
    r.pos = 4;
    const version = r.u8('the version');
    if (version !== VERSION) r.fail(4, `expected version ${VERSION}, got ${version}`);
    const fflags = r.u8('the frame flags');
    if (fflags & ~7) r.fail(5, `expected frame flags with bits 0-2 only, got ${fflags}`);
    const key = (fflags & FRAME_KEY) !== 0;
    if (key && (fflags & 6) !== 6) r.fail(5, 'expected a key frame to carry light and walk states (flags 7)');
    const seq = r.le(4, 'seq');
    const tick = r.le(8, 'tick');
    r.need(12, 'time_s and ticks_per_s');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const time_s = view.getFloat64(r.pos, true);
    const ticks_per_s = view.getFloat32(r.pos + 8, true);
    r.pos += 12;
    const count = r.le(4, 'agent count');
    const nLights = r.le(4, 'light count');
    const nWalks = r.le(4, 'walk count');
    if (!key) {
      if (this.prev === null || seq !== (this.seq + 1) % 2 ** 32) {
        const last = this.prev === null ? 'none decoded' : `last decoded ${this.seq}`;
        throw new Error(`live stream frame: byte 6: missing frame: delta frame ${seq} needs frame ${(seq + 2 ** 32 - 1) % 2 ** 32}, ${last}; wait for the next key frame`);
      }
      if (!(fflags & FRAME_LIGHTS) && nLights !== this.lights.length) {
        r.fail(34, `light count ${nLights} differs from the previous frame's ${this.lights.length} and no states follow`);
      }
      if (!(fflags & FRAME_WALKS) && nWalks !== this.walks.length) {
        r.fail(38, `walk count ${nWalks} differs from the previous frame's ${this.walks.length} and no states follow`);
      }
    }
    if (this.signalLanes !== null && nLights !== this.signalLanes) {
      r.fail(34, `expected ${this.signalLanes} light states (the hello's signal lanes), got ${nLights}`);
    }
    if (this.crosswalkLanes !== null && nWalks !== this.crosswalkLanes) {
      r.fail(38, `expected ${this.crosswalkLanes} walk states (the hello's crosswalk lanes), got ${nWalks}`);
    }

    // 2. Agents. A full record is at least 7 bytes; a skipped agent costs none.
    const most = Math.floor((bytes.length - r.pos) / 7) + (key ? 0 : this.prev.n);
    if (count > most) r.fail(30, `agent count ${count} is more than the message can hold (${most})`);
    const agents = new Agents(count);
    if (key) {
      for (let j = 0; j < count; ++j) readFull(r, agents, agents.n++, j - 1);
    } else {
      readDelta(r, this.prev, count, agents);
    }

    // 3. Light and walk states.
    const lights = fflags & FRAME_LIGHTS ? readStates(r, nLights, 'light states') : this.lights;
    const walks = fflags & FRAME_WALKS ? readStates(r, nWalks, 'walk states') : this.walks;
    if (r.pos !== bytes.length) r.fail(r.pos, `expected the end of the frame, ${bytes.length - r.pos} bytes are left`);

    // 4. Keep the state, hand out dequantised typed arrays.
    this.prev = agents;
    this.seq = seq;
    this.lights = lights;
    this.walks = walks;
    return this.#frame(agents, { key, seq, tick, time_s, ticks_per_s, lights, walks });
  }

  #frame(a, head) {
    const n = a.n;
    const ids = new Uint32Array(n);
    const x = new Float32Array(n);
    const y = new Float32Array(n);
    const z = new Float32Array(n);
    const heading = new Float32Array(n);
    const speed = new Float32Array(n);
    const [ox, oy, oz] = this.origin;
    const step = this.step;
    const hs = (2 * Math.PI) / HEADING_STEPS;
    const { key, x: qx, y: qy, z: qz } = a;
    for (let i = 0; i < n; ++i) {
      ids[i] = key[i] >= PED_CLASS ? key[i] - PED_CLASS : key[i];
      x[i] = ox + qx[i] * step;
      y[i] = oy + qy[i] * step;
      z[i] = oz + qz[i] * step;
      heading[i] = a.heading[i] * hs;
      speed[i] = a.speed[i] / 10;
    }
    return {
      key: head.key,
      seq: head.seq,
      tick: head.tick,
      time_s: head.time_s,
      ticks_per_s: head.ticks_per_s,
      count: n,
      ids,
      kinds: a.kind.slice(0, n),
      x,
      y,
      z,
      heading,
      speed,
      lod: a.lod.slice(0, n),
      state: a.state.slice(0, n),
      variant: a.variant.slice(0, n),
      flags: a.flags.slice(0, n),
      lights: head.lights.slice(),
      walks: head.walks.slice(),
    };
  }
}
