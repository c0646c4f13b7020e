// SPDX-License-Identifier: Apache-2.0
// Walkers on an island's navigation graph (issue 29; seeds/003: the units of Bad North walk the
// graph the generator guarantees). Each walker follows the shortest way (fewest edges, breadth
// first, ties by node id) from where it stands to a destination drawn at random, walks it edge
// by edge (slower on stairs), and draws the next destination when it arrives. Everything is a
// function of (graph, seed, count) and the time steps, so two pages show the same walk. No
// three.js here: positions are engine coordinates (x, y, z up) for the page to draw.

import { mulberry32 } from './rng.js';

/** Neighbours per node, ascending, with whether the edge is a flight of stairs. */
export function adjacency(nav) {
  const adj = nav.nodes.map(() => []);
  for (const e of nav.edges) {
    adj[e.a].push({ to: e.b, stairs: !!e.stairs });
    adj[e.b].push({ to: e.a, stairs: !!e.stairs });
  }
  for (const list of adj) list.sort((x, y) => x.to - y.to);
  return adj;
}

/** The shortest way from `from` to `to` as node ids (both included), or null when none. */
export function shortestPath(adj, from, to) {
  const prev = new Int32Array(adj.length).fill(-1);
  prev[from] = from;
  const queue = [from];
  for (let head = 0; head < queue.length && prev[to] < 0; head++) {
    const n = queue[head];
    for (const { to: w } of adj[n]) {
      if (prev[w] < 0) {
        prev[w] = n;
        queue.push(w);
      }
    }
  }
  if (prev[to] < 0) return null;
  const path = [to];
  while (path[path.length - 1] !== from) path.push(prev[path[path.length - 1]]);
  return path.reverse();
}

export const WALK_MPS = 1.1;
export const STAIRS_MPS = 0.6;

/**
 * Walkers on `nav` (island_nav.json): `count` of them, spread over the nodes, each with its own
 * stream drawn from `seed`. An empty graph gives none.
 */
export function makeWalkers(nav, count, seed = 1) {
  const adj = adjacency(nav);
  const n = nav.nodes.length;
  const walkers = [];
  if (n === 0) return { nav, adj, walkers };
  for (let i = 0; i < count; i++) {
    const rand = mulberry32((seed * 0x9e3779b1 + i * 0x85ebca6b) >>> 0);
    const start = Math.min(n - 1, Math.floor(rand() * n));
    walkers.push({ id: i, rand, path: [start], leg: 0, along: 0, arrivals: 0 });
  }
  const world = { nav, adj, walkers };
  for (const w of walkers) plan(world, w);
  return world;
}

function plan(world, w) {
  const here = w.path[w.leg];
  const n = world.nav.nodes.length;
  // A destination other than here, reachable; a few draws, then stay (a lone node).
  for (let k = 0; k < 8; k++) {
    const to = Math.min(n - 1, Math.floor(w.rand() * n));
    if (to === here) continue;
    const path = shortestPath(world.adj, here, to);
    if (path) {
      w.path = path;
      w.leg = 0;
      w.along = 0;
      return;
    }
  }
  w.path = [here];
  w.leg = 0;
  w.along = 0;
}

function edgeOf(world, a, b) {
  for (const e of world.adj[a]) if (e.to === b) return e;
  return null;
}

function distance(p, q) {
  return Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]);
}

/** Moves every walker on by dt seconds. */
export function stepWalkers(world, dt) {
  for (const w of world.walkers) {
    let left = dt;
    for (let guard = 0; left > 0 && guard < 64; guard++) {
      if (w.leg + 1 >= w.path.length) {
        w.arrivals += 1;
        plan(world, w);
        if (w.path.length < 2) break;
      }
      const a = w.path[w.leg];
      const b = w.path[w.leg + 1];
      const e = edgeOf(world, a, b);
      const len = distance(world.nav.nodes[a].position, world.nav.nodes[b].position);
      const speed = e && e.stairs ? STAIRS_MPS : WALK_MPS;
      const need = (len - w.along) / speed;
      if (need > left) {
        w.along += left * speed;
        left = 0;
      } else {
        left -= need;
        w.leg += 1;
        w.along = 0;
      }
    }
  }
}

/** A walker's position (engine x, y, z up) and the edge it is on ([a, b], a === b standing). */
export function walkerPosition(world, w) {
  const a = w.path[w.leg];
  const b = w.leg + 1 < w.path.length ? w.path[w.leg + 1] : a;
  const p = world.nav.nodes[a].position;
  const q = world.nav.nodes[b].position;
  const len = distance(p, q);
  const u = len > 0 ? Math.min(1, w.along / len) : 0;
  return {
    position: [p[0] + (q[0] - p[0]) * u, p[1] + (q[1] - p[1]) * u, p[2] + (q[2] - p[2]) * u],
    edge: [a, b],
    heading: Math.atan2(q[1] - p[1], q[0] - p[0]),
  };
}

/**
 * After an edit the graph is new (its node ids too): every walker goes to the new node nearest
 * to where it stood and plans again from there.
 */
export function rehome(world, nav) {
  const moved = { nav, adj: adjacency(nav), walkers: world.walkers };
  if (nav.nodes.length === 0) {
    moved.walkers = [];
    return moved;
  }
  for (const w of world.walkers) {
    const at = walkerPosition(world, w).position;
    let best = 0;
    let bestD = Infinity;
    nav.nodes.forEach((node, i) => {
      const d = distance(node.position, at);
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    });
    w.path = [best];
    w.leg = 0;
    w.along = 0;
    plan(moved, w);
  }
  return moved;
}
