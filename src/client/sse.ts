export * from '../lib/protocol/sse.ts';
