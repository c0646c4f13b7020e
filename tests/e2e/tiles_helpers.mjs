// SPDX-License-Identifier: Apache-2.0
// Cameras and waits for a city streamed as 3D Tiles (tests/e2e/tiles.test.mjs and
// bench/tiles_viewer.mjs). Poses are in city metres (x east, y north, z up), as the viewer's
// setCamera takes them.

/// Leaves of an explicit tileset: { uri, box } (box: local ENU centre and half axes).
export function leaves(tileset) {
  const out = [];
  const walk = (t) => {
    if (!t.children || t.children.length === 0) {
      if (t.content) out.push({ uri: t.content.uri, box: t.boundingVolume.box });
    } else t.children.forEach(walk);
  };
  walk(tileset.root);
  return out;
}

/// The overview camera over a box's centre: 280 m up, 540 m south-west of it, looking
/// north-east and down 30 degrees (the viewer's default camera over the default city).
export function overviewPose(box) {
  const [cx, cy] = box;
  return { x: cx - 380, y: cy - 380, z: 280, yaw_deg: 45, pitch_deg: -30, distance: 560 };
}

/// Moves the camera and waits until no tile is in flight (at least 1.5 s, at most timeoutMs).
export async function settle(page, pose, timeoutMs = 240_000) {
  if (pose) await page.evaluate((p) => window.cityforge.setCamera(p), pose);
  const t0 = Date.now();
  let s = null;
  for (;;) {
    await page.waitForTimeout(500);
    s = await page.evaluate(() => window.cityforge.stats());
    if ((s.tiles_loading === 0 && Date.now() - t0 > 1500) || Date.now() - t0 > timeoutMs) break;
  }
  return { s, seconds: (Date.now() - t0) / 1000 };
}

/// Frames drawn per second over `seconds`, and the stats at the end.
export async function measureFps(page, seconds) {
  const a = await page.evaluate(() => ({ s: window.cityforge.stats(), t: performance.now() }));
  await page.waitForTimeout(seconds * 1000);
  const b = await page.evaluate(() => ({ s: window.cityforge.stats(), t: performance.now() }));
  return { fps: (b.s.rendered_frames - a.s.rendered_frames) / ((b.t - a.t) / 1000), s: b.s };
}

/// A street camera at lamp height at the start of the long vehicle lane nearest `at`, looking
/// along it (the viewer's lanes.json, through the test hook); null without lanes.
export async function streetPose(page, at) {
  return page.evaluate((home) => {
    let best = null;
    for (const l of window.cityforge.lanes?.lanes ?? []) {
      if (!l.tags.includes('vehicle') || l.intersection !== -1 || l.points.length < 2 || l.length_m < 60) continue;
      const [x, y] = l.points[0];
      const d = Math.hypot(x - home.x, y - home.y);
      if (!best || d < best.d) best = { d, l };
    }
    if (!best) return null;
    const p = best.l.points;
    const yaw = (Math.atan2(p[1][1] - p[0][1], p[1][0] - p[0][0]) * 180) / Math.PI;
    return { x: p[0][0], y: p[0][1], z: p[0][2] + 7, yaw_deg: yaw, pitch_deg: -7, distance: 80 };
  }, at);
}

/// Bytes of the city's files the page fetched until `untilMs` (performance.now() time; all when
/// null): { tiles, other, count } by encoded body size (what went over the wire, no headers).
/// Needs performance.setResourceTimingBufferSize raised before the page loads (addInitScript).
export async function cityBytes(page, untilMs = null) {
  return page.evaluate((until) => {
    const out = { tiles: 0, other: 0, count: 0 };
    for (const e of performance.getEntriesByType('resource')) {
      if (!/\/city\//.test(e.name) || (until !== null && e.responseEnd > until)) continue;
      const n = e.encodedBodySize || e.transferSize || 0;
      if (/\/city\/tiles\//.test(e.name)) out.tiles += n;
      else out.other += n;
      out.count++;
    }
    return out;
  }, untilMs);
}
