// SPDX-License-Identifier: Apache-2.0
// Interiors behind the window glass: the room hash that lights a room and picks its type is the
// documented one (docs/materials.md), every room type is used, and the shader takes the same bits.
import assert from 'node:assert/strict';
import { test } from 'node:test';

let mod = null;
try {
  const interiors = await import('../src/interiors.js');
  const windows = await import('../src/windows.js');
  mod = { ...interiors, roomHash: windows.roomHash };
} catch {
  // three.js not installed (npm ci not run): skipped below.
}

// The documented hash, written out again as an engine would.
function reference(b, f, r) {
  let h = (Math.imul(b, 73856093) ^ Math.imul(f, 19349663) ^ Math.imul(r, 83492791)) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h = (h ^ (h >>> 15)) >>> 0;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

test('lit flag and room type come from the documented hash', { skip: !mod }, () => {
  for (const [b, f, r] of [[0, 0, 0], [272, 0, 2], [275, 3, 41], [9999, 40, 65535]]) {
    const h = reference(b, f, r);
    assert.equal(mod.roomHashBits(b, f, r), h);
    assert.equal(mod.roomHash(b, f, r), (h & 0xffff) / 65535);
    assert.equal(mod.roomType(b, f, r), ((h >>> 16) & 0xff) % mod.ROOM_TYPES);
  }
});

test('every room type is used, none dominates', { skip: !mod }, () => {
  const counts = new Array(mod.ROOM_TYPES).fill(0);
  let n = 0;
  for (let b = 0; b < 40; b++) {
    for (let f = 0; f < 10; f++) {
      for (let r = 0; r < 12; r++, n++) counts[mod.roomType(b, f, r)]++;
    }
  }
  for (const c of counts) assert.ok(c > (0.5 * n) / mod.ROOM_TYPES && c < (1.5 * n) / mod.ROOM_TYPES, `counts ${counts}`);
});

test('the shader takes bits 16-23 modulo the room types; no atlas without a DOM', { skip: !mod }, () => {
  assert.match(mod.INTERIOR_VERTEX_BODY, new RegExp(`\\(cfHashBits >> 16u\\) & 0xffu\\) % ${mod.ROOM_TYPES}u`));
  assert.match(mod.INTERIOR_FRAGMENT_DECL, /vec3 cfInterior\(\)/);
  assert.equal(mod.createInteriorAtlas(), null);
});
