/**
 * Child process of bench/runtime.ts: the scripted OpenAI-compatible model
 * server alone, in its own process, as a real model endpoint would be — so
 * the runtime's process does only the runtime's work. The user message
 * "go <n>" asks for n tokens (4-character deltas).
 */
import { startScriptedModelServer } from '../test/helpers/scripted-model-server.ts';

const model = await startScriptedModelServer();
model.fallback = (body) => {
  const last = body.messages.at(-1)?.content;
  const n = Number(/go (\d+)/.exec(typeof last === 'string' ? last : '')?.[1] ?? 50);
  return { steps: [{ type: 'text', text: 'tok '.repeat(n), chunkSize: 4 }] };
};
// keep the request log from growing during the bench
setInterval(() => (model.requests.length = 0), 1000).unref();
process.send!({ type: 'ready', baseURL: model.baseURL });
process.on('message', (m: { type: string }) => {
  if (m.type === 'stop') void model.close().then(() => process.exit(0));
});
