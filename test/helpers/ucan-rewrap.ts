/**
 * The attack on content addresses: the same signed UCAN block under a CID
 * that is not the hash of its bytes (a CAR declares each block's CID; the
 * runtime must compute it, not trust it).
 */
import { CAR, CBOR, Delegation, createLink, sha256 } from '@ucanto/core';
import type * as API from '@ucanto/interface';

/** The token's root block (signed bytes unchanged) under a made-up CID, with its proofs as they were. */
export async function rewrap(token: string, salt: string): Promise<string> {
  const d = (await Delegation.extract(new Uint8Array(Buffer.from(token, 'base64')))).ok!;
  return encodeArchive(await underFakeCid(d, salt));
}

/** A view of the same signed block under a CID that is not the hash of its bytes. */
export async function underFakeCid(d: API.Delegation, salt: string): Promise<API.Delegation> {
  const fake = createLink(d.root.cid.code, await sha256.digest(new TextEncoder().encode(salt)));
  const blocks = new Map<string, API.Block>();
  for (const b of d.iterateIPLDBlocks()) if (b.cid.toString() !== d.root.cid.toString()) blocks.set(`${b.cid}`, b);
  return Delegation.create({ root: { cid: fake, bytes: d.root.bytes } as never, blocks: blocks as never });
}

async function encodeArchive(d: API.Delegation): Promise<string> {
  const blocks = new Map<string, API.Block>();
  for (const b of d.iterateIPLDBlocks()) blocks.set(`${b.cid}`, b);
  const variant = await CBOR.write({ 'ucan@0.9.1': d.root.cid });
  blocks.set(`${variant.cid}`, variant as API.Block);
  return Buffer.from(CAR.encode({ roots: [variant as API.Block], blocks })).toString('base64');
}
