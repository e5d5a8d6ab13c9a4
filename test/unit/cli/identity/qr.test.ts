/**
 * What the terminal shows for a QR sign-in (signInScreen): the QR code of the
 * request's URL, the URL and the code under it, all within an 80x24 terminal;
 * the URL and the code alone where the QR code cannot fit; a warning when the
 * callback is on loopback, which a phone cannot reach.
 */
import { describe, expect, it } from 'vitest';
import qrcode from 'qrcode-terminal';
import { signInCode, signInScreen, type SignInRequest } from '../../../../src/cli/identity/qr.ts';

const request = (callback: string): SignInRequest => ({
  v: 1,
  challenge: 'q2bW5yYXRlLWNoYWxsZW5nZS1vZi0zMi1ieXRlcy1oZXJl',
  callback,
  aud: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
  exp: 1_800_000_000,
});
const qrOf = (text: string) =>
  new Promise<string>((ok) => qrcode.generate(text, { small: true }, (q: string) => ok(q)));
const screenOf = async (callback: string, o: { tty: boolean; rows: number; columns: number }) => {
  const r = request(callback);
  return signInScreen(r, `oraclekit:signin?v=1&callback=${callback}`, await qrOf(callback), { ...o, waitS: 120 });
};

describe('the QR sign-in screen', () => {
  it('fits an 80x24 terminal with the spinner line: QR code, URL, code and the loopback warning', async () => {
    const url = 'http://127.0.0.1:45678/signin/Ab3dEf6hIj9k';
    const s = await screenOf(url, { tty: true, rows: 24, columns: 80 });
    const lines = s.split('\n');
    expect(lines.length + 1).toBeLessThanOrEqual(24);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
    expect(s).toContain((await qrOf(url)).trimEnd());
    expect(s).toContain(`or open ${url} in your wallet`);
    expect(s).toContain(`the code ${signInCode(request(url).challenge)}`);
    expect(s).toContain('warning: the callback is on 127.0.0.1, which a phone cannot reach');
    expect(s).toContain('--callback-host 0.0.0.0');
    expect(s).not.toContain('oraclekit:signin'); // the long link would not fit
  });

  it('a terminal too small for the QR code gets the URL and the code instead', async () => {
    const url = 'http://127.0.0.1:45678/signin/Ab3dEf6hIj9k';
    for (const size of [
      { rows: 18, columns: 80 },
      { rows: 40, columns: 24 },
    ]) {
      const s = await screenOf(url, { tty: true, ...size });
      expect(s).not.toMatch(/[▀▄█]/);
      expect(s).toContain(`  ${url}`);
      expect(s).toContain(`the code ${signInCode(request(url).challenge)}`);
    }
  });

  it('a public callback URL gets no warning; off a terminal the full link is printed too', async () => {
    const url = 'https://signin.example.org/signin/Ab3dEf6hIj9k';
    const tty = await screenOf(url, { tty: true, rows: 24, columns: 80 });
    expect(tty).not.toContain('warning');
    expect(tty).toMatch(/[▀▄█]/);
    const piped = await screenOf(url, { tty: false, rows: 24, columns: 80 });
    expect(piped).toContain(`oraclekit:signin?v=1&callback=${url}`);
  });

  it('the code is 8 characters of base32 (no I, L, O, U) from the challenge', () => {
    expect(signInCode('a')).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(signInCode('a')).toBe(signInCode('a'));
    expect(signInCode('a')).not.toBe(signInCode('b'));
  });
});
