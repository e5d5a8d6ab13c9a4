// @ts-check
/**
 * Copies the voice-activity model and the part of its runtime that Node runs into dist/vad/, the files the package
 * ships (silero.ts loads them):
 * - onnxruntime-web's Node build and its WebAssembly CPU backend (ort.node.min.js as ort.node.min.cjs, ort-wasm-simd-threaded.{mjs,wasm}),
 *   about 14 MB of the package's 139 MB (the rest is for browsers: WebGPU, WebGL, JSPI and bundles);
 * - Silero VAD's weights (silero_vad.onnx), as @ricky0123/vad-web ships them.
 * Both are MIT licensed; dist/vad/NOTICE.md says where each file comes from. No file is fetched: both packages are
 * devDependencies of this one, installed from the npm registry.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const here = dirname(new URL(import.meta.url).pathname);
const out = join(here, '..', 'dist', 'vad');
const require = createRequire(import.meta.url);

const ortDist = dirname(require.resolve('onnxruntime-web')); // the "node" + "require" export: dist/ort.node.min.js
const ortVersion = JSON.parse(readFileSync(join(ortDist, '..', 'package.json'), 'utf8')).version;
const vadWeb = dirname(require.resolve('@ricky0123/vad-web/package.json'));
const vadVersion = JSON.parse(readFileSync(join(vadWeb, 'package.json'), 'utf8')).version;

mkdirSync(out, { recursive: true });
// the CommonJS build, named .cjs in this package of ES modules; it imports its WebAssembly module's loader beside it
copyFileSync(join(ortDist, 'ort.node.min.js'), join(out, 'ort.node.min.cjs'));
for (const f of ['ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'])
  copyFileSync(join(ortDist, f), join(out, f));
copyFileSync(join(vadWeb, 'dist', 'silero_vad_v6.onnx'), join(out, 'silero_vad.onnx'));
writeFileSync(
  join(out, 'NOTICE.md'),
  `# Third-party files\n\n` +
    `- ort.node.min.cjs (ort.node.min.js), ort-wasm-simd-threaded.mjs, ort-wasm-simd-threaded.wasm: ONNX Runtime Web ${ortVersion} ` +
    `(npm package onnxruntime-web), Copyright (c) Microsoft Corporation, MIT License.\n` +
    `- silero_vad.onnx: Silero VAD, Copyright (c) 2020-present Silero Team, MIT License; the file as the npm ` +
    `package @ricky0123/vad-web ${vadVersion} ships it (dist/silero_vad_v6.onnx).\n`,
);
