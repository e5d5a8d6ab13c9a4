/**
 * What `login` says first on a terminal, before it asks anything: who you are
 * signed in as (the DID, how, where the key is saved) and what that key
 * controls when a registry can tell without being started: the domains it
 * controls in the registry the registry commands use (a running local daemon
 * or a configured remote one, with the saved API key), asked for at most 2 s.
 * When no registry answers, it says so in general terms.
 */
import { identityPath, principalDid, readIdentity } from './store.ts';

/** The domains a DID controls, or undefined when no registry answers in time (none is started for this). */
async function controlledDomains(
  did: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ids: string[]; more: boolean; where: string } | undefined> {
  try {
    const { registryClient } = await import('../registry/client.ts');
    const client = await registryClient({ autoStart: false, env });
    const page = await client.listDomains({ controller: did, limit: 10 }, AbortSignal.timeout(2000));
    return { ids: page.items.map((d) => d.id), more: Boolean(page.nextCursor), where: client.what };
  } catch {
    return undefined;
  }
}

export async function signedInLines(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  let id;
  try {
    id = readIdentity(env);
  } catch (e) {
    return [`The saved identity cannot be read (${(e as Error).message}); signing in replaces it, keeping a backup.`];
  }
  if (!id) return ['Not signed in yet.'];
  const did = principalDid(id);
  const lines = [
    `Signed in as ${did}${id.wallet ? ' (with your wallet)' : ''}`,
    `  key saved in ${identityPath(env)}${id.wallet ? `; local key ${id.did}` : ''}`,
  ];
  const domains = await controlledDomains(did, env);
  if (!domains)
    lines.push(
      '  its key controls the registry domains and API keys bound to it;',
      '  signing in with another key keeps it as a backup',
    );
  else if (domains.ids.length === 0) lines.push(`  it controls no domain in ${domains.where}`);
  else
    lines.push(
      `  it controls ${domains.ids.length}${domains.more ? '+' : ''} domain${domains.ids.length === 1 && !domains.more ? '' : 's'} in ${domains.where}: ${domains.ids.join(', ')}${domains.more ? ', …' : ''}`,
    );
  return lines;
}
