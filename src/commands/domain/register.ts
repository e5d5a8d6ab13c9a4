import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { clientOptions, registryFlags } from '../../cli/registry-flags.ts';
import { parseServiceFlag, printDomain, type DomainOut } from '../../cli/registry-client.ts';

export default class DomainRegister extends BaseCommand {
  static override summary = 'Register a domain (the server assigns its did:ixo:entity: DID; your key’s DID becomes a controller).';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> domain register --type Protocol --name "Clean cookstoves v1"',
    '<%= config.bin %> domain register --type Project --class did:ixo:entity:0123456789abcdef0123456789abcdef --name "Kisumu stoves" --valid-until 2030-01-01T00:00:00Z',
    '<%= config.bin %> domain register --type Oracle --class did:ixo:entity:... --name "Usage oracle" --service "#api=oracleService,https://oracle.example.org"',
  ];
  static override flags = {
    type: Flags.string({ description: 'Domain type.', required: true, options: ['Organisation', 'Project', 'Asset', 'Device', 'Protocol', 'Oracle', 'Request'] }),
    class: Flags.string({ description: 'DID of a registered, active Protocol domain (required except for --type Protocol).' }),
    name: Flags.string({ description: 'metadata.name' }),
    metadata: Flags.string({ description: 'Metadata as a JSON object (name from --name is merged in).' }),
    'valid-from': Flags.string({ description: 'RFC 3339 date-time with a zone.' }),
    'valid-until': Flags.string({ description: 'RFC 3339 date-time with a zone, after --valid-from and in the future.' }),
    controller: Flags.string({ description: 'Another controller DID (repeatable; yours is added).', multiple: true }),
    service: Flags.string({ description: 'A service as id=type,url (repeatable), e.g. "#api=oracleService,https://host".', multiple: true }),
    'also-known-as': Flags.string({ description: 'A natural key, unique per class among live domains.' }),
    'idempotency-key': Flags.string({ description: 'Idempotency-Key header: a retry with the same key and body returns the same reply.' }),
    ...registryFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(DomainRegister);
    const body: Record<string, unknown> = { type: flags.type };
    if (flags.class) body.class = flags.class;
    let metadata: Record<string, unknown> | undefined;
    if (flags.metadata) metadata = JSON.parse(flags.metadata) as Record<string, unknown>;
    if (flags.name) metadata = { ...(metadata ?? {}), name: flags.name };
    if (metadata) body.metadata = metadata;
    if (flags['valid-from']) body.validFrom = flags['valid-from'];
    if (flags['valid-until']) body.validUntil = flags['valid-until'];
    if (flags.controller) body.controllers = flags.controller;
    if (flags.service) body.services = flags.service.map(parseServiceFlag);
    if (flags['also-known-as']) body.alsoKnownAs = flags['also-known-as'];
    const { call } = await import('../../cli/registry-client.ts');
    const headers: Record<string, string> = {};
    if (flags['idempotency-key']) headers['idempotency-key'] = flags['idempotency-key'];
    const r = await call<DomainOut>('POST', '/v1/domains', body, { ...clientOptions(flags), headers });
    if (flags.json) this.outJson(r.body);
    else printDomain(this, r.body);
  }
}
