// SPDX-License-Identifier: Apache-2.0
// Validates glTF/GLB files with the Khronos glTF validator and prints a one-line summary each
// (files without errors are summed up in one line when there are more than one). Images and
// buffers the files refer to by URI are read relative to each file and validated with it.
// Usage: node validate.mjs FILE.glb [FILE.glb ...]
// Exit codes: 0 no errors, 1 the validator reported errors, 2 usage, I/O or validator failure.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

const kMaxShown = 5;
const kSeverity = ['error', 'warning', 'info', 'hint'];

async function main(argv) {
  if (argv.length < 1) {
    console.error('usage: node validate.mjs FILE.glb [FILE.glb ...]');
    return 2;
  }
  let worst = 0;
  let clean = 0;
  for (const file of argv) {
    const rc = await validateFile(file, argv.length > 1);
    if (rc === 0) clean++;
    worst = Math.max(worst, rc);
  }
  if (argv.length > 1) console.log(`${clean} of ${argv.length} files without errors`);
  return worst;
}

async function validateFile(file, quietWhenClean) {
  let bytes;
  try {
    bytes = await readFile(file);
  } catch (err) {
    console.error(`${file}: cannot read: ${err.message}`);
    return 2;
  }
  let validator;
  try {
    // The package's CommonJS entry is the one documented for Node.
    validator = createRequire(import.meta.url)('gltf-validator');
  } catch (err) {
    console.error(`cannot load gltf-validator (run npm ci in this folder): ${err.message}`);
    return 2;
  }
  let report;
  try {
    // External images and buffers (the 3D Tiles leaves' shared textures) are read relative to
    // the file and validated too; one that cannot be read is an error.
    const externalResourceFunction = (uri) =>
      readFile(path.resolve(path.dirname(file), decodeURIComponent(uri))).then((b) => new Uint8Array(b));
    // maxIssues 0: the validator stops validating once it has that many issues of any severity
    // (a city's thousands of 'may be unused' infos used to end it before the images).
    report = await validator.validateBytes(new Uint8Array(bytes), { uri: file, maxIssues: 0, externalResourceFunction });
  } catch (err) {
    console.error(`${file}: validator failed: ${err}`);
    return 2;
  }
  const issues = report.issues;
  const shown = [...issues.messages]
    .sort((a, b) => a.severity - b.severity)
    .slice(0, kMaxShown)
    .map((m) => `[${kSeverity[m.severity] ?? m.severity}] ${m.code} ${m.pointer ?? ''}: ${m.message}`);
  if (quietWhenClean && issues.numErrors === 0) return 0;
  console.log(
    `${file}: ${issues.numErrors} errors, ${issues.numWarnings} warnings, ${issues.numInfos} infos, ` +
      `${issues.numHints} hints (validator ${report.validatorVersion})` +
      (shown.length ? `; ${shown.join('; ')}` : ''));
  return issues.numErrors > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
