// SPDX-License-Identifier: Apache-2.0
// Loads a meshopt-compressed tile glb and its uncompressed twin (`export.tile_compression:
// "none"`) with three.js's GLTFLoader + MeshoptDecoder, as the viewer would, and compares what
// they draw: meshes, vertex attributes, instance matrices bit for bit; triangles up to the
// rotation the TRIANGLES codec may apply (same corners, same winding).
// Usage: node tools/tiles-check/meshopt_compare.mjs COMPRESSED.glb PLAIN.glb
// Needs three in viewer/node_modules (`make viewer`). Exit 0: same; 1: differences; 2: usage.
import { readFile } from 'node:fs/promises';

const three = new URL('../../viewer/node_modules/three/examples/jsm/', import.meta.url);
const { GLTFLoader } = await import(new URL('loaders/GLTFLoader.js', three));
const { MeshoptDecoder } = await import(new URL('libs/meshopt_decoder.module.js', three));

async function load(file) {
  const b = await readFile(file);
  const loader = new GLTFLoader();
  loader.setMeshoptDecoder(MeshoptDecoder);
  return loader.parseAsync(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength), '');
}

function meshes(gltf) {
  const out = [];
  gltf.scene.traverse((o) => {
    if (!o.isMesh) return;
    const g = o.geometry;
    const e = { name: o.name, vertices: g.attributes.position.count, arrays: {} };
    for (const [k, a] of Object.entries(g.attributes)) e.arrays[k] = a.array;
    if (g.index) e.arrays.index = g.index.array;
    if (o.isInstancedMesh) {
      e.instances = o.count;
      e.arrays.instanceMatrix = o.instanceMatrix.array;
    }
    out.push(e);
  });
  return out;
}

/// The triangle at t with its smallest corner first.
function canonical(a, t) {
  const r = [a[t], a[t + 1], a[t + 2]];
  const m = r.indexOf(Math.min(...r));
  return `${r[m]},${r[(m + 1) % 3]},${r[(m + 2) % 3]}`;
}

async function main([packedFile, plainFile]) {
  if (!plainFile) {
    console.error('usage: node meshopt_compare.mjs COMPRESSED.glb PLAIN.glb');
    return 2;
  }
  const [a, b] = (await Promise.all([load(packedFile), load(plainFile)])).map(meshes);
  let bad = a.length === b.length ? 0 : 1;
  let vertices = 0;
  let instances = 0;
  let rotated = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    vertices += x.vertices;
    instances += x.instances ?? 0;
    if (x.name !== y.name || x.vertices !== y.vertices) {
      console.log(`mesh ${i}: ${x.name} (${x.vertices}) vs ${y.name} (${y.vertices})`);
      bad++;
      continue;
    }
    for (const [k, q] of Object.entries(y.arrays)) {
      const p = x.arrays[k];
      if (!p || p.length !== q.length) {
        console.log(`${x.name}.${k}: length differs`);
        bad++;
      } else if (k === 'index') {
        for (let t = 0; t < p.length; t += 3) {
          if (canonical(p, t) !== canonical(q, t)) {
            console.log(`${x.name}: triangle ${t / 3} differs`);
            bad++;
            break;
          }
          if (p[t] !== q[t]) rotated++;
        }
      } else if (p.some((v, j) => !Object.is(v, q[j]))) {
        console.log(`${x.name}.${k}: values differ`);
        bad++;
      }
    }
  }
  console.log(`${packedFile}: ${a.length} meshes, ${vertices} vertices, ${instances} instances, ` +
              `${rotated} triangles rotated; ${bad ? `${bad} differences` : `same as ${plainFile}`}`);
  return bad ? 1 : 0;
}

process.exit(await main(process.argv.slice(2)));
