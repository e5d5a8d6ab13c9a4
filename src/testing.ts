/**
 * oraclekit/testing: test an oracle and its plugins offline (docs/runtime.md,
 * "Testing an oracle"). scriptedModel() is an in-process LanguageModel to
 * pass as createOracle's / createOracleApp's `model`; startScriptedModelServer()
 * is the same scripts behind a real OpenAI-compatible server on loopback (set
 * LLM_BASE_URL to its baseURL) for tests of the default provider path.
 */
export { scriptedModel, type ScriptedModel } from './runtime/testing/scripted-model.ts';
export { startScriptedModelServer, type ScriptedModelServer } from './runtime/testing/model-server.ts';
export {
  say,
  callTool,
  systemPromptOf,
  lastToolResult,
  type Script,
  type ScriptStep,
  type ScriptSource,
  type ChatRequestBody,
  type ScriptedRequest,
} from './runtime/testing/script.ts';
