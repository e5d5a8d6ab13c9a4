/** The oracle wire protocol (docs/protocol.md): one import for server and clients. */
export * from './version.ts';
export * from './errors.ts';
export * from './http.ts';
export * from './events.ts';
export * from './sse.ts';
export * from './socket.ts';
export * from './messages.ts';
