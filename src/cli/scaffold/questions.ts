/**
 * The questions of `new`, each also a flag (ask.ts): how to sign in, the network, the oracle's name, description,
 * price and model, whether to install and to initialise git.
 */
import { askConfirm, askSelect, askText, type AskContext } from './ask.ts';
import { NETWORKS, type Network } from '../registry/networks.ts';
import type { AuthMethod } from '../identity/login.ts';

export interface Answers {
  auth: AuthMethod;
  network: Network;
  name: string;
  description: string;
  price: number;
  model: string;
  install: boolean;
  git: boolean;
}

const DEFAULT_MODEL = 'openai/gpt-4o-mini';

/**
 * The prices `new` accepts: 0 (free) or a positive decimal with at most 6 places — the credits ledger counts in
 * millionths, so a finer price would be rounded to another one (0.0000001 to 0, a free oracle that still asks to be
 * paid) — up to MAX_PRICE, where every sum of the ledger is still exact.
 */
const MAX_PRICE = 1_000_000_000;
const PRICE_VALID = `a number from 0 to ${MAX_PRICE} with at most 6 decimals (0 = free)`;

/** true, or what is wrong with the price, in the words of the prompt's unit (credits per turn). */
export function checkPrice(v: string): true | string {
  const t = v.trim();
  if (!/^-?\d*\.?\d*$/.test(t) || !/\d/.test(t) || /^\.|\.$/.test(t))
    return `${JSON.stringify(t)} is not a number: credits per turn, e.g. 0.5 (0 = free)`;
  if (t.startsWith('-')) return `${t} is below 0: credits per turn, 0 (free) or more`;
  const decimals = t.split('.')[1]?.length ?? 0;
  if (decimals > 6) return `${t} has ${decimals} decimals; at most 6 (the ledger counts millionths of a credit)`;
  if (Number(t) > MAX_PRICE) return `${t} is above ${MAX_PRICE}, the most the ledger sums exactly`;
  return true;
}

/** The answers: the saved identity's method unless --auth is given, then each question (flag, --yes, prompt). */
export async function askQuestions(
  ctx: AskContext,
  i: {
    projectName: string;
    savedAuth?: AuthMethod;
    auth?: AuthMethod;
    network?: Network;
    name?: string;
    description?: string;
    price?: string;
    model?: string;
    install?: boolean;
    git?: boolean;
  },
): Promise<Answers> {
  const auth =
    i.savedAuth && i.auth === undefined
      ? i.savedAuth
      : await askSelect<AuthMethod>(ctx, 'auth', i.auth, {
          message: 'How do you sign in?',
          default: 'mnemonic',
          choices: [
            { value: 'qr', name: 'QR code — sign with your wallet' },
            { value: 'mnemonic', name: 'Offline mnemonic (BIP39)' },
          ],
        });
  const network = await askSelect<Network>(ctx, 'network', i.network, {
    message: 'Which network registers your oracle?',
    default: 'local',
    choices: NETWORKS.map((n) => ({
      value: n,
      name: n === 'local' ? 'local — the daemon’s registry (development)' : n,
    })),
  });
  const name = await askText(ctx, 'name', i.name, {
    message: 'Oracle name',
    default: i.projectName,
    validate: (v) => (v.trim() !== '' && v.length <= 128 ? true : '1–128 characters'),
  });
  const description = await askText(ctx, 'description', i.description, {
    message: 'Description',
    default: `${name}: an oracle built with oraclekit`,
    validate: (v) => (v.length <= 1024 ? true : 'at most 1024 characters'),
  });
  const price = await askText(ctx, 'price', i.price, {
    message: 'Price in credits per turn (0 = free)',
    default: '0',
    validate: checkPrice,
    valid: PRICE_VALID,
  });
  const model = await askText(ctx, 'model', i.model, {
    message: 'Model (OpenAI-compatible id)',
    default: DEFAULT_MODEL,
    validate: (v) => (v.trim() !== '' ? true : 'a model id'),
  });
  const install = await askConfirm(ctx, 'install', i.install, {
    message: 'Install dependencies (npm install)?',
    default: true,
  });
  const git = await askConfirm(ctx, 'git', i.git, { message: 'Initialise a git repository?', default: true });
  return { auth, network, name, description, price: Number(price.trim()), model, install, git };
}
