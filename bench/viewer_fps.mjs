#!/usr/bin/env node
// SPDX-License-Identifier: Apache-2.0
// Frames per second of the browser viewer in headless Chromium's software renderer
// (SwiftShader) on the default city with a live simulation of 20k agents (issue 8 benchmark):
//   node bench/viewer_fps.mjs --cityforge BIN [--city DIR] [--seconds 20] [--vehicles 5000]
//        [--pedestrians 15000] [--size 1280x720] [--scale 1] [--out DIR] [--breakdown]
// --scale renders at that share of the window's resolution (0.5: a quarter of the pixels).
// Prints, for a street-level and an overview camera: frames per second over the window,
// simulation ticks per second seen by the viewer, agents, draw calls and triangles per frame;
// --breakdown repeats the street camera with buildings, props, then agents hidden.
// Never asserts. Needs viewer/dist (make viewer) and /usr/bin/chromium.

import os from 'node:os';
import path from 'node:path';

import { log, startHarness } from '../tests/e2e/harness.mjs';

function parse(argv) {
  const o = { scale: 1, seconds: 20, vehicles: 5000, pedestrians: 15000, out: path.join(os.tmpdir(), 'cityforge-viewer-bench') };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--seconds') o.seconds = Number(argv[++i]);
    else if (argv[i] === '--vehicles') o.vehicles = Number(argv[++i]);
    else if (argv[i] === '--pedestrians') o.pedestrians = Number(argv[++i]);
    else if (argv[i] === '--out') o.out = path.resolve(argv[++i]);
    else if (argv[i] === '--scale') o.scale = Number(argv[++i]);
    else if (argv[i] === '--breakdown') o.breakdown = true;
    else rest.push(argv[i]);
  }
  return { o, rest };
}

const CAMERAS = {
  // At lamp height on a downtown street, looking along it.
  street: { x: 1121, y: 1037, z: 8, yaw_deg: 90, pitch_deg: -7, distance: 80 },
  // Over downtown from the south-west (the viewer's default camera).
  overview: { x: 745, y: 659, z: 280, yaw_deg: 45, pitch_deg: -30, distance: 560 },
};

/// Ticks or unticks a render option of the panel (#show-<what>) as a user would.
async function setShow(page, what, on) {
  await page.evaluate(
    ([w, v]) => {
      const box = document.getElementById(`show-${w}`);
      box.checked = v;
      box.dispatchEvent(new Event('change', { bubbles: true }));
    },
    [what, on],
  );
}

async function main() {
  const { o, rest } = parse(process.argv.slice(2));
  const { parseArgs } = await import('../tests/e2e/harness.mjs');
  const opts = parseArgs([...rest, '--out', o.out, '--vehicles', String(o.vehicles), '--pedestrians', String(o.pedestrians)]);
  if (!rest.includes('--city')) opts.city = path.join(os.tmpdir(), 'cityforge-viewer-bench-city');
  const h = await startHarness(opts);
  try {
    const page = await h.openViewer(`?test=1&scale=${o.scale}`);
    await page.waitForFunction(() => window.cityforge.stats().frames >= 5, null, { timeout: 300_000, polling: 500 });
    const rows = [];
    for (const [name, pose] of Object.entries(CAMERAS)) {
      await page.evaluate((p) => window.cityforge.setCamera(p), pose);
      await page.waitForTimeout(3000); // culling settles, shaders are compiled
      const a = await page.evaluate(() => ({ s: window.cityforge.stats(), t: performance.now() }));
      await page.waitForTimeout(o.seconds * 1000);
      const b = await page.evaluate(() => ({ s: window.cityforge.stats(), t: performance.now() }));
      const secs = (b.t - a.t) / 1000;
      const row = {
        camera: name,
        fps: (b.s.rendered_frames - a.s.rendered_frames) / secs,
        ticks_per_s: b.s.ticks_per_s,
        stream_frames_per_s: (b.s.frames - a.s.frames) / secs,
        vehicles: b.s.vehicles,
        pedestrians: b.s.pedestrians,
        draw_calls: b.s.draw_calls,
        triangles: b.s.triangles,
        seconds: secs,
      };
      rows.push(row);
      await h.screenshot(page, `bench-${name}`);
      log(JSON.stringify(row));
    }
    // Where the time goes: the street camera again with one kind of content hidden at a time.
    const parts = [];
    if (o.breakdown) {
      await page.evaluate((p) => window.cityforge.setCamera(p), CAMERAS.street);
      for (const what of ['buildings', 'props', 'agents']) {
        await setShow(page, what, false);
        await page.waitForTimeout(3000);
        const a = await page.evaluate(() => ({ s: window.cityforge.stats(), t: performance.now() }));
        await page.waitForTimeout(o.seconds * 1000);
        const b = await page.evaluate(() => ({ s: window.cityforge.stats(), t: performance.now() }));
        const secs = (b.t - a.t) / 1000;
        parts.push({ hidden: what, fps: (b.s.rendered_frames - a.s.rendered_frames) / secs, draw_calls: b.s.draw_calls, triangles: b.s.triangles });
        log(JSON.stringify(parts[parts.length - 1]));
        await setShow(page, what, true);
      }
    }
    const s = await page.evaluate(() => window.cityforge.stats());
    console.log(`\nviewer fps, ${s.renderer}, ${opts.width}x${opts.height} at render scale ${s.render_scale}, detail scale ${s.detail_scale}, ${h.live ? 'live' : 'recording'} ${o.vehicles} vehicles + ${o.pedestrians} pedestrians requested, ${os.cpus().length} CPUs`);
    console.log('camera     fps    ticks/s  frames/s  vehicles  pedestrians  draws  triangles');
    for (const r of rows) {
      console.log(`${r.camera.padEnd(9)} ${r.fps.toFixed(2).padStart(5)} ${r.ticks_per_s.toFixed(1).padStart(9)} ${r.stream_frames_per_s.toFixed(1).padStart(9)} ${String(r.vehicles).padStart(9)} ${String(r.pedestrians).padStart(12)} ${String(r.draw_calls).padStart(6)} ${String(r.triangles).padStart(10)}`);
    }
    if (parts.length) {
      console.log('\nstreet camera with one kind hidden (where the time goes)');
      console.log('hidden       fps   draws  triangles');
      for (const r of parts) console.log(`${r.hidden.padEnd(10)} ${r.fps.toFixed(2).padStart(5)} ${String(r.draw_calls).padStart(7)} ${String(r.triangles).padStart(10)}`);
    }
  } finally {
    await h.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
