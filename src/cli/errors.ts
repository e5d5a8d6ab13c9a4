/**
 * The CLI's error table (docs/cli.md "Errors"): every code the CLI, the
 * scaffolder (`new`, `update-oracle-api-url`), the identity commands, the
 * daemon control and the chat's connection throw, with the HTTP-like status
 * of its class (the exit code follows it: src/lib/errors.ts EXIT_CODES).
 * Errors the registry sends keep their own codes (src/lib/registry/errors.ts)
 * as do sampling and selection errors (their tables); the codes the shared
 * registry client makes itself (unavailable, http_error) are included here.
 *
 * test/unit/cli/errors.test.ts checks that every code written in src/cli and
 * src/commands is in this table.
 */
import { messageErrorFactory, type ErrorTable } from '../lib/errors.ts';
import { REGISTRY_CLIENT_ERRORS } from '../lib/registry/errors.ts';

export { OracleKitError } from '../lib/errors.ts';

export const CLI_ERRORS = {
  // the CLI itself
  usage: {
    status: 400,
    when: "oclif's own parse errors: an unknown flag, a value outside a flag's options, a missing argument (exit 2)",
  },
  unexpected: {
    status: 500,
    when: 'a bug: any error that is not an OracleKitError (exit 1; DEBUG=1 prints the stack)',
  },
  cancelled: {
    status: 499,
    when: 'Ctrl+C (or a closed prompt) during `new` or a sign-in; what was created is removed (exit 130)',
  },
  invalid_flag: {
    status: 400,
    when:
      "a flag's value fails its check (scaffolder questions given as flags, e.g. a --price the credits ledger " +
      'cannot keep: more than 6 decimals or above 1e9)',
  },
  unknown_command: {
    status: 400,
    when:
      'no command has this name (`oraclekit sampel calc`): the nearest command is suggested, written with ' +
      'spaces (exit 2, like usage)',
  },
  repeated_flag: {
    status: 400,
    when:
      'a single-value flag given twice (`--dropout 0.1 --dropout 0.2`, `-N 5000 --population 6000`): refused, ' +
      'never the last value silently (exit 2, like usage)',
  },
  missing_answer: { status: 400, when: 'a question of `new`/`login` has no flag and there is no terminal to ask on' },
  unreadable_file: {
    status: 400,
    when: 'a file named by a flag (--input, --previous, --observations, --package) exists but cannot be read',
  },
  file_not_found: {
    status: 404,
    when:
      'a file named by a flag does not exist (the same code as the selection commands use for a missing frame, ' +
      'design, commitment or proof)',
  },
  invalid_json: { status: 400, when: 'a file or flag value that must be JSON is not (or not an object)' },
  invalid_package: { status: 400, when: '`domain propose --package` is not a JSON file {documents: [{url, hash}]}' },
  invalid_metadata: { status: 400, when: '`domain register|update --metadata` is not a JSON object' },
  invalid_service: { status: 400, when: '--service is not id=type,url' },
  // registries and networks
  invalid_registry_url: {
    status: 400,
    when: '--registry (or ORACLEKIT_REGISTRY, or the saved registry) is not an http(s) URL',
  },
  unknown_network_registry: { status: 400, when: 'a remote --network has no registry URL saved and none given' },
  missing_api_key: {
    status: 401,
    when: 'a remote registry needs an API key and none is given, in the environment or saved',
  },
  registry_unreachable: {
    status: 503,
    when: 'the registry resolving an oracle DID (chat --oracle did:…) cannot be reached',
  },
  ...REGISTRY_CLIENT_ERRORS,
  // the daemon as a process
  daemon_start_failed: {
    status: 503,
    when: 'the daemon exited or did not answer /health in time after `daemon start` (or an auto-start)',
  },
  // identity (login, whoami, logout, new)
  not_logged_in: {
    status: 401,
    when: 'no saved identity: run `oraclekit login` (or pass --api-key where one is enough)',
  },
  invalid_identity: { status: 400, when: 'identity.json is not JSON or holds no mnemonic identity' },
  logout_unconfirmed: {
    status: 409,
    when:
      '`logout` would delete the saved identity (the only copy of its key on this machine) and was not ' +
      'confirmed: no terminal to ask on and no --force, or the prompt was declined (exit 4)',
  },
  identity_exists: {
    status: 409,
    when:
      '`login` (or `new` with a key source) would replace a saved identity with another one and was not ' +
      'confirmed: no terminal to ask on and no --force, or the prompt was declined (exit 4)',
  },
  missing_mnemonic: {
    status: 400,
    when: 'mnemonic sign-in with no --mnemonic-file, no $ORACLEKIT_MNEMONIC, no --generate and no terminal',
  },
  mnemonic_file_unreadable: { status: 400, when: '--mnemonic-file cannot be read' },
  invalid_mnemonic: { status: 400, when: 'the mnemonic is not a valid BIP39 phrase (word list, length, checksum)' },
  signin_timeout: { status: 504, when: 'no wallet signed the QR sign-in request within --timeout' },
  signin_cancelled: { status: 499, when: 'the QR sign-in was aborted' },
  // the scaffolder (new, update-oracle-api-url)
  invalid_project_name: { status: 400, when: 'the project name is not an npm package name usable as a directory' },
  directory_not_empty: { status: 409, when: 'the target directory exists and is not empty (pass --force)' },
  port_mismatch: {
    status: 400,
    when: '--port differs from the port of a local --url (the runtime listens where the registry says)',
  },
  invalid_url: {
    status: 400,
    when:
      'an oracle URL is not http(s), has credentials, a query or a fragment, or names 0.0.0.0 or :: (an ' +
      'address to bind, not one clients reach)',
  },
  invalid_class: { status: 422, when: '--class is not an active Protocol domain' },
  no_oracle_class: {
    status: 422,
    when: 'a remote registry has no oraclekit:oracle-protocol:v1 Protocol domain and no --class was given',
  },
  invalid_config: { status: 400, when: "the project's oracle.config.json is not JSON" },
  invalid_settings: {
    status: 400,
    when: 'settings.json holds a value of the wrong type (the message names the field)',
  },
  missing_did: { status: 400, when: 'update-oracle-api-url without an oracle DID (no oracle.config.json, no --did)' },
  health_check_failed: { status: 503, when: 'the new oracle URL does not answer /health (pass --no-check to skip)' },
  oracle_did_mismatch: {
    status: 409,
    when: 'the oracle at the URL serves another DID than the one being updated or chatted with',
  },
  matrix_registration_flow: {
    status: 403,
    when:
      "the homeserver's registration needs a stage oraclekit cannot complete (pass " +
      "--matrix-registration-token, or the bot's --matrix-user and --matrix-password)",
  },
  matrix_user_in_use: {
    status: 409,
    when: 'the Matrix bot user exists and no --matrix-password was given to log in as it',
  },
  matrix_forbidden: {
    status: 403,
    when: 'the homeserver refused the registration or login (M_FORBIDDEN: wrong password, registration closed)',
  },
  matrix_unauthorized: {
    status: 401,
    when: 'the homeserver refused the access token (M_UNKNOWN_TOKEN, M_MISSING_TOKEN)',
  },
  matrix_invalid_username: {
    status: 400,
    when: 'the homeserver rejects the bot localpart (M_INVALID_USERNAME, M_EXCLUSIVE)',
  },
  matrix_limit_exceeded: {
    status: 503,
    when: 'the homeserver rate-limited the request (M_LIMIT_EXCEEDED); try again later',
  },
  matrix_error: { status: 400, when: 'any other Matrix error; details.errcode names it' },
  // the chat's connection (src/cli/chat)
  invalid_oracle: { status: 400, when: '--oracle is neither an http(s) URL, host:port nor a DID' },
  invalid_oracle_config: { status: 400, when: './oracle.config.json is not JSON' },
  no_oracle: {
    status: 503,
    when: 'no oracle to chat with: no --oracle, no oracle.config.json, and the local daemon hosts no default oracle',
  },
  session_not_found: { status: 404, when: '`chat --session <id>` names a session the oracle does not have' },
} as const satisfies ErrorTable;

export type CliErrorCode = keyof typeof CLI_ERRORS;

/** Builds a CLI error: the status comes from the table. */
export const cliError = messageErrorFactory(CLI_ERRORS);
