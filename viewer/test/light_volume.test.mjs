// SPDX-License-Identifier: Apache-2.0
// The island's light volume in the browser: the PNG reader undoes every row filter exactly,
// and the volume `cityforge island --seed 3` wrote (fixtures/island_light.png with the
// "light_volume" member of its island_tiles.json) reads back with the layout it names: open
// sky over the island, the bounce below, darker light at the foot of its cliffs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import { decodePng, figureLight, lightVolume } from '../src/light_volume.js';

const here = path.dirname(fileURLToPath(import.meta.url));

function chunk(type, body) {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  body.copy(out, 8);
  out.writeUInt32BE(zlib.crc32 ? zlib.crc32(out.subarray(4, 8 + body.length)) : 0, 8 + body.length);
  return out;
}

// A PNG whose row y uses filter y % 5 (none, sub, up, average, Paeth), filtered here.
function pngWithEveryFilter(width, height, pixels) {
  const stride = width * 4;
  const raw = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const f = y % 5;
    raw[y * (stride + 1)] = f;
    for (let i = 0; i < stride; i++) {
      const x = pixels[y * stride + i];
      const a = i >= 4 ? pixels[y * stride + i - 4] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i] : 0;
      const c = y > 0 && i >= 4 ? pixels[(y - 1) * stride + i - 4] : 0;
      const e = a + b - c;
      const paeth = Math.abs(e - a) <= Math.abs(e - b) && Math.abs(e - a) <= Math.abs(e - c) ? a : Math.abs(e - b) <= Math.abs(e - c) ? b : c;
      const p = [0, a, b, (a + b) >> 1, paeth][f];
      raw[y * (stride + 1) + 1 + i] = (x - p) & 255;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test('every row filter is undone exactly', async () => {
  const width = 7;
  const height = 10;
  const pixels = new Uint8Array(width * height * 4);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 37 + ((i * i) >> 3)) & 255;
  const image = await decodePng(pngWithEveryFilter(width, height, pixels));
  assert.equal(image.width, width);
  assert.equal(image.height, height);
  assert.deepEqual(image.data, pixels);
  await assert.rejects(decodePng(new Uint8Array([1, 2, 3])), /not a PNG/);
});

test("the island's volume reads back with the layout island_tiles.json names", async () => {
  const meta = JSON.parse(fs.readFileSync(path.join(here, 'fixtures', 'island_light.json'), 'utf8'));
  const image = await decodePng(fs.readFileSync(path.join(here, 'fixtures', meta.file)));
  const volume = lightVolume(meta, image);
  const [nx, ny, nz] = meta.size;
  assert.deepEqual(volume.size, [nx, ny, nz]);
  const row = image.width * 4;
  // The top slice is above everything: the whole sky above (+z 255), the bounce below.
  for (let iy = 0; iy < ny; iy++) {
    for (let ix = 0; ix < nx; ix++) {
      const i = iy * row + ((nz - 1) * nx + ix) * 4;
      assert.equal(image.data[i + 2], 255, `+z of top voxel ${ix}, ${iy}`);
      assert.ok(Math.abs(image.data[row * ny + i + 2] - Math.round(255 * meta.ground_albedo)) <= 1, `-z of top voxel ${ix}, ${iy}`);
    }
  }
  const [ox, oy, oz] = meta.origin;
  const top = [ox + ((nx - 1) * meta.step[0]) / 2, oy + ((ny - 1) * meta.step[1]) / 2, oz + (nz - 1) * meta.step[2]];
  assert.ok(Math.abs(volume.lightAt(top, [0, 0, 1]) - 1) < 1e-9);
  assert.ok(Math.abs(figureLight(volume, top) - 1) < 1e-9);
  // Somewhere near the ground the light is lower: the island shades itself.
  let darkest = 1;
  for (let iz = 0; iz < nz; iz++) {
    for (let iy = 0; iy < ny; iy++) {
      for (let ix = 0; ix < nx; ix++) {
        const p = [ox + ix * meta.step[0], oy + iy * meta.step[1], oz + iz * meta.step[2]];
        const l = figureLight(volume, p);
        assert.ok(l >= 0 && l <= 1, `light ${l} at ${p}`);
        darkest = Math.min(darkest, l);
      }
    }
  }
  assert.ok(darkest < 0.6, `the darkest figure light is ${darkest}`);
  assert.throws(() => lightVolume({ ...meta, size: [nx + 1, ny, nz] }, image), /expected/);
});
