// SPDX-License-Identifier: Apache-2.0
// Export of a recorder's metrics: one JSON document, or CSV (samples; events separately).
// Formats in docs/drive.md.

/** Columns of the samples CSV, in order. */
export const SAMPLE_COLUMNS = [
  't_s', 'sim_s', 'x', 'y', 'z', 'heading_deg', 'speed_mps', 'accel_mps2', 'lane',
  'speed_limit_mps', 'lateral_m', 'throttle', 'brake', 'steer',
];

/** Columns of the events CSV, in order (a field an event type lacks is empty). */
export const EVENT_COLUMNS = [
  'type', 't_s', 't_end_s', 'duration_s', 'sim_s', 'x', 'y', 'lane', 'speed_mps',
  'speed_limit_mps', 'max_speed_mps', 'max_excess_mps', 'distance_m', 'signal', 'connector',
  'approach_lane', 'pedestrian', 'ttc_min_s', 'min_distance_m', 'speed_at_min_ttc_mps', 'with',
  'other_id', 'other_kind', 'impact_speed_mps', 'side', 'max_lateral_m', 'max_excess_m',
  'ongoing',
];

function cell(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  const str = String(v);
  return /[",\n]/.test(str) ? `"${str.replace(/"/g, '""')}"` : str;
}

function csv(columns, rows) {
  const lines = [columns.join(',')];
  for (const r of rows) lines.push(columns.map((c) => cell(r[c])).join(','));
  return `${lines.join('\n')}\n`;
}

/** The metrics as a plain object (what exportJSON serialises). `meta`: {city, car, ...}. */
export function metricsObject(rec, meta = {}) {
  return {
    format: 'cityforge-drive-metrics',
    version: 1,
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

/** Samples, one row each, with a header line. */
export function samplesCSV(rec) {
  return csv(SAMPLE_COLUMNS, rec.samples());
}

/** Events, one row each, with a header line. */
export function eventsCSV(rec) {
  return csv(EVENT_COLUMNS, rec.events());
}
