// SPDX-License-Identifier: Apache-2.0
// Driving-study scenarios in the viewer (issue 25, docs/scenarios.md): the served scenario,
// its runner (hazard triggers and actors, weather), the actors' meshes, and driver-input
// recording and replay.

export { ACTORS, applyScenarioWeather, createScenarioRunner, fogRange } from './runner.js';
export { createHazardActors } from './actors.js';
export {
  createInputPlayer,
  createInputRecorder,
  FIELDS,
  FORMAT,
  fromJSON,
  NEUTRAL,
  recordingMismatch,
  scriptedInputs,
} from './inputs.js';

/** GETs `${base}scenario.json` with fetchFn (fetch): the scenario object, or null when the
 *  server has none (404: serve without --scenario). Other HTTP errors and a body that is not
 *  a cityforge scenario throw. */
export async function loadScenario(fetchFn, base = '/') {
  const url = `${base}scenario.json`;
  const res = await fetchFn(url);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const spec = await res.json();
  if (!spec || spec.format !== 'cityforge-scenario') {
    throw new Error(`${url}: expected format "cityforge-scenario", got ${JSON.stringify(spec && spec.format)}`);
  }
  return spec;
}
