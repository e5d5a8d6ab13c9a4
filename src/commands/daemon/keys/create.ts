import { BaseCommand, toOclifFlags } from '../../../cli/base.ts';
import { clientOptions, registryClient } from '../../../cli/registry/client.ts';
import { makeKeyProof } from '../../../cli/registry/key-proof.ts';
import { saveSettings } from '../../../cli/registry/settings.ts';
import { DAEMON_KEYS_CREATE_FLAGS } from '../../../cli/daemon/flags.ts';

export default class KeysCreate extends BaseCommand {
  static override summary =
    'Create an API key bound to a DID and roles. The key is shown once; the daemon stores only its hash.';
  static override description =
    'Against the local daemon the CLI authenticates with the discovery token (readable only by you); against --registry it needs an --api-key with the admin role. Roles: admin, representative, voter, verifier, member, or reader alone (a read-only key: any write is 403 read_only_key).';
  static override examples = [
    '<%= config.bin %> daemon keys create --did did:key:z6Mk... --role representative --save',
    '<%= config.bin %> daemon keys create --did did:example:verifier --role verifier --role member --json',
  ];
  static override flags = toOclifFlags(DAEMON_KEYS_CREATE_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(KeysCreate);
    const proof = flags.prove ? await makeKeyProof(flags.did, flags.role) : undefined;
    const k = await (
      await registryClient(clientOptions(flags))
    ).createKey({
      did: flags.did,
      roles: flags.role,
      ...(flags.label ? { label: flags.label } : {}),
      ...(proof ? { proof } : {}),
    });
    const savedTo = flags.save
      ? await saveSettings({ apiKey: k.key, ...(flags.registry ? { registry: flags.registry } : {}) })
      : undefined;
    if (flags.json) this.outJson({ ...k, savedTo: savedTo ?? null });
    else {
      this.out(`key ${k.id} for ${k.did} (${k.roles.join(', ')})`);
      this.out(k.key);
      this.out(savedTo ? `saved in ${savedTo}` : 'shown once: store it now (or re-run with --save)');
    }
  }
}
