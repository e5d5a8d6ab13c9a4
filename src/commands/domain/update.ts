import { Args, BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { DOMAIN_UPDATE_FLAGS } from '../../cli/registry/flags.ts';
import { domainBody } from '../../cli/registry/input.ts';
import { formatDomain } from '../../cli/registry/print.ts';

export default class DomainUpdate extends BaseCommand {
  static override summary =
    'Change a domain (controllers only). Changing type, class, controllers or services makes a verified domain ' +
    'registered again.';
  static override description =
    'Sends PATCH with If-Match: the version given by --if-match, else the version just read (so a concurrent ' +
    'change still answers 412).';
  static override examples = [
    '<%= config.bin %> domain update did:ixo:entity:... --name "New name"',
    '<%= config.bin %> domain update did:ixo:entity:... --controller did:example:a --controller did:example:b ' +
      '--if-match 3',
  ];
  static override args = { did: Args.string({ description: 'The domain DID.', required: true }) };
  static override flags = toOclifFlags(DOMAIN_UPDATE_FLAGS);

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainUpdate);
    const body = domainBody(flags);
    const reg = await registryClient(clientOptions(flags));
    // the current domain: for the If-Match version when not given, and for --name without --metadata
    const current =
      flags['if-match'] === undefined || (flags.name && !flags.metadata) ? await reg.getDomain(args.did) : undefined;
    if (current && flags.name && !flags.metadata) body.metadata = { ...current.metadata, name: flags.name };
    const d = await reg.updateDomain(args.did, body, flags['if-match'] ?? current!.version);
    if (flags.json) this.outJson(d);
    else this.out(formatDomain(d));
  }
}
