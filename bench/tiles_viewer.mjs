#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// The viewer streaming a tiled city (issue 22 benchmark) in headless Chromium's software
// renderer (SwiftShader), no simulation:
//   node bench/tiles_viewer.mjs --cityforge BIN --city DIR [--glb FILE] [--seconds 10]
//        [--size 1280x720] [--error PX] [--cache MIB] [--out DIR]
// DIR holds tiles/tileset.json (`cityforge generate ... --tiles`). The page opens at the
// overview camera (over the tileset's centre, 280 m up, looking north-east); then prints:
// time to first frame after navigation (first tile shown; every tile of that view in), bytes
// of the city's files fetched until then (tiles, other files) against city.glb's size (--glb,
// else DIR/city.glb), frames per second, draw calls and triangles per frame at the overview
// and at a street camera, tiles loaded / unloaded / cached, and main-thread time spent
// preparing tiles. --error and --cache set the tiles' screen-space error target (pixels) and
// cache (MiB). Never asserts. Needs viewer/dist (make viewer) and /usr/bin/chromium.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { log, parseArgs, startHarness } from '../tests/e2e/harness.mjs';
import { cityBytes, measureFps, overviewPose, settle, streetPose } from '../tests/e2e/tiles_helpers.mjs';

function parse(argv) {
  const o = { seconds: 10, glb: null, error: null, cache: null, out: path.join(os.tmpdir(), 'cityforge-tiles-bench') };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--seconds') o.seconds = Number(argv[++i]);
    else if (argv[i] === '--glb') o.glb = path.resolve(argv[++i]);
    else if (argv[i] === '--error') o.error = Number(argv[++i]);
    else if (argv[i] === '--cache') o.cache = Number(argv[++i]);
    else if (argv[i] === '--out') o.out = path.resolve(argv[++i]);
    else rest.push(argv[i]);
  }
  return { o, rest };
}

const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;

async function main() {
  const { o, rest } = parse(process.argv.slice(2));
  const opts = parseArgs([...rest, '--out', o.out, '--mode', 'static']);
  const tilesetFile = path.join(opts.city, 'tiles', 'tileset.json');
  if (!fs.existsSync(tilesetFile)) throw new Error(`${tilesetFile} not found (cityforge generate ... --tiles)`);
  const tileset = JSON.parse(fs.readFileSync(tilesetFile, 'utf8'));
  const box = tileset.root.boundingVolume.box;
  const glb = o.glb ?? path.join(opts.city, 'city.glb');
  const glbBytes = fs.existsSync(glb) ? fs.statSync(glb).size : null;
  const overview = overviewPose(box);

  const h = await startHarness(opts);
  try {
    // Resource timing keeps 250 entries unless told more; a city fetches hundreds of tiles.
    await h.context.addInitScript(() => performance.setResourceTimingBufferSize(100000));
    let q = `?test=1&camera=${Object.values(overview).join(',')}`;
    if (o.error !== null) q += `&error=${o.error}`;
    if (o.cache !== null) q += `&tilecache=${o.cache}`;
    const page = await h.openViewer(q);
    await page.waitForFunction(() => window.cityforge.stats().tiles_first_complete_ms !== null, null, {
      timeout: 600_000,
      polling: 250,
    });
    const first = await page.evaluate(() => window.cityforge.stats());
    // When the tiles of the first view arrived (resource timing), against when they were shown.
    const net = await page.evaluate(() => {
      const t = performance.getEntriesByType('resource').filter((e) => /\/city\/tiles\/.+\.glb/.test(e.name));
      const nav = performance.getEntriesByType('navigation')[0];
      return {
        first_request_ms: Math.min(...t.map((e) => e.startTime)),
        last_response_ms: Math.max(...t.map((e) => e.responseEnd)),
        mean_wait_ms: t.reduce((s, e) => s + (e.responseStart - e.startTime), 0) / Math.max(1, t.length),
        dom_loaded_ms: nav ? nav.domContentLoadedEventEnd : null,
      };
    });
    const bytes = await cityBytes(page, first.tiles_first_complete_ms);
    await page.evaluate(() => {
      window.cityforge.debug.sky.running = false;
    });
    const ov = await measureFps(page, o.seconds);
    await h.screenshot(page, 'bench-overview');
    const centre = { x: box[0], y: box[1] };
    const street = (await streetPose(page, centre)) ?? { ...centre, z: box[2] + 8, yaw_deg: 90, pitch_deg: -7, distance: 80 };
    const st = await settle(page, street);
    const sf = await measureFps(page, o.seconds);
    await h.screenshot(page, 'bench-street');
    const all = await cityBytes(page, null);

    const row = (name, r) =>
      `| ${name} | ${r.fps.toFixed(2)} | ${r.s.draw_calls} | ${r.s.triangles} | ${r.s.tiles_visible} |`;
    console.log('');
    console.log(`tiled city ${opts.city}, ${opts.width}x${opts.height}, ${first.renderer}`);
    console.log(`error target ${first.tiles_error_target} px, detail scale ${first.detail_scale}, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    console.log(`time to first frame after navigation: first tile shown ${(first.tiles_first_content_ms / 1000).toFixed(2)} s, ` +
      `every tile of the overview in ${(first.tiles_first_complete_ms / 1000).toFixed(2)} s (${first.tiles_loaded} tiles; ` +
      `${(first.tiles_classify_ms / 1000).toFixed(2)} s of it preparing them on the main thread)`);
    console.log(`tile requests: first at ${(net.first_request_ms / 1000).toFixed(2)} s, last response at ` +
      `${(net.last_response_ms / 1000).toFixed(2)} s, mean wait for a response ${net.mean_wait_ms.toFixed(0)} ms; ` +
      `page script ran at ${((net.dom_loaded_ms ?? 0) / 1000).toFixed(2)} s`);
    console.log(`bytes for the first overview frame: tiles ${mb(bytes.tiles)} + other city files ${mb(bytes.other)} ` +
      `(${bytes.count} requests)` + (glbBytes ? `; city.glb ${mb(glbBytes)}: tiles are ${((100 * bytes.tiles) / glbBytes).toFixed(1)} %` : ''));
    console.log(`street camera ${JSON.stringify(street)}: its tiles in after ${st.seconds.toFixed(1)} s`);
    console.log('');
    console.log('| camera | fps | draw calls | triangles | tiles shown |');
    console.log('|---|---|---|---|---|');
    console.log(row('overview', ov));
    console.log(row('street', sf));
    console.log('');
    console.log(`tiles: ${sf.s.tiles_loaded} loaded, ${sf.s.tiles_unloaded} unloaded, ${sf.s.tiles_cached} cached ` +
      `(${(sf.s.tiles_bytes_cached / 2 ** 20).toFixed(0)} MiB in memory), ${sf.s.tiles_failed} failed; ` +
      `${mb(all.tiles)} of tiles fetched in all; ${(sf.s.tiles_classify_ms / 1000).toFixed(2)} s preparing tiles`);
    console.log(`console errors: ${h.errors.length}${h.errors.length ? ': ' + h.errors.slice(0, 3).join(' | ') : ''}`);
    await page.close();
  } finally {
    await h.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
