import { BaseCommand } from '../../../cli/base.ts';
import { clientOptions, registryFlags } from '../../../cli/registry-flags.ts';
import { textTable } from '../../../cli/output.ts';

interface KeyRow {
  id: string;
  prefix: string;
  did: string;
  roles: string[];
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export default class KeysList extends BaseCommand {
  static override summary = 'List API keys (ids, DIDs, roles; never the secrets).';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> daemon keys list', '<%= config.bin %> daemon keys list --json'];
  static override flags = { ...registryFlags };

  async run(): Promise<void> {
    const { flags } = await this.parse(KeysList);
    const { call } = await import('../../../cli/registry-client.ts');
    const r = await call<{ items: KeyRow[] }>('GET', '/admin/v1/keys', undefined, { ...clientOptions(flags), admin: true });
    if (flags.json) return this.outJson(r.body);
    this.out(textTable(['id', 'did', 'roles', 'created', 'revoked', 'label'], r.body.items.map((k) => [k.id, k.did, k.roles.join(','), k.createdAt, k.revokedAt ?? '', k.label ?? ''])));
  }
}
