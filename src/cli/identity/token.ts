/**
 * `oraclekit token`: a UCAN invocation of `oracle/use` on an oracle, signed
 * with the saved identity's key (the key the chat signs with), for calling
 * the oracle's API by hand, as `gh auth token` prints a token for curl:
 *
 *   curl -H "Authorization: Bearer $(oraclekit token --oracle $ORACLE)" -H 'X-Auth-Type: ucan' $ORACLE/sessions
 *
 * The oracle is found as the chat finds it (--oracle URL or DID, else
 * ./oracle.config.json, else the local daemon's default oracle); its DID
 * (the token's audience) comes from the registry, the config or, for a URL,
 * its /health. A bearer credential: anyone holding it acts as you on that
 * oracle until it expires (at most 900 s, the runtime's limit).
 */
import { cliError, OracleKitError } from '../errors.ts';

interface TokenReply {
  token: string;
  /** The header value, ready to send: `Bearer <token>` (with `X-Auth-Type: ucan`). */
  authorization: string;
  authType: 'ucan';
  oracleDid: string;
  url: string;
  /** The key that signed it: the user the oracle sees. */
  issuer: string;
  expiresAt: string;
  ttlSeconds: number;
}

export async function mintToken(o: {
  oracle?: string;
  registry?: string;
  apiKey?: string;
  mnemonicFile?: string;
  ttlSeconds: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<TokenReply> {
  const { readIdentity } = await import('./store.ts');
  if (!o.mnemonicFile && !readIdentity(o.env))
    throw cliError('not_logged_in', 'not signed in: run `oraclekit login` (or pass --mnemonic-file)');
  const [{ resolveTarget }, { loadIdentity }, { OracleClient }, { OracleClientError }, { mintInvocation }] =
    await Promise.all([
      import('../chat/connect.ts'),
      import('../chat/identity.ts'),
      import('../../client/client.ts'),
      import('../../client/errors.ts'),
      import('../../lib/ucan/ucan.ts'),
    ]);
  const target = await resolveTarget({ ...o, env: o.env });
  const identity = await loadIdentity({ mnemonicFile: o.mnemonicFile, env: o.env });
  let oracleDid = target.oracleDid;
  if (!oracleDid) {
    try {
      oracleDid = (await new OracleClient({ baseUrl: target.apiUrl }).health()).oracleDid;
    } catch (e) {
      if (!(e instanceof OracleClientError)) throw e;
      const { explainError } = await import('../../ui/chat-controller.ts');
      throw new OracleKitError({
        status: e.status === 0 ? 503 : e.status,
        code: e.code,
        message: `cannot learn the oracle's DID from ${target.apiUrl}/health: ${explainError(e, target.apiUrl)}`,
        field: 'oracle',
      });
    }
  }
  const expiration = Math.floor(Date.now() / 1000) + o.ttlSeconds;
  const token = await mintInvocation({ issuer: identity.signer, audience: oracleDid, expiration });
  return {
    token,
    authorization: `Bearer ${token}`,
    authType: 'ucan',
    oracleDid,
    url: target.apiUrl,
    issuer: identity.did,
    expiresAt: new Date(expiration * 1000).toISOString(),
    ttlSeconds: o.ttlSeconds,
  };
}
