import { Flags } from '@oclif/core';
import { BaseCommand } from '../../../cli/base.ts';
import { clientOptions, registryFlags } from '../../../cli/registry-flags.ts';

export default class KeysCreate extends BaseCommand {
  static override summary = 'Create an API key bound to a DID and roles. The key is shown once; the daemon stores only its hash.';
  static override description = 'Against the local daemon the CLI authenticates with the discovery token (readable only by you); against --registry it needs an --api-key with the admin role. Roles: admin, representative, voter, verifier, member.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> daemon keys create --did did:key:z6Mk... --role representative --save',
    '<%= config.bin %> daemon keys create --did did:example:verifier --role verifier --role member --json',
  ];
  static override flags = {
    did: Flags.string({ description: 'The principal DID the key acts as.', required: true }),
    role: Flags.string({ description: 'A role (repeatable).', required: true, multiple: true, options: ['admin', 'representative', 'voter', 'verifier', 'member'] }),
    label: Flags.string({ description: 'A note to recognise the key by.' }),
    save: Flags.boolean({ description: 'Save the key in the CLI settings (used when --api-key is not given).', default: false }),
    ...registryFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(KeysCreate);
    const { call, saveSettings } = await import('../../../cli/registry-client.ts');
    const body: Record<string, unknown> = { did: flags.did, roles: flags.role };
    if (flags.label) body.label = flags.label;
    const r = await call<{ id: string; key: string; did: string; roles: string[] }>('POST', '/admin/v1/keys', body, { ...clientOptions(flags), admin: true });
    let savedTo: string | undefined;
    if (flags.save) savedTo = await saveSettings({ apiKey: r.body.key, ...(flags.registry ? { registry: flags.registry } : {}) });
    if (flags.json) this.outJson({ ...r.body, savedTo: savedTo ?? null });
    else {
      this.out(`key ${r.body.id} for ${r.body.did} (${r.body.roles.join(', ')})`);
      this.out(r.body.key);
      this.out(savedTo ? `saved in ${savedTo}` : 'shown once: store it now (or re-run with --save)');
    }
  }
}
