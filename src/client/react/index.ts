/**
 * `oraclekit/react`: React hooks over the headless client (react >= 18).
 * See docs/client.md. useLiveAgent, which loads livekit-client, is its own
 * entry point: `oraclekit/react/live-agent` (docs/live-agent.md).
 */
export { OraclesProvider, useOraclesContext } from './context.tsx';
export type {
  OraclesProviderProps,
  OraclesWallet,
  TransactSignX,
  AgActionDef,
  OraclesContextValue,
} from './context.tsx';
export { useChat } from './useChat.ts';
export type { UseChatOptions, UseChatResult, ChatStatus, ChatMessage, BrowserTool } from './useChat.ts';
export { useOracleSessions } from './sessions.ts';
export { useOracleClient } from './client.ts';
export type { UseOracleClientResult } from './client.ts';
export { usePayment } from './payment.ts';
export type { UsePaymentResult } from './payment.ts';
export type { UseOracleSessionsResult } from './sessions.ts';
export { useOraclesConfig, resolveOracleConfig } from './config.ts';
export type { OracleConfig, OracleOverrides, OraclesConfigResult } from './config.ts';
export { useContractOracle } from './contract.ts';
export type { ContractOracleInput } from './contract.ts';
export { useMemoryEngine } from './memory.ts';
export { useGetOpenIdToken, getOpenIdToken } from './openid.ts';
export type { OpenIdToken } from './openid.ts';
export { renderMessageContent, ErrorRow, ToolCallRow } from './render.tsx';
export type { UiComponents } from './render.tsx';
export { useAgAction } from './useAgAction.ts';
export { toJsonSchema } from './schema.ts';
