// SPDX-License-Identifier: Apache-2.0
// Walkers on the island's navigation graph: they stay on its edges, arrive and go on, walk
// stairs slower, give the same walk for the same seed, and find their way again on a new graph.
// fixtures/island_nav.json is `cityforge island --seed 3`'s navigation graph.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  adjacency, makeWalkers, rehome, shortestPath, STAIRS_MPS, stepWalkers, walkerPosition, WALK_MPS,
} from '../src/island_walkers.js';

// A ladder of 2 x 5 nodes, 2 m apart, the rungs at x = 8 a flight of stairs up 1 m, and a lone
// node (no edges) that nobody can reach.
function ladder() {
  const nodes = [];
  for (let i = 0; i < 5; i++) nodes.push({ id: nodes.length, position: [2 * i, 0, 0] });
  for (let i = 0; i < 5; i++) nodes.push({ id: nodes.length, position: [2 * i, 2, i === 4 ? 1 : 0] });
  nodes.push({ id: 10, position: [50, 50, 0] });
  const edges = [];
  for (let i = 0; i < 4; i++) {
    edges.push({ a: i, b: i + 1 });
    edges.push({ a: 5 + i, b: 6 + i });
  }
  edges.push({ a: 0, b: 5 });
  edges.push({ a: 4, b: 9, stairs: true });
  return { nodes, edges };
}

function onEdge(world, w) {
  const { position: at, edge: [a, b] } = walkerPosition(world, w);
  const p = world.nav.nodes[a].position;
  const q = world.nav.nodes[b].position;
  const d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
  const len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  const u = len2 > 0 ? Math.max(0, Math.min(1, ((at[0] - p[0]) * d[0] + (at[1] - p[1]) * d[1] + (at[2] - p[2]) * d[2]) / len2)) : 0;
  const off = Math.hypot(at[0] - p[0] - u * d[0], at[1] - p[1] - u * d[1], at[2] - p[2] - u * d[2]);
  const joined = a === b || world.adj[a].some((e) => e.to === b);
  return joined && off < 1e-9;
}

test('shortest ways go by the fewest edges and not to a node nobody reaches', () => {
  const adj = adjacency(ladder());
  assert.deepEqual(shortestPath(adj, 1, 6), [1, 0, 5, 6]);
  assert.deepEqual(shortestPath(adj, 3, 9), [3, 4, 9]);
  assert.equal(shortestPath(adj, 0, 10), null);
});

test('walkers stay on the edges, arrive and go on, never at the lone node', () => {
  const world = makeWalkers(ladder(), 12, 7);
  assert.equal(world.walkers.length, 12);
  let moved = 0;
  for (let t = 0; t < 600; t++) {
    const before = world.walkers.map((w) => walkerPosition(world, w).position);
    stepWalkers(world, 1 / 10);
    world.walkers.forEach((w, i) => {
      assert.ok(onEdge(world, w), `walker ${i} left the graph at step ${t}`);
      const after = walkerPosition(world, w).position;
      const step = Math.hypot(after[0] - before[i][0], after[1] - before[i][1], after[2] - before[i][2]);
      assert.ok(step <= WALK_MPS / 10 + 1e-9, `walker ${i} jumped ${step} m`);
      if (step > 0) moved++;
    });
  }
  for (const w of world.walkers) if (w.path[0] !== 10) assert.ok(w.arrivals >= 2, `walker ${w.id} arrived ${w.arrivals} times`);
  assert.ok(moved > 600 * 8);
});

test('stairs are walked slower', () => {
  const nav = ladder();
  const world = makeWalkers(nav, 1, 3);
  const w = world.walkers[0];
  w.path = [4, 9];
  w.leg = 0;
  w.along = 0;
  stepWalkers(world, 1);
  assert.ok(Math.abs(w.along - STAIRS_MPS) < 1e-9);
});

test('the same seed gives the same walk, another seed another', () => {
  const run = (seed) => {
    const world = makeWalkers(ladder(), 6, seed);
    for (let t = 0; t < 300; t++) stepWalkers(world, 1 / 30);
    return world.walkers.map((w) => walkerPosition(world, w).position.map((x) => x.toFixed(9)).join(',')).join(';');
  };
  assert.equal(run(5), run(5));
  assert.notEqual(run(5), run(6));
});

test('after an edit they go to the nearest node of the new graph and walk on', () => {
  let world = makeWalkers(ladder(), 8, 2);
  for (let t = 0; t < 50; t++) stepWalkers(world, 0.1);
  const nav = ladder();
  nav.nodes.pop(); // The lone node went; ids of the others are the same here.
  nav.edges = nav.edges.filter((e) => !(e.a === 0 && e.b === 5));
  world = rehome(world, nav);
  for (let t = 0; t < 200; t++) {
    stepWalkers(world, 0.1);
    for (const w of world.walkers) assert.ok(onEdge(world, w));
  }
  assert.equal(rehome(world, { nodes: [], edges: [] }).walkers.length, 0);
});

test('an island the generator wrote: every walker on its graph for a minute', (t) => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const file = path.join(here, 'fixtures', 'island_nav.json');
  if (!fs.existsSync(file)) {
    t.skip('no fixtures/island_nav.json');
    return;
  }
  const nav = JSON.parse(fs.readFileSync(file, 'utf8'));
  const world = makeWalkers(nav, 24, 1);
  let arrivals = 0;
  for (let i = 0; i < 1800; i++) {
    stepWalkers(world, 1 / 30);
    for (const w of world.walkers) assert.ok(onEdge(world, w));
  }
  for (const w of world.walkers) arrivals += w.arrivals;
  assert.ok(arrivals > 0);
});
