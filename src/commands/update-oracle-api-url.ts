import { Args, BaseCommand, toOclifFlags } from '../cli/base.ts';
import type { Network } from '../cli/registry/settings.ts';
import { UPDATE_URL_FLAGS } from '../cli/scaffold/flags.ts';

export default class UpdateOracleApiUrl extends BaseCommand {
  static override summary = "Point the oracle's #api and #ws services in the registry at a new URL.";
  static override description =
    "Uses the DID of ./oracle.config.json (or --project, or --did). Checks that the new URL answers /health (and serves this DID) unless --no-check, updates the registry's #api and #ws services (If-Match on the version read), then oracle.config.json, — when the URL is local — PORT in .env, and every mention of the old URL or port in README.md and package.json's scripts, so the registered URL, the port the runtime listens on and the project's files keep agreeing. A local URL without a port means port 80 (443 for https): it says so.";
  static override examples = [
    '<%= config.bin %> update-oracle-api-url http://localhost:3100',
    '<%= config.bin %> update-oracle-api-url https://oracle.example.org --no-check',
    '<%= config.bin %> update-oracle-api-url https://oracle.example.org --did did:ixo:entity:0123456789abcdef0123456789abcdef --network testnet --json',
  ];
  static override args = {
    url: Args.string({ description: 'The new URL of the oracle (http or https).', required: true }),
  };
  static override flags = toOclifFlags(UPDATE_URL_FLAGS);

  async run(): Promise<void> {
    const { args, flags } = await this.parse(UpdateOracleApiUrl);
    const { updateOracleUrl } = await import('../cli/scaffold/update-url.ts');
    const r = await updateOracleUrl({
      url: args.url,
      did: flags.did,
      project: flags.project,
      check: flags.check,
      network: flags.network as Network | undefined,
      registry: flags.registry,
      apiKey: flags['api-key'],
    });
    if (flags.json) return this.outJson(r);
    const { formatUrlUpdate } = await import('../cli/scaffold/print.ts');
    this.out(formatUrlUpdate(r));
  }
}
