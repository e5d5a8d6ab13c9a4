/**
 * oclif's `init` hook: `oraclekit --version` (and the VERSION line of
 * `oraclekit --help`) tell the versions the package carries, in the words the
 * runtime uses for itself: `oraclekit/<package version> <platform>-<arch>
 * node-v… (runtime v<RUNTIME_VERSION>, protocol v<PROTOCOL_VERSION>)`; an
 * oracle runtime prints the same `runtime v<RUNTIME_VERSION>` at boot and
 * reports it on /health (docs/cli.md, "Versions").
 */
import type { Hook } from '@oclif/core';
import { PROTOCOL_VERSION, RUNTIME_VERSION } from '../../lib/protocol/version.ts';

const hook: Hook.Init = async function (opts) {
  const suffix = ` (runtime v${RUNTIME_VERSION}, protocol v${PROTOCOL_VERSION})`;
  if (!opts.config.userAgent.endsWith(suffix)) (opts.config as { userAgent: string }).userAgent += suffix;
};

export default hook;
