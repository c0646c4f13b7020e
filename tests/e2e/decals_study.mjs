// SPDX-License-Identifier: Apache-2.0
// A look at the decals in the viewer (issue 31): close-ups of grime at a facade's foot, tyre
// marks before a stop line and an oil stain in a parking spot, by day, in city.glb mode and,
// when the city has tiles, in tiles mode. Not a ctest: the screenshots are for a person to
// judge (run by hand; the decals' placement and export are tested in dressing_city_tests and
// export_tests).
//
//   node tests/e2e/decals_study.mjs --cityforge build/release/cityforge --out OUT [--city DIR]
//
// Writes OUT/decals-<kind>[-tiles].png; exits 1 on console errors or when a kind has no decal.

import fs from 'node:fs';
import path from 'node:path';
import { log, parseArgs, startHarness } from './harness.mjs';

const HOME = { x: 1125, y: 1039 };

/// The instances of one prop from points/props/<id>.ply (x y z yaw sx sy sz float, owner
/// uint, variant and state uchar: 34 bytes each, little endian).
function readProps(city, id) {
  const bytes = fs.readFileSync(path.join(city, 'points', 'props', `${id}.ply`));
  const end = bytes.indexOf('end_header\n') + 'end_header\n'.length;
  const out = [];
  for (let o = end; o + 34 <= bytes.length; o += 34) {
    const f = (k) => bytes.readFloatLE(o + 4 * k);
    out.push({ x: f(0), y: f(1), z: f(2), yaw: f(3), sx: f(4), sy: f(5), sz: f(6) });
  }
  return out;
}

/// The instance nearest HOME (downtown, where the viewer opens) that passes `keep`.
function nearest(list, keep = () => true) {
  let best = null;
  for (const p of list) {
    if (!keep(p)) continue;
    const d = Math.hypot(p.x - HOME.x, p.y - HOME.y);
    if (!best || d < best.d) best = { d, p };
  }
  return best?.p ?? null;
}

const deg = (r) => (r * 180) / Math.PI;

/// setCamera's pose (the camera's position, its yaw and pitch of view) looking at `target`
/// from `distance` metres.
function lookAt(target, yaw_deg, pitch_deg, distance) {
  const y = (yaw_deg * Math.PI) / 180;
  const p = (pitch_deg * Math.PI) / 180;
  return {
    x: target.x - distance * Math.cos(p) * Math.cos(y),
    y: target.y - distance * Math.cos(p) * Math.sin(y),
    z: target.z - distance * Math.sin(p),
    yaw_deg, pitch_deg, distance,
  };
}

/// Camera poses looking at a decal of each kind near HOME.
function poses(city) {
  const grimes = readProps(city, 'decal_grime').filter((p) => p.sz > 1.6);
  const grime = nearest(grimes);
  // A second grime decal 200 m further out (another street, another style).
  const grime2 = nearest(grimes, (p) => Math.hypot(p.x - HOME.x, p.y - HOME.y) > 200);
  const tyre = nearest(readProps(city, 'decal_tyre_marks'));
  const oil = nearest(readProps(city, 'decal_oil'));
  const out = {};
  // Facing the wall (the grime faces +y of its frame: look along -y), from 6 m, eye height.
  if (grime) out.grime = lookAt({ x: grime.x, y: grime.y, z: grime.z + 1.0 }, deg(grime.yaw) - 90, -6, 6);
  if (grime2) out.grime_2 = lookAt({ x: grime2.x, y: grime2.y, z: grime2.z + 1.0 }, deg(grime2.yaw) - 90, -6, 6);
  // Behind the tyre marks looking along the travel direction toward the stop line.
  if (tyre) out.tyre_marks = lookAt(tyre, deg(tyre.yaw), -30, 12);
  if (oil) out.oil = lookAt(oil, deg(oil.yaw) + 30, -45, 6);
  return out;
}

const opts = parseArgs(process.argv.slice(2));
const h = await startHarness({ ...opts, mode: opts.mode ?? 'static' });
let failed = false;
try {
  const shots = poses(opts.city);
  for (const kind of ['grime', 'tyre_marks', 'oil']) {
    if (!shots[kind]) {
      log(`FAIL: no ${kind} decal in ${opts.city}`);
      failed = true;
    }
  }
  const modes = process.env.DECALS_TILES_ONLY ? [] : [['', '&tiles=0']];
  if (process.env.DECALS_CITY_ONLY) modes.length = 1;
  if (!process.env.DECALS_CITY_ONLY && fs.existsSync(path.join(opts.city, 'tiles', 'tileset.json'))) modes.push(['-tiles', '&tiles=1']);
  for (const [suffix, query] of modes) {
    const page = await h.openViewer(`?test=1${query}`);
    await page.evaluate(() => {
      if (window.cityforge.debug.sky) window.cityforge.debug.sky.running = false;
      window.cityforge.setTime(11);
    });
    for (const [kind, pose] of Object.entries(shots)) {
      log(`${kind}${suffix}: ${JSON.stringify(pose)}`);
      await page.evaluate((p) => window.cityforge.setCamera(p), pose);
      // Tiles stream in around the new camera: render until nothing is loading (at most 3 min).
      for (let i = 0; i < 3; i++) await page.evaluate(() => window.cityforge.render());
      if (suffix) {
        const t0 = Date.now();
        let quiet = 0;
        while (Date.now() - t0 < 180_000 && quiet < 3) {
          await page.evaluate(() => window.cityforge.render());
          await page.waitForTimeout(500);
          const st = await page.evaluate(() => window.cityforge.stats());
          quiet = st.tiles_loading === 0 && Date.now() - t0 > 15_000 ? quiet + 1 : 0;
        }
        const st = await page.evaluate(() => window.cityforge.stats());
        log(`tiles: ${st.tiles_visible} shown, ${st.tiles_loaded} loaded, ${st.tiles_loading} loading`);
      }
      await page.evaluate(() => window.cityforge.render());
      await h.screenshot(page, `decals-${kind}${suffix}`);
    }
    const decals = await page.evaluate(() => {
      const seen = {};
      window.cityforge.scene.traverse((o) => {
        const n = o.isMesh ? o.material?.name ?? '' : '';
        if (!n.startsWith('decal.')) return;
        const m = o.material;
        seen[n] = { meshes: (seen[n]?.meshes ?? 0) + 1, map: !!m.map, transparent: m.transparent, depthWrite: m.depthWrite, polygonOffset: m.polygonOffset, renderOrder: o.renderOrder };
      });
      return seen;
    });
    log(`decal materials in the scene${suffix}: ${JSON.stringify(decals)}`);
    if (Object.keys(decals).length < 3) {
      log(`FAIL: decal materials missing${suffix}`);
      failed = true;
    }
    await page.close();
  }
  if (h.errors.length > 0) {
    log(`FAIL: console errors: ${h.errors.join(' | ')}`);
    failed = true;
  }
} finally {
  await h.close();
}
process.exit(failed ? 1 : 0);
