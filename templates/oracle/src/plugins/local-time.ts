/**
 * A plugin of this project — the worked example of the plugin contract
 * (docs/plugins.md in oraclekit). It gives the agent one tool,
 * `get_local_time`, and reads one optional variable, LOCAL_TIME_DEFAULT_ZONE.
 *
 * Copy it to add your own capabilities: a name and version, a manifest the
 * agent reads (when to use it), a zod schema for its environment, and tools
 * whose inputs are zod schemas. What the platform provides comes from the
 * context: `ctx.env` (parsed by the schema, a blank variable counting as
 * unset), `ctx.now()` (the oracle's clock, which a test can move), `ctx.log`
 * (the oracle's log, each line carrying this plugin's name), `ctx.fetch`.
 */
import { z } from 'zod';
import { definePlugin, defineTool } from 'oraclekit';

export const LocalTimeEnv = z.object({
  LOCAL_TIME_DEFAULT_ZONE: z.string().default('UTC'),
});

function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The time `nowMs` (ms since the epoch: the oracle's clock, ctx.now()) in `zone`. */
export function localTime(zone: string, nowMs: number) {
  // the model reads a thrown error's message and can recover (ask again with another zone)
  if (!isZone(zone))
    throw new Error(`unknown time zone ${JSON.stringify(zone)}; use an IANA name such as Europe/Paris`);
  const at = new Date(nowMs);
  const text = new Intl.DateTimeFormat('en-GB', { timeZone: zone, dateStyle: 'full', timeStyle: 'long' }).format(at);
  return { timeZone: zone, iso: at.toISOString(), local: text };
}

// ctx.env has the type of envSchema's output: a misspelt variable name is a type error (npm test typechecks)
export const localTimePlugin = definePlugin({
  name: 'local-time',
  version: '0.1.0',
  manifest: {
    title: 'Local time',
    summary: 'The current date and time in any time zone.',
    whenToUse: ['the user asks what time or date it is somewhere'],
    whenNotToUse: ['historical dates or time arithmetic over long spans'],
    visibility: 'always',
    stability: 'stable',
    category: 'utilities',
    defaultState: 'on',
    dependsOn: [],
  },
  envSchema: LocalTimeEnv,
  tools: (ctx) => ({
    get_local_time: defineTool({
      description: 'The current date and time in an IANA time zone (default: the oracle’s zone).',
      inputSchema: z.object({ timeZone: z.string().optional().describe('IANA time zone, e.g. Africa/Nairobi') }),
      execute: ({ timeZone }) => {
        const zone = timeZone ?? ctx.env.LOCAL_TIME_DEFAULT_ZONE;
        ctx.log.debug({ zone }, 'local time'); // the oracle's log, with plugin: 'local-time'
        return localTime(zone, ctx.now());
      },
    }),
  }),
});
