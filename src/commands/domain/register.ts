import { BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { clientOptions, registryClient } from '../../cli/registry/client.ts';
import { DOMAIN_REGISTER_FLAGS } from '../../cli/registry/flags.ts';
import { domainBody } from '../../cli/registry/input.ts';
import { formatDomain } from '../../cli/registry/print.ts';

export default class DomainRegister extends BaseCommand {
  static override summary =
    'Register a domain (the server assigns its did:ixo:entity: DID; your key’s DID becomes a controller).';
  static override examples = [
    '<%= config.bin %> domain register --type Protocol --name "Clean cookstoves v1"',
    '<%= config.bin %> domain register --type Project --class did:ixo:entity:0123456789abcdef0123456789abcdef --name "Kisumu stoves" --valid-until 2030-01-01T00:00:00Z',
    '<%= config.bin %> domain register --type Oracle --class did:ixo:entity:... --name "Usage oracle" --service "#api=oracleService,https://oracle.example.org"',
  ];
  static override flags = toOclifFlags(DOMAIN_REGISTER_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(DomainRegister);
    const body = domainBody(flags);
    const d = await (await registryClient(clientOptions(flags))).registerDomain(body, flags['idempotency-key']);
    if (flags.json) this.outJson(d);
    else this.out(formatDomain(d));
  }
}
