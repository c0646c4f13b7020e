// SPDX-License-Identifier: Apache-2.0
// The browser's live stream decoder against frames written by the C++ encoder
// (tests/traffic/stream_test.cpp, StreamFixture: stream_frames.bin, the hello, and the C++
// decoder's output as JSON). Run: node --test viewer/test/
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { StreamDecoder } from '../src/live/decode.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const hello = JSON.parse(readFileSync(join(dir, 'stream_hello.json'), 'utf8'));
const expected = JSON.parse(readFileSync(join(dir, 'stream_expected.json'), 'utf8'));

function readFrames() {
  const buf = readFileSync(join(dir, 'stream_frames.bin'));
  const frames = [];
  for (let at = 0; at < buf.length; ) {
    const n = buf.readUInt32LE(at);
    // A fresh ArrayBuffer per frame, as a WebSocket delivers it.
    const ab = new ArrayBuffer(n);
    new Uint8Array(ab).set(buf.subarray(at + 4, at + 4 + n));
    frames.push(ab);
    at += 4 + n;
  }
  return frames;
}
const frames = readFrames();

// Values are float32 in JavaScript, doubles in C++: equal to float32 rounding.
function near(got, want, what) {
  const tol = Math.max(1e-6, Math.abs(want) * 2 ** -23);
  assert.ok(Math.abs(got - want) <= tol, `${what}: got ${got}, want ${want}`);
}

test('decodes every key and delta frame as the C++ decoder does', () => {
  assert.equal(frames.length, expected.length);
  assert.equal(frames.length, 12);
  const dec = new StreamDecoder(hello);
  for (let t = 0; t < frames.length; ++t) {
    const f = dec.decode(frames[t]);
    const e = expected[t];
    assert.equal(frames[t].byteLength, e.bytes);
    assert.equal(f.key, e.key, `frame ${t} key`);
    assert.equal(f.seq, e.seq);
    assert.equal(f.tick, e.tick);
    assert.equal(f.time_s, e.time_s);
    assert.equal(f.ticks_per_s, e.ticks_per_s);
    assert.equal(f.count, e.ids.length, `frame ${t} count`);
    assert.ok(f.ids instanceof Uint32Array && f.x instanceof Float32Array);
    for (const k of ['ids', 'kinds', 'lod', 'state', 'variant', 'flags', 'lights', 'walks']) {
      assert.deepEqual(Array.from(f[k]), e[k], `frame ${t} ${k}`);
    }
    for (const k of ['x', 'y', 'z', 'heading', 'speed']) {
      assert.equal(f[k].length, f.count);
      for (let i = 0; i < f.count; ++i) near(f[k][i], e[k][i], `frame ${t} ${k}[${i}]`);
    }
  }
  assert.deepEqual(
    expected.map((e) => e.key),
    [true, false, false, false, false, true, false, false, false, false, true, false],
  );
});

test('a lost delta frame is a missing frame until the next key frame', () => {
  const dec = new StreamDecoder(hello);
  assert.throws(() => dec.decode(frames[1]), /byte 6: missing frame: delta frame 1 needs frame 0/);
  dec.decode(frames[0]);
  dec.decode(frames[1]);
  assert.throws(() => dec.decode(frames[3]), /missing frame: delta frame 3 needs frame 2, last decoded 1/);
  assert.throws(() => dec.decode(frames[4]), /missing frame/);
  const k = dec.decode(frames[5]);
  assert.equal(k.key, true);
  const d = dec.decode(frames[6]);
  assert.deepEqual(Array.from(d.ids), expected[6].ids);
});

test('truncated, padded and corrupted messages throw with a byte offset', () => {
  for (const m of [0, 1]) {
    const whole = new Uint8Array(frames[m]);
    for (let len = 0; len < whole.length; ++len) {
      const dec = new StreamDecoder(hello);
      if (m > 0) dec.decode(frames[0]);
      assert.throws(() => dec.decode(whole.slice(0, len)), /^Error: live stream frame: byte \d+: /);
      // The failed frame left the decoder as it was.
      assert.equal(dec.decode(frames[m]).seq, m);
    }
  }
  const padded = new Uint8Array(frames[0].byteLength + 1);
  padded.set(new Uint8Array(frames[0]));
  assert.throws(() => new StreamDecoder(hello).decode(padded), /expected the end of the frame/);
  const magic = new Uint8Array(frames[0]).slice();
  magic[0] = 0;
  assert.throws(() => new StreamDecoder(hello).decode(magic), /byte 0: expected the magic "CFLS"/);
  // Any single-byte corruption: a frame or an Error, never another exception.
  const base = new Uint8Array(frames[1]);
  for (let at = 0; at < base.length; ++at) {
    const bad = base.slice();
    bad[at] ^= 0xff;
    const dec = new StreamDecoder(hello);
    dec.decode(frames[0]);
    try {
      dec.decode(bad);
    } catch (e) {
      assert.ok(e instanceof Error && /^live stream frame: byte \d+: /.test(e.message), e.message);
    }
  }
});

test('lane counts must match the hello', () => {
  const dec = new StreamDecoder({ ...hello, signal_lanes: [1, 2] });
  assert.throws(() => dec.decode(frames[0]), /byte 34: expected 2 light states/);
});
