/**
 * A LiveKit signalling client on the `/rtc` WebSocket, as a stranger would
 * write one: it joins with a token and sends whatever SignalRequests it likes
 * (no ICE, no media), recording every SignalResponse and how the connection
 * ended. Tests attack the embedded endpoint with it.
 */
import WebSocket from 'ws';
import { SignalRequest, SignalResponse } from '@livekit/protocol';

export interface SignalClient {
  ws: WebSocket;
  responses: SignalResponse[];
  /** Resolves with the close code once the endpoint (or the client) closed the connection. */
  closed: Promise<number>;
  isOpen(): boolean;
  send(message: SignalRequest['message']): void;
  /** Sends a pre-encoded request (attacks send many). */
  sendRaw(bytes: Uint8Array): void;
  /** The responses of one kind so far. */
  of<C extends NonNullable<SignalResponse['message']['case']>>(
    kind: C,
  ): Extract<SignalResponse['message'], { case: C }>['value'][];
  close(): void;
}

export const encodeSignal = (message: SignalRequest['message']): Uint8Array =>
  new SignalRequest({ message }).toBinary();

/** Opens `<url>/rtc` with the token; resolves on the join response, rejects with the refusal's status and text. */
export async function signalClient(url: string, token: string): Promise<SignalClient> {
  const ws = new WebSocket(`${url}/rtc?access_token=${token}&protocol=16&sdk=js&version=2.0.0&auto_subscribe=1`);
  const responses: SignalResponse[] = [];
  let open = false;
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('message', (data: Buffer) => {
    responses.push(SignalResponse.fromBinary(new Uint8Array(data)));
  });
  await new Promise<void>((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () =>
        reject(Object.assign(new Error(`${res.statusCode} ${body}`), { status: res.statusCode, body })),
      );
    });
    ws.on('error', reject);
    ws.on('message', () => {
      if (responses[0]?.message.case === 'join') resolve();
    });
    ws.on('close', () => reject(new Error('closed before the join response')));
  });
  open = true;
  void closed.then(() => (open = false));
  return {
    ws,
    responses,
    closed,
    isOpen: () => open && ws.readyState === WebSocket.OPEN,
    send: (message) => ws.send(encodeSignal(message)),
    sendRaw: (bytes) => ws.send(bytes),
    of: (kind) => responses.filter((r) => r.message.case === kind).map((r) => r.message.value) as never,
    close: () => ws.close(),
  };
}
