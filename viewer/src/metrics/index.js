// SPDX-License-Identifier: Apache-2.0
// Driver metrics: the recorder and its exports (docs/drive.md).
export { applyThresholds, createRecorder, THRESHOLDS, VEHICLE_DIMS, vehicleBox } from './recorder.js';
export { metricsObject, toJSON, samplesCSV, eventsCSV, SAMPLE_COLUMNS, EVENT_COLUMNS } from './export.js';
export { StopLines, planState, signalLaneIds } from './signals.js';
