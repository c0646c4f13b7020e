// SPDX-License-Identifier: Apache-2.0
// The dashboard shown while driving (chase and cockpit cameras): speed in km/h, gear, an rpm
// bar and the speed limit of the current lane. formatDashboard is pure (node tests run it);
// createDashboard is the small DOM overlay that shows its result.

const KMH_PER_MPS = 3.6;

/** The limit to show (m/s, or null): the lane's speed_limit_mps, except on connectors inside
 *  junctions (their limits are turning speeds) and off road, where the last road lane's limit
 *  holds, as for the speeding metric. `prev`: what the last call returned. */
export function roadLimit(prev, state) {
  if (!state || state.connector || state.lane === null || state.lane === undefined) return prev ?? null;
  const v = state.speed_limit_mps;
  return Number.isFinite(v) && v > 0 ? v : null;
}

/** Gear label: R (negative), N (0), else the gear number. */
export function gearLabel(gear) {
  if (!Number.isFinite(gear)) return '';
  if (gear < 0) return 'R';
  if (gear === 0) return 'N';
  return String(Math.round(gear));
}

/** What the dashboard shows for a car state (drive.state(): speed_mps, gear, rpm,
 *  speed_limit_mps, lane, connector). opts: {limit_mps (roadLimit's), idle_rpm,
 *  redline_rpm (the vehicle file's engine, default 800 / 7000), tolerance_frac (0.05),
 *  tolerance_mps (0.556): the speeding metric's}. Returns {speed_kmh, speed_text, gear,
 *  rpm, rpm_frac (0..1 of the redline, null without rpm), rpm_text, redline (>= 90 %),
 *  limit_kmh (null: none), limit_text, over_limit}. */
export function formatDashboard(state, opts = {}) {
  const redline = opts.redline_rpm ?? 7000;
  const v = Math.abs(Number.isFinite(state?.speed_mps) ? state.speed_mps : 0);
  const speed_kmh = Math.round(v * KMH_PER_MPS);
  const rpm = Number.isFinite(state?.rpm) ? Math.max(0, state.rpm) : null;
  const rpm_frac = rpm === null ? null : Math.min(1, rpm / redline);
  const limit = opts.limit_mps !== undefined ? opts.limit_mps : roadLimit(null, state);
  const limit_kmh = Number.isFinite(limit) && limit > 0 ? Math.round(limit * KMH_PER_MPS) : null;
  const tol = limit_kmh === null ? 0 : Math.max((opts.tolerance_frac ?? 0.05) * limit, opts.tolerance_mps ?? 0.556);
  return {
    speed_kmh,
    speed_text: String(speed_kmh),
    gear: gearLabel(state?.gear),
    rpm,
    rpm_frac,
    rpm_text: rpm === null ? '' : String(Math.round(rpm / 100) * 100),
    redline: rpm !== null && rpm >= 0.9 * redline,
    limit_kmh,
    limit_text: limit_kmh === null ? '–' : String(limit_kmh),
    over_limit: limit_kmh !== null && v > limit + tol,
  };
}

const CSS = {
  root: 'position:fixed;right:16px;bottom:16px;z-index:20;display:none;align-items:center;gap:12px;'
    + 'padding:8px 14px;border-radius:10px;background:rgba(10,12,18,0.72);color:#f2f4f8;'
    + 'font:600 14px/1.1 system-ui,sans-serif;pointer-events:none;user-select:none',
  speed: 'font-size:34px;min-width:2.2em;text-align:right;font-variant-numeric:tabular-nums',
  unit: 'font-size:11px;opacity:0.7;margin-left:-8px;align-self:flex-end;padding-bottom:5px',
  gear: 'font-size:22px;min-width:1.2em;text-align:center;padding:2px 6px;border:1px solid #6b7280;border-radius:4px',
  rpm: 'display:flex;flex-direction:column;gap:3px;font-size:10px;opacity:0.9',
  bar: 'width:90px;height:8px;background:#2b2f3a;border-radius:4px;overflow:hidden',
  fill: 'height:100%;width:0%;background:#4ade80',
  limit: 'width:34px;height:34px;border-radius:50%;border:5px solid #d92b2b;background:#fff;color:#111;'
    + 'display:flex;align-items:center;justify-content:center;font-size:13px;box-sizing:border-box',
};

/** The overlay (a div appended to `parent`, hidden until show(true)). update(state, opts)
 *  shows formatDashboard's result and keeps the last road limit; returns it. */
export function createDashboard(doc = globalThis.document, parent = doc?.body) {
  const el = (tag, css, text = '') => {
    const e = doc.createElement(tag);
    e.style.cssText = css;
    if (text) e.textContent = text;
    return e;
  };
  const root = el('div', CSS.root);
  root.id = 'drive-dashboard';
  const speed = el('div', CSS.speed, '0');
  const unit = el('div', CSS.unit, 'km/h');
  const gear = el('div', CSS.gear, '');
  const rpm = el('div', CSS.rpm);
  const rpmText = el('div', '', 'rpm');
  const bar = el('div', CSS.bar);
  const fill = el('div', CSS.fill);
  bar.appendChild(fill);
  rpm.appendChild(bar);
  rpm.appendChild(rpmText);
  const limit = el('div', CSS.limit, '–');
  limit.title = 'speed limit of this lane (km/h)';
  for (const e of [speed, unit, gear, rpm, limit]) root.appendChild(e);
  if (parent) parent.appendChild(root);
  let limit_mps = null;
  return {
    root,
    show(on) {
      root.style.display = on ? 'flex' : 'none';
    },
    /** Forgets the held limit (a new drive). */
    reset() {
      limit_mps = null;
    },
    update(state, opts = {}) {
      limit_mps = roadLimit(limit_mps, state);
      const d = formatDashboard(state, { ...opts, limit_mps });
      speed.textContent = d.speed_text;
      speed.style.color = d.over_limit ? '#ff6b6b' : '';
      gear.textContent = d.gear;
      rpm.style.display = d.rpm === null ? 'none' : 'flex';
      fill.style.width = `${Math.round((d.rpm_frac ?? 0) * 100)}%`;
      fill.style.background = d.redline ? '#ef4444' : '#4ade80';
      rpmText.textContent = d.rpm === null ? '' : `${d.rpm_text} rpm`;
      limit.textContent = d.limit_text;
      limit.style.opacity = d.limit_kmh === null ? '0.35' : '1';
      return d;
    },
    dispose() {
      root.remove();
    },
  };
}
