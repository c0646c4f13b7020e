// SPDX-License-Identifier: Apache-2.0
// The collision world's props: binary PLY point clouds read back, only kinds stats.json lists.
import assert from 'node:assert/strict';
import test from 'node:test';

import { loadSolidProps, readPlyPoints, SOLID_PROPS } from '../src/drive/props.js';

function ply(points, { format = 'binary_little_endian 1.0' } = {}) {
  const header = `ply\nformat ${format}\ncomment test\nelement vertex ${points.length}\n` +
    'property float x\nproperty float y\nproperty float z\nproperty float yaw\nproperty uint owner\n' +
    'property uchar variant\nend_header\n';
  const stride = 21;
  const buf = new ArrayBuffer(header.length + points.length * stride);
  new Uint8Array(buf).set(new TextEncoder().encode(header));
  const v = new DataView(buf, header.length);
  points.forEach(([x, y], i) => {
    v.setFloat32(i * stride, x, true);
    v.setFloat32(i * stride + 4, y, true);
    v.setFloat32(i * stride + 8, 7, true);
    v.setFloat32(i * stride + 12, 1.5, true);
    v.setUint32(i * stride + 16, 99, true);
    v.setUint8(i * stride + 20, 3);
  });
  return buf;
}

test('props: a PLY point cloud reads back its x and y, whatever follows them', () => {
  const p = readPlyPoints(ply([[1.5, -2.25], [1000.5, 2000.25]]));
  assert.deepEqual([...p.x], [1.5, 1000.5]);
  assert.deepEqual([...p.y], [-2.25, 2000.25]);
});

test('props: not a PLY, ASCII, or truncated: an error naming the file', () => {
  assert.throws(() => readPlyPoints(new TextEncoder().encode('hello').buffer, 'a.ply'), /a\.ply: not a PLY/);
  assert.throws(() => readPlyPoints(ply([[0, 0]], { format: 'ascii 1.0' }), 'b.ply'), /b\.ply: expected binary/);
  const cut = ply([[0, 0], [1, 1]]).slice(0, -5);
  assert.throws(() => readPlyPoints(cut, 'c.ply'), /c\.ply: truncated/);
});

test('props: only solid kinds that stats.json lists are fetched, with their radii', async () => {
  const asked = [];
  const fetchFn = async (url) => {
    asked.push(url);
    return { ok: true, arrayBuffer: async () => ply([[10, 20], [30, 40]]) };
  };
  const stats = { dressing: { by_prop: { street_light: 2, bench: 5, hydrant: 0, street_tree: 2 } } };
  const props = await loadSolidProps(fetchFn, '/city/', stats);
  assert.deepEqual(asked.sort(), ['/city/points/props/street_light.ply', '/city/points/props/street_tree.ply']);
  assert.equal(props.length, 4);
  const lamp = props.find((p) => p.id === 'street_light:1');
  assert.deepEqual(lamp, { id: 'street_light:1', kind: 'street_light', x: 30, y: 40, radius_m: SOLID_PROPS.street_light });
});
