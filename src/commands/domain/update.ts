import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { encodeDid, parseServiceFlag, printDomain, type DomainOut } from '../../cli/registry-client.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';

export default class DomainUpdate extends BaseCommand {
  static override summary = 'Change a domain (controllers only). Changing type, class, controllers or services makes a verified domain registered again.';
  static override description = 'Sends PATCH with If-Match: the version given by --if-match, else the version just read (so a concurrent change still answers 412).';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> domain update did:ixo:entity:... --name "New name"',
    '<%= config.bin %> domain update did:ixo:entity:... --controller did:example:a --controller did:example:b --if-match 3',
  ];
  static override args = { did: Args.string({ description: 'The domain DID.', required: true }) };
  static override flags = {
    name: Flags.string({ description: 'metadata.name (other metadata kept).' }),
    metadata: Flags.string({ description: 'Replace metadata with this JSON object.' }),
    class: Flags.string({ description: 'New class (a Protocol domain DID).' }),
    controller: Flags.string({ description: 'The new full list of controllers (repeatable).', multiple: true }),
    service: Flags.string({ description: 'The new full list of services as id=type,url (repeatable).', multiple: true }),
    'valid-from': Flags.string({ description: 'RFC 3339 with a zone.' }),
    'valid-until': Flags.string({ description: 'RFC 3339 with a zone.' }),
    'also-known-as': Flags.string({ description: 'Natural key.' }),
    'if-match': Flags.integer({ description: 'The version you expect (412 if it moved on).' }),
    ...registryFlags,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(DomainUpdate);
    const { call } = await import('../../cli/registry-client.ts');
    const opts = clientOptions(flags);
    const path = `/v1/domains/${encodeDid(args.did)}`;
    let version = flags['if-match'];
    let current: DomainOut | undefined;
    if (version === undefined || (flags.name && !flags.metadata)) {
      current = (await call<DomainOut>('GET', path, undefined, opts)).body;
      version ??= current.version;
    }
    const body: Record<string, unknown> = {};
    if (flags.metadata) body.metadata = JSON.parse(flags.metadata);
    if (flags.name) body.metadata = { ...((body.metadata as object | undefined) ?? current?.metadata ?? {}), name: flags.name };
    if (flags.class) body.class = flags.class;
    if (flags.controller) body.controllers = flags.controller;
    if (flags.service) body.services = flags.service.map(parseServiceFlag);
    if (flags['valid-from']) body.validFrom = flags['valid-from'];
    if (flags['valid-until']) body.validUntil = flags['valid-until'];
    if (flags['also-known-as']) body.alsoKnownAs = flags['also-known-as'];
    const r = await call<DomainOut>('PATCH', path, body, { ...opts, headers: { 'if-match': `"${version}"` } });
    if (flags.json) this.outJson(r.body);
    else printDomain(this, r.body);
  }
}
