/**
 * The scripted model server of oraclekit/testing (src/runtime/testing): one
 * implementation, shared with the package's users; the tests import it from here.
 */
export { startScriptedModelServer, type ScriptedModelServer } from '../../src/runtime/testing/model-server.ts';
export {
  say,
  callTool,
  systemPromptOf,
  lastToolResult,
  type Script,
  type ChatRequestBody,
} from '../../src/runtime/testing/script.ts';
