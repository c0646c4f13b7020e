#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// End-to-end test of a city streamed as 3D Tiles (issue 22) in headless Chromium against
// `cityforge serve` (static: no simulation, so the two cores draw):
//   node tests/e2e/tiles.test.mjs --cityforge BIN --out DIR [--city DIR] [--example FILE]
// The city is the 4x5 km example written with `--tiles --no-city-glb` (generated into
// OUT/../e2e-tiles-city when DIR/tiles/tileset.json is missing).
// 1. The first frame shows; time to first frame (every tile of the first view in) is printed.
// 2. Frames per second at an overview and a street camera are printed, with draw calls and
//    triangles per frame.
// 3. Tiles are loaded and unloaded as the camera flies across the city (both counted, > 0; the
//    tile cache is made small so that the flight must evict); the leaves' shared texture images
//    are on the GPU once, not once per tile.
// 4. At night the street camera sees lamps and lit windows, brighter than with lights off.
// 5. No console errors.
// 6. In a copy of the city with one leaf tile deleted, flying over it: the tile's request
//    answers 404, the tile counts as failed, and the viewer keeps drawing.
// Screenshots go to DIR. Exit 0 pass, 1 fail, 77 skip (no Chromium or no viewer/dist).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { SOURCE_DIR, log, parseArgs, startHarness, startServe } from './harness.mjs';
import { leaves, measureFps, overviewPose, settle, streetPose } from './tiles_helpers.mjs';

const EXAMPLE = path.join(SOURCE_DIR, 'data', 'examples', 'metropolis-4x5km.json');
const CACHE_MIB = 128; // small enough that the flight below evicts tiles, big enough for a view
const MIN_VARIANCE = 150;
const MIN_GAIN = 8;

const failures = [];
function check(cond, what) {
  log(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
  if (!cond) failures.push(what);
}
const mean = (a) => (a.length ? a.reduce((s, v) => s + v, 0) / a.length : 0);

function parse(argv) {
  let example = EXAMPLE;
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--example') example = path.resolve(argv[++i]);
    else rest.push(argv[i]);
  }
  const opts = parseArgs([...rest, '--mode', 'static']);
  // Software WebGL shades every pixel on the CPU: 960 x 540 keeps the checks and takes a
  // quarter less time than 1280 x 720 (`--size 1280x720` for pictures).
  if (!rest.includes('--size')) [opts.width, opts.height] = [960, 540];
  if (!rest.includes('--city')) opts.city = path.join(path.dirname(opts.out), 'e2e-tiles-city');
  return { opts, example };
}

/// The tiled city (generated once, reused).
function ensureTiledCity(opts, example) {
  if (fs.existsSync(path.join(opts.city, 'tiles', 'tileset.json'))) return;
  fs.mkdirSync(path.dirname(opts.city), { recursive: true });
  const args = ['generate', example, '-o', opts.city, '--tiles', '--no-city-glb', '-q'];
  log(`$ cityforge ${args.join(' ')}`);
  const r = spawnSync(opts.cityforge, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`cityforge generate --tiles failed with status ${r.status}`);
}

async function main() {
  const { opts, example } = parse(process.argv.slice(2));
  ensureTiledCity(opts, example);
  const tileset = JSON.parse(fs.readFileSync(path.join(opts.city, 'tiles', 'tileset.json'), 'utf8'));
  const rootBox = tileset.root.boundingVolume.box;
  const centre = { x: rootBox[0], y: rootBox[1] };
  const overview = overviewPose(rootBox);
  const h = await startHarness(opts);
  let copyServe = null;
  const copyDir = `${opts.city}-missing-tile`;
  try {
    // 1. First frame at the overview camera.
    const q = `?test=1&tilecache=${CACHE_MIB}&camera=${Object.values(overview).join(',')}`;
    const page = await h.openViewer(q);
    await page.waitForFunction(() => window.cityforge.stats().tiles_first_complete_ms !== null, null, {
      timeout: 300_000,
      polling: 500,
    });
    const s0 = await page.evaluate(() => window.cityforge.stats());
    log(`time to first frame: first tile shown ${(s0.tiles_first_content_ms / 1000).toFixed(2)} s, ` +
      `every tile of the first view ${(s0.tiles_first_complete_ms / 1000).toFixed(2)} s after navigation`);
    check(s0.tiled === true, 'the viewer streams the tileset');
    check(s0.tiles_loaded > 0 && s0.tiles_visible > 0, `tiles loaded (${s0.tiles_loaded}) and shown (${s0.tiles_visible})`);
    await h.screenshot(page, 'tiles-overview-day');
    const px = await page.evaluate(() => window.cityforge.debug.sample([]));
    check(px.variance > MIN_VARIANCE && px.mean > 20, `first frame is not blank (mean ${px.mean.toFixed(0)}, variance ${px.variance.toFixed(0)})`);

    // 2. Frames per second, overview then street.
    await page.evaluate(() => {
      window.cityforge.debug.sky.running = false;
    });
    const ov = await measureFps(page, 5);
    log(`overview: ${ov.fps.toFixed(2)} fps, ${ov.s.draw_calls} draw calls, ${ov.s.triangles} triangles, ${ov.s.tiles_visible} tiles shown`);
    const street = (await streetPose(page, centre)) ?? { ...centre, z: rootBox[2] + 8, yaw_deg: 90, pitch_deg: -7, distance: 80 };
    log(`street camera ${JSON.stringify(street)}`);
    const st = await settle(page, street);
    log(`street tiles in after ${st.seconds.toFixed(1)} s`);
    const sf = await measureFps(page, 5);
    log(`street: ${sf.fps.toFixed(2)} fps, ${sf.s.draw_calls} draw calls, ${sf.s.triangles} triangles, ${sf.s.tiles_visible} tiles shown`);
    check(sf.fps > 0 && ov.fps > 0, 'frames keep coming at both cameras');
    await h.screenshot(page, 'tiles-street-day');

    // 3. A flight across the city: tiles come and go.
    const [cx, cy, , hx, , , , hy] = rootBox;
    for (const [fx, fy] of [[-0.6, -0.6], [0.6, -0.6], [0.6, 0.6], [-0.6, 0.6]]) {
      const p = await streetPose(page, { x: cx + fx * hx, y: cy + fy * hy });
      if (p) await settle(page, p);
    }
    await settle(page, street);
    const s3 = await page.evaluate(() => window.cityforge.stats());
    log(`flight: ${s3.tiles_loaded} tiles loaded, ${s3.tiles_unloaded} unloaded, ${s3.tiles_cached} cached (${(s3.tiles_bytes_cached / 2 ** 20).toFixed(0)} MiB)`);
    check(s3.tiles_loaded > s0.tiles_loaded, `more tiles loaded as the camera moved (${s0.tiles_loaded} -> ${s3.tiles_loaded})`);
    check(s3.tiles_unloaded > 0, `tiles unloaded as the camera moved (${s3.tiles_unloaded})`);
    check(s3.tiles_failed === 0, 'no tile failed');
    // The leaves' textures are shared files, uploaded once per tileset however many tiles use
    // them (viewer/src/tiles.js SharedTextures): a handful of other textures besides.
    check(s3.tiles_shared_images > 0 && s3.gpu_textures <= s3.tiles_shared_images + 10,
      `leaf textures shared: ${s3.gpu_textures} textures on the GPU for ${s3.tiles_shared_images} images and ${s3.tiles_loaded} tiles loaded`);

    // 4. Night at the street camera.
    await page.evaluate(() => window.cityforge.setTime(22));
    await page.evaluate(() => window.cityforge.render());
    const night = await page.evaluate(() => window.cityforge.stats());
    check(night.street_lights_on && night.windows_lit > 0, `street lights on and windows lit at 22 h (share ${night.windows_lit.toFixed(2)})`);
    const lamps = await page.evaluate(() => window.cityforge.debug.lampsOnScreen(60));
    const wins = await page.evaluate(() => window.cityforge.debug.litWindowsOnScreen(80));
    log(`${lamps.length} lamps and ${wins.length} lit windows on screen`);
    check(lamps.length > 0 && wins.length > 0, 'lamps and lit windows in view of the street camera');
    const on = await page.evaluate((pts) => window.cityforge.debug.sample(pts), [...lamps, ...wins]);
    await h.screenshot(page, 'tiles-street-night');
    await page.locator('#show-lights').uncheck();
    const off = await page.evaluate((pts) => window.cityforge.debug.sample(pts), [...lamps, ...wins]);
    await page.locator('#show-lights').check();
    const gainLamps = mean(on.at.slice(0, lamps.length)) - mean(off.at.slice(0, lamps.length));
    const gainWins = mean(on.at.slice(lamps.length)) - mean(off.at.slice(lamps.length));
    check(gainLamps > MIN_GAIN, `lamp pixels brighter with lights on (+${gainLamps.toFixed(1)})`);
    check(gainWins > MIN_GAIN, `lit window pixels brighter with lights on (+${gainWins.toFixed(1)})`);
    await settle(page, overview);
    await h.screenshot(page, 'tiles-overview-night');

    // 5. No console errors so far.
    check(h.errors.length === 0, `no console errors${h.errors.length ? ': ' + h.errors.slice(0, 5).join(' | ') : ''}`);
    await page.close();

    // 6. One leaf missing (hard links: the copy costs no disk), camera over it.
    const leaf = leaves(tileset)
      .map((l) => ({ ...l, d: Math.hypot(l.box[0] - street.x, l.box[1] - street.y) }))
      .sort((a, b) => a.d - b.d)[0];
    fs.rmSync(copyDir, { recursive: true, force: true });
    spawnSync('cp', ['-al', opts.city, copyDir]);
    fs.rmSync(path.join(copyDir, 'tiles', leaf.uri));
    log(`deleted tiles/${leaf.uri} from the copy`);
    copyServe = await startServe({ ...opts, city: copyDir }, { live: false });
    const before = h.errors.length;
    const p2 = await h.openViewer(`?test=1&camera=${Object.values(street).join(',')}`, { url: copyServe.url });
    await settle(p2, street);
    await settle(p2, { ...street, x: leaf.box[0], y: leaf.box[1], yaw_deg: street.yaw_deg + 90 });
    const status = await p2.evaluate(async (u) => (await fetch(u)).status, `/city/tiles/${leaf.uri}`);
    check(status === 404, `GET /city/tiles/${leaf.uri} answers ${status} (404 expected)`);
    const s6 = await p2.evaluate(() => window.cityforge.stats());
    check(s6.tiles_failed >= 1, `the missing tile counts as failed (${s6.tiles_failed})`);
    const r0 = s6.rendered_frames;
    await p2.waitForFunction((n) => window.cityforge.stats().rendered_frames >= n + 3, r0, { timeout: 120_000, polling: 250 });
    check(true, 'the viewer keeps drawing after the 404');
    await settle(p2, overview);
    const s7 = await p2.evaluate(() => window.cityforge.stats());
    check(s7.tiles_loaded > 0 && !(await p2.evaluate(() => window.cityforge.error)), `and keeps loading tiles (${s7.tiles_loaded})`);
    await h.screenshot(p2, 'tiles-missing-leaf');
    const leafName = leaf.uri.replace(/\./g, '\\.');
    const expected = new RegExp(`404|${leafName}|Failed to load tile`);
    const other = h.errors.slice(before).filter((e) => !expected.test(e));
    log(`console errors with the missing tile: ${h.errors.length - before} (${other.length} not about it)`);
    check(other.length === 0, `no other console errors${other.length ? ': ' + other.slice(0, 5).join(' | ') : ''}`);
    await p2.close();
  } finally {
    await h.close();
    if (copyServe) {
      copyServe.proc.kill('SIGTERM');
      await new Promise((r) => (copyServe.proc.exitCode !== null ? r() : copyServe.proc.once('exit', r)));
    }
    fs.rmSync(copyDir, { recursive: true, force: true });
  }
  if (failures.length) {
    log(`${failures.length} check(s) failed`);
    process.exit(1);
  }
  log('all checks passed');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
