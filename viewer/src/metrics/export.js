// SPDX-License-Identifier: Apache-2.0
// Export of a recorder's metrics: one JSON document, or CSV (samples; events separately).
// Formats in docs/drive.md.

/** Columns of the samples CSV, in order. */
export const SAMPLE_COLUMNS = [
  't_s', 'sim_s', 'x', 'y', 'z', 'heading_deg', 'speed_mps', 'accel_mps2', 'lane',
  'speed_limit_mps', 'lateral_m', 'throttle', 'brake', 'steer', 'steer_rad', 'view_heading_deg',
];

/** Columns of the events CSV, in order (a field an event type lacks is empty). */
export const EVENT_COLUMNS = [
  'type', 't_s', 't_end_s', 'duration_s', 'sim_s', 'x', 'y', 'lane', 'speed_mps',
  'speed_limit_mps', 'max_speed_mps', 'max_excess_mps', 'distance_m', 'signal', 'connector',
  'approach_lane', 'pedestrian', 'ttc_min_s', 'min_distance_m', 'speed_at_min_ttc_mps', 'with',
  'other_id', 'other_kind', 'impact_speed_mps', 'side', 'max_lateral_m', 'max_excess_m',
  'ongoing', 'contact_x', 'contact_y', 'peak_accel_mps2', 'max_off_road_deg', 'hazard_id',
  'hazard_kind', 'onset_t_s', 'reaction', 'reaction_time_s', 'collision', 'at_x', 'at_y',
  'heading_rad', 'throw_m', 'rest_x', 'rest_y',
];

function cell(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  const str = String(v);
  return /[",\n]/.test(str) ? `"${str.replace(/"/g, '""')}"` : str;
}

// The run's identity as a comment line before the header, only when a scenario is given.
function identity(meta) {
  const sc = meta?.scenario;
  if (!sc) return [];
  const clean = (v) => String(v ?? '').replace(/[\s\r\n]+/g, '_');
  return [`# scenario=${clean(sc.name)} seed=${clean(sc.seed)} file_hash=${clean(sc.file_hash)}`];
}

function csv(columns, rows, meta) {
  const lines = [...identity(meta), columns.join(',')];
  for (const r of rows) lines.push(columns.map((c) => cell(r[c])).join(','));
  return `${lines.join('\n')}\n`;
}

/** The metrics as a plain object (what exportJSON serialises). `meta`: {city, car,
 *  exported_at, scenario: {name, seed, file_hash}}; the scenario, when given, follows the
 *  format and version. */
export function metricsObject(rec, meta = {}) {
  const sc = meta.scenario;
  return {
    format: 'cityforge-drive-metrics',
    version: 1,
    ...(sc ? { scenario: { name: sc.name ?? null, seed: sc.seed ?? null, file_hash: sc.file_hash ?? null } } : {}),
    city: meta.city ?? null,
    started_at_sim_s: rec.startedAt(),
    ...(meta.exported_at ? { exported_at: meta.exported_at } : {}),
    car: meta.car ?? null,
    thresholds: { ...rec.thresholds },
    summary: rec.summary(),
    events: rec.events(),
    samples: rec.samples(),
  };
}

export function toJSON(rec, meta = {}) {
  return JSON.stringify(metricsObject(rec, meta));
}

/** Samples, one row each, with a header line (after "# scenario=... seed=... file_hash=..."
 *  when meta.scenario is given). */
export function samplesCSV(rec, meta = {}) {
  return csv(SAMPLE_COLUMNS, rec.samples(), meta);
}

/** Events, one row each, with a header line (after the scenario line, as samplesCSV). */
export function eventsCSV(rec, meta = {}) {
  return csv(EVENT_COLUMNS, rec.events(), meta);
}
