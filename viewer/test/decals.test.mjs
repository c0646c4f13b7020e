// SPDX-License-Identifier: Apache-2.0
// Decals (materials "decal.<kind>") drawn over their surfaces: transparent, no depth writes,
// pulled toward the camera, in a fixed order by kind.
import assert from 'node:assert/strict';
import test from 'node:test';

import * as THREE from 'three';

import { DECAL_ORDER, layDecal } from '../src/city.js';

test('decals: blended over the surface without z-fighting, in a fixed order by kind', () => {
  const meshes = Object.keys(DECAL_ORDER).map((name) => {
    const m = new THREE.MeshStandardMaterial({ name });
    return new THREE.Mesh(new THREE.PlaneGeometry(1, 1), m);
  });
  for (const mesh of meshes) layDecal(mesh);
  for (const mesh of meshes) {
    const m = mesh.material;
    assert.equal(m.transparent, true, m.name);
    assert.equal(m.depthWrite, false, m.name);
    assert.equal(m.depthTest, true, m.name);
    assert.equal(m.polygonOffset, true, m.name);
    assert.ok(m.polygonOffsetFactor < 0 && m.polygonOffsetUnits < 0, `${m.name} pulled toward the camera`);
    assert.ok(mesh.renderOrder > 0, m.name);
  }
  const orders = meshes.map((mesh) => mesh.renderOrder);
  assert.deepEqual(orders, [...orders].sort((a, b) => a - b));
  assert.equal(new Set(orders).size, orders.length, 'each kind its own order');
});
