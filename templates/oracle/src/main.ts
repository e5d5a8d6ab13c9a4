/**
 * `npm start`: serves the oracle on PORT (default 3000) — the URL registered
 * as this oracle's #api service in the registry.
 */
import { BootError } from 'oraclekit';
import { buildOracle } from './oracle.ts';

try {
  const app = buildOracle();
  const url = await app.listen();
  console.log(`oracle listening on ${url} (PORT ${process.env.PORT ?? 3000})`);
  const stop = () => {
    void app.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (e) {
  console.error(e instanceof BootError ? e.line : `[boot-error] ${(e as Error).message}`);
  process.exit(1);
}
