import { BaseCommand, REGISTRY_FLAGS, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { domainBody } from '../../cli/registry/input.ts';
import { formatDomain } from '../../cli/registry/print.ts';

export default class DomainRegister extends BaseCommand {
  static override summary =
    'Register a domain (the server assigns its did:ixo:entity: DID; your key’s DID becomes a controller).';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> domain register --type Protocol --name "Clean cookstoves v1"',
    '<%= config.bin %> domain register --type Project --class did:ixo:entity:0123456789abcdef0123456789abcdef --name "Kisumu stoves" --valid-until 2030-01-01T00:00:00Z',
    '<%= config.bin %> domain register --type Oracle --class did:ixo:entity:... --name "Usage oracle" --service "#api=oracleService,https://oracle.example.org"',
  ];
  static override flags = toOclifFlags({
    type: {
      type: 'string',
      description: 'Domain type.',
      required: true,
      options: ['Organisation', 'Project', 'Asset', 'Device', 'Protocol', 'Oracle', 'Request'],
    },
    class: {
      type: 'string',
      description: 'DID of a registered, active Protocol domain (required except for --type Protocol).',
    },
    name: { type: 'string', description: 'metadata.name' },
    metadata: { type: 'string', description: 'Metadata as a JSON object (name from --name is merged in).' },
    'valid-from': { type: 'string', description: 'RFC 3339 date-time with a zone.' },
    'valid-until': {
      type: 'string',
      description: 'RFC 3339 date-time with a zone, after --valid-from and in the future.',
    },
    controller: { type: 'string', description: 'Another controller DID (repeatable; yours is added).', multiple: true },
    service: {
      type: 'string',
      description: 'A service as id=type,url (repeatable), e.g. "#api=oracleService,https://host".',
      multiple: true,
    },
    'also-known-as': { type: 'string', description: 'A natural key, unique per class among live domains.' },
    'idempotency-key': {
      type: 'string',
      description: 'Idempotency-Key header: a retry with the same key and body returns the same reply.',
    },
    ...REGISTRY_FLAGS,
  });

  async run(): Promise<void> {
    const { flags } = await this.parse(DomainRegister);
    const body = domainBody(flags);
    const d = await (await registryClient(clientOptions(flags))).registerDomain(body, flags['idempotency-key']);
    if (flags.json) this.outJson(d);
    else this.out(formatDomain(d));
  }
}
