// SPDX-License-Identifier: Apache-2.0
// Decoder of `.cfrec` version 2 recordings (docs/recording.md): header, tables, frames, index.
// A frame decodes into the same typed-array shape as the live stream's decoder
// (src/live/decode.js), so agents.js draws either.

const MAGIC = 'CFRECORD';
const FRAME_MARKER = 0x4d415246; // "FRAM"
const INDEX_MARKER = 0x58444e49; // "INDX"
const END_MARKER = 0x444e4543; // "CEND"
const RECORD_BYTES = 20;
const HEADER_BYTES = 100;

/// Canonical kind order (traffic::EntityKind): what the rest of the viewer indexes by.
export const KIND_NAMES = ['car', 'van', 'bus', 'truck', 'player', 'pedestrian'];
export const KIND_PEDESTRIAN = 5;
export const KIND_PLAYER = 4;
/** Pedestrian state (behaviour) byte of one knocked down by a driven car (docs/recording.md). */
export const STATE_DOWN = 6;

function fail(offset, message) {
  throw new Error(`traffic.cfrec: byte ${offset}: ${message}`);
}

/// Unpacks `count` 2-bit states starting at byte `at` (lowest bits first).
function unpack2(view, at, count) {
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = (view.getUint8(at + (i >> 2)) >> (2 * (i & 3))) & 3;
  return out;
}

export class Recording {
  /// Parses the header, tables and index; frames are decoded on demand by frame(k).
  constructor(buffer) {
    this.buffer = buffer;
    const v = new DataView(buffer);
    this.view = v;
    if (buffer.byteLength < HEADER_BYTES + 16) fail(0, `file too short (${buffer.byteLength} bytes)`);
    const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 8));
    if (magic !== MAGIC) fail(0, `expected magic "${MAGIC}", found "${magic}"`);
    const version = v.getUint32(8, true);
    if (version !== 2) fail(8, `expected version 2, found ${version}`);
    this.tick_s = v.getFloat64(12, true);
    this.frame_interval_s = v.getFloat64(20, true);
    this.origin = [0, 1, 2].map((i) => v.getFloat64(28 + 8 * i, true));
    this.extent = [0, 1, 2].map((i) => v.getFloat64(52 + 8 * i, true));
    this.seed = v.getBigUint64(76, true);
    const K = v.getUint32(84, true);
    const S = v.getUint32(88, true);
    const C = v.getUint32(92, true);
    const P = v.getUint32(96, true);
    let pos = HEADER_BYTES;
    const names = [];
    for (let k = 0; k < K; k++) {
      const n = v.getUint8(pos);
      names.push(String.fromCharCode(...new Uint8Array(buffer, pos + 1, n)));
      pos += 1 + n;
    }
    // The file's kind byte -> canonical kind index (255: unknown kind, drawn as a car).
    this.kindMap = new Uint8Array(256).fill(0);
    names.forEach((name, i) => {
      const c = KIND_NAMES.indexOf(name);
      this.kindMap[i] = c >= 0 ? c : 0;
    });
    this.kindNames = names;
    this.signalLanes = new Uint32Array(S);
    for (let i = 0; i < S; i++, pos += 4) this.signalLanes[i] = v.getUint32(pos, true);
    this.crosswalkLanes = new Uint32Array(C);
    for (let i = 0; i < C; i++, pos += 4) this.crosswalkLanes[i] = v.getUint32(pos, true);
    this.parked = this.decodeRecords(pos, P);
    pos += P * RECORD_BYTES;
    this.framesStart = pos;

    // Index and trailer.
    const end = buffer.byteLength;
    const indexAt = Number(v.getBigUint64(end - 16, true));
    const F = v.getUint32(end - 8, true);
    if (v.getUint32(end - 4, true) !== END_MARKER) fail(end - 4, 'expected the end marker "CEND"');
    if (indexAt + 4 + 8 * F !== end - 16) fail(end - 16, `index of ${F} frames does not fit`);
    if (v.getUint32(indexAt, true) !== INDEX_MARKER) fail(indexAt, 'expected the index marker "INDX"');
    this.indexAt = indexAt;
    this.frameCount = F;
    this.offsets = new Float64Array(F);
    for (let k = 0; k < F; k++) this.offsets[k] = Number(v.getBigUint64(indexAt + 4 + 8 * k, true));
    this.time0 = F > 0 ? this.frameTime(0) : 0;
    this.time1 = F > 0 ? this.frameTime(F - 1) : 0;
  }

  frameTime(k) {
    return this.view.getFloat64(this.offsets[k] + 12, true);
  }

  /// Index of the last frame whose time is <= t (clamped to the first and last frames).
  frameAt(t) {
    let lo = 0;
    let hi = this.frameCount - 1;
    if (hi < 0) return -1;
    if (t <= this.frameTime(0)) return 0;
    if (t >= this.frameTime(hi)) return hi;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (this.frameTime(mid) <= t) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  decodeRecords(at, n) {
    const v = this.view;
    const [ox, oy, oz] = this.origin;
    const sx = this.extent[0] / 65535;
    const sy = this.extent[1] / 65535;
    const sz = this.extent[2] / 65535;
    const f = {
      count: n,
      ids: new Uint32Array(n),
      kinds: new Uint8Array(n),
      flags: new Uint8Array(n),
      heading: new Float32Array(n),
      x: new Float32Array(n),
      y: new Float32Array(n),
      z: new Float32Array(n),
      speed: new Float32Array(n),
      lod: new Uint8Array(n),
      state: new Uint8Array(n),
      variant: new Uint16Array(n),
    };
    for (let i = 0; i < n; i++, at += RECORD_BYTES) {
      f.ids[i] = v.getUint32(at, true);
      const kind = v.getUint8(at + 4);
      if (kind >= this.kindNames.length) fail(at + 4, `kind ${kind} outside the ${this.kindNames.length} names`);
      f.kinds[i] = this.kindMap[kind];
      f.flags[i] = v.getUint8(at + 5);
      f.heading[i] = (v.getUint16(at + 6, true) * 2 * Math.PI) / 65536;
      f.x[i] = ox + v.getUint16(at + 8, true) * sx;
      f.y[i] = oy + v.getUint16(at + 10, true) * sy;
      f.z[i] = oz + v.getUint16(at + 12, true) * sz;
      f.speed[i] = v.getUint16(at + 14, true) / 100;
      f.lod[i] = v.getUint8(at + 16);
      f.state[i] = v.getUint8(at + 17);
      f.variant[i] = v.getUint16(at + 18, true);
    }
    return f;
  }

  /// Frame k as typed arrays (the live decoder's shape) plus tick, time_s, lights, walks.
  frame(k) {
    const v = this.view;
    const at = this.offsets[k];
    if (v.getUint32(at, true) !== FRAME_MARKER) fail(at, 'expected a frame marker "FRAM"');
    const tick = Number(v.getBigUint64(at + 4, true));
    const time_s = v.getFloat64(at + 12, true);
    const n = v.getUint32(at + 20, true);
    const f = this.decodeRecords(at + 24, n);
    f.tick = tick;
    f.time_s = time_s;
    let bits = at + 24 + RECORD_BYTES * n;
    f.lights = unpack2(v, bits, this.signalLanes.length);
    bits += Math.ceil(this.signalLanes.length / 4);
    f.walks = unpack2(v, bits, this.crosswalkLanes.length);
    return f;
  }
}
