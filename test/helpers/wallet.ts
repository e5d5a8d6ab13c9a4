/** The wallet a QR sign-in test plays: a fresh Ed25519 did:key that signs what the sign-in asks and answers it. */
import { ed25519 } from '@noble/curves/ed25519.js';
import { signInMessage, type SignInRequest } from '../../src/cli/identity/qr.ts';
import { didKeyFromPublicKey } from '../../src/lib/keys/keys.ts';

export function testWallet() {
  const secret = ed25519.utils.randomSecretKey();
  const sign = (msg: string) => Buffer.from(ed25519.sign(new TextEncoder().encode(msg), secret)).toString('base64url');
  const did = didKeyFromPublicKey(ed25519.getPublicKey(secret));
  return {
    did,
    /** Its base64url Ed25519 signature of a message. */
    sign,
    /** Signs the request's message and posts it to the request's callback, as the wallet app does. */
    approve: (req: SignInRequest) =>
      fetch(req.callback, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ did, challenge: req.challenge, signature: sign(signInMessage(req)) }),
      }),
  };
}
