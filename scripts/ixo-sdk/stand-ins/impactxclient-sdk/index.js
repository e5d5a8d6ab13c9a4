// Stand-in for @ixo/impactxclient-sdk 3.0.0 (the cosmos/ixo chain client),
// which the npm registry does not serve. @ixo/oracles-chain-client's react
// entry imports these five names at load time and uses them only to build and
// sign chain transactions (authz grants, claim payments), which the oracle
// runtime's end-to-end suite never does. Any use throws, naming what was used,
// so a test that reaches the chain fails loudly instead of silently.
function unavailable(path) {
  const fail = () => {
    throw new Error(
      `@ixo/impactxclient-sdk stand-in: ${path} is not available (chain transactions are outside the ixo-sdk suite)`,
    );
  };
  return new Proxy(fail, {
    get(_target, prop) {
      // not a thenable, so `await` on it does not probe it
      if (prop === 'then' || typeof prop === 'symbol') return undefined;
      return unavailable(`${path}.${prop}`);
    },
    apply: fail,
    construct: fail,
  });
}

export const cosmos = unavailable('cosmos');
export const ixo = unavailable('ixo');
export const utils = unavailable('utils');
export const createRegistry = unavailable('createRegistry');
export const createQueryClient = unavailable('createQueryClient');
