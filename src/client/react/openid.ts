/**
 * getOpenIdToken / useGetOpenIdToken: a Matrix OpenID token for the user
 * (`POST /_matrix/client/v3/user/{userId}/openid/request_token`, Matrix
 * client-server API), with the user's Matrix access token from the wallet.
 * Services that trust the user's Matrix identity verify it with the homeserver.
 */
import { useCallback, useState } from 'react';
import { useOraclesContext } from './context.tsx';
import { errorFromResponse, OracleUnreachableError } from '../errors.ts';

export interface OpenIdToken {
  access_token: string;
  token_type: string;
  matrix_server_name: string;
  expires_in: number;
}

export async function getOpenIdToken(o: {
  baseUrl: string;
  userId: string;
  accessToken: string;
  fetch?: typeof fetch;
}): Promise<OpenIdToken> {
  const f = o.fetch ?? fetch;
  const url = `${o.baseUrl.replace(/\/+$/, '')}/_matrix/client/v3/user/${encodeURIComponent(o.userId)}/openid/request_token`;
  let res: Response;
  try {
    res = await f(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${o.accessToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
  } catch (e) {
    throw new OracleUnreachableError(o.baseUrl, e);
  }
  if (!res.ok) throw await errorFromResponse(res);
  return (await res.json()) as OpenIdToken;
}

export function useGetOpenIdToken(): {
  getOpenIdToken: () => Promise<OpenIdToken>;
  token: OpenIdToken | undefined;
  isLoading: boolean;
  error: Error | undefined;
} {
  const { wallet } = useOraclesContext();
  const [token, setToken] = useState<{ t: OpenIdToken; until: number } | undefined>();
  const [isLoading, setLoading] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const get = useCallback(async () => {
    if (token && token.until > Date.now()) return token.t;
    const m = wallet.matrix;
    if (!m) throw new Error('the wallet has no Matrix account (initialWallet.matrix {baseUrl, userId, accessToken})');
    setLoading(true);
    try {
      const t = await getOpenIdToken(m);
      // renew a minute early
      setToken({ t, until: Date.now() + Math.max(0, t.expires_in - 60) * 1000 });
      setError(undefined);
      return t;
    } catch (e) {
      setError(e as Error);
      throw e;
    } finally {
      setLoading(false);
    }
  }, [wallet, token]);
  return { getOpenIdToken: get, token: token?.t, isLoading, error };
}
