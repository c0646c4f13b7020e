// SPDX-License-Identifier: Apache-2.0
// The tiles' frame: content in city.glb's coordinates, turned z-up by the tiles renderer and
// placed on the globe by the root transform, lands back where city.glb puts it.
import assert from 'node:assert/strict';
import { test } from 'node:test';

let mod = null;
let THREE = null;
try {
  THREE = await import('three');
  mod = await import('../src/tiles.js');
} catch {
  // npm ci not run: skipped below.
}

/// ENU -> ECEF at (lon, lat) on WGS84, column-major, as a tileset root transform.
function enuToEcef(lonDeg, latDeg, h) {
  const lon = (lonDeg * Math.PI) / 180;
  const lat = (latDeg * Math.PI) / 180;
  const a = 6378137;
  const e2 = (1 / 298.257223563) * (2 - 1 / 298.257223563);
  const n = a / Math.sqrt(1 - e2 * Math.sin(lat) ** 2);
  const p = [(n + h) * Math.cos(lat) * Math.cos(lon), (n + h) * Math.cos(lat) * Math.sin(lon), (n * (1 - e2) + h) * Math.sin(lat)];
  const east = [-Math.sin(lon), Math.cos(lon), 0];
  const north = [-Math.sin(lat) * Math.cos(lon), -Math.sin(lat) * Math.sin(lon), Math.cos(lat)];
  const up = [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)];
  return [...east, 0, ...north, 0, ...up, 0, ...p, 1];
}

test('a content point goes through the renderer and back to city.glb coordinates', { skip: !mod }, () => {
  for (const [lon, lat] of [[0, 0], [-73.99, 40.73], [1.52, 42.51], [151.2, -33.9]]) {
    const root = enuToEcef(lon, lat, 35);
    // What the renderer does to a content point: y-up -> z-up, then the root transform.
    const renderer = new THREE.Matrix4().fromArray(root).multiply(new THREE.Matrix4().makeRotationX(Math.PI / 2));
    const world = mod.viewerFromTileset(root).multiply(renderer);
    // City (x east, y north, z up) = (812, 1533, 47) is glb (812, 47, -1533).
    const p = new THREE.Vector3(812, 47, -1533).applyMatrix4(world);
    assert.ok(p.distanceTo(new THREE.Vector3(812, 47, -1533)) < 1e-6, `at ${lon}, ${lat}: ${p.toArray()}`);
  }
});

test('no root transform: only the z-up turn is undone', { skip: !mod }, () => {
  const m = mod.viewerFromTileset(undefined);
  const p = new THREE.Vector3(1, 2, 3).applyMatrix4(m); // ENU (1, 2, 3) -> three (1, 3, -2)
  assert.deepEqual(p.toArray().map((v) => Math.round(v * 1e9) / 1e9), [1, 3, -2]);
});

test('the root box in the viewer frame', { skip: !mod }, () => {
  const b = mod.rootBoxToViewer([1050, 1050, 93, 1200, 0, 0, 0, 1100, 0, 0, 0, 100]);
  assert.deepEqual(b.min.toArray(), [-150, -7, -2150]);
  assert.deepEqual(b.max.toArray(), [2250, 193, 50]);
  assert.equal(mod.rootBoxToViewer([1, 2, 3]), null);
});
