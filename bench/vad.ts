/**
 * The voice-activity model's cost in a call: the CPU the agent spends deciding a user's audio (vad.ts's
 * TurnDetector on silero.ts's model, fed as a call's 10 ms frames at 16 kHz), per second of audio, and what
 * making a stream's model costs (the first of the process, with the runtime's loading, and a second one).
 * The audio is a minute of an espeak-ng sentence, each said then followed by 1.5 s of silence.
 *
 *   node bench/vad.ts [--calls <dir>]... [--rounds 5] [--json]
 *
 * --calls: a built @oraclekit/calls package (its dist/vad.js and dist/silero.js; default: this checkout's src/calls,
 * after `npm run build`); given twice, the two are measured in turns (one child process per round, so the two
 * runtimes never share a process), for a before/after in one sitting.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { quantile } from './stats.ts';

const args = process.argv.slice(2);
const opt = (name: string) => args.flatMap((a, i) => (a === name && args[i + 1] ? [args[i + 1]!] : []));
const json = args.includes('--json');
const child = opt('--child')[0];

interface Round {
  cpuMsPerAudioSecond: number;
  firstModel: { wallMs: number; cpuMs: number };
  secondModel: { wallMs: number; cpuMs: number };
  turns: number;
}

interface Detector {
  push(samples: Int16Array): unknown;
}

const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;

async function measure(dir: string): Promise<Round> {
  const { espeak } = await import('../test/helpers/spoken.ts');
  const vad = (await import(pathToFileURL(join(dir, 'dist', 'vad.js')).href)) as {
    TurnDetector: new (model: unknown, o: { endMs: number }) => Detector;
  };
  const silero = (await import(pathToFileURL(join(dir, 'dist', 'silero.js')).href)) as {
    loadSilero(): Promise<unknown>;
  };
  const said = espeak('What time is it in Nairobi right now', 16_000).samples;
  const audio = new Int16Array(60 * 16_000);
  for (let at = 0; at + said.length < audio.length; at += said.length + 24_000) audio.set(said, at);

  const timed = async () => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const model = await silero.loadSilero();
    return { model, wallMs: performance.now() - t0, cpuMs: cpuMs(process.cpuUsage(c0)) };
  };
  const first = await timed();
  const second = await timed();
  const detector = new vad.TurnDetector(first.model, { endMs: 500 });
  let turns = 0;
  const c0 = process.cpuUsage();
  for (let at = 0; at < audio.length; at += 160) {
    // the agent awaits each frame's decision (a promise with a model that answers in one)
    const r = await detector.push(audio.subarray(at, at + 160));
    if (r instanceof Int16Array) turns++;
  }
  const cpu = cpuMs(process.cpuUsage(c0));
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    cpuMsPerAudioSecond: round(cpu / 60),
    firstModel: { wallMs: round(first.wallMs), cpuMs: round(first.cpuMs) },
    secondModel: { wallMs: round(second.wallMs), cpuMs: round(second.cpuMs) },
    turns,
  };
}

if (child) {
  console.log(JSON.stringify(await measure(child)));
  // the speech helper's resampler keeps native handles open
  process.exit(0);
}

const dirs = opt('--calls').map((d) => resolve(d));
if (!dirs.length) dirs.push(join(import.meta.dirname, '..', 'src', 'calls'));
const rounds = Number(opt('--rounds')[0] ?? 5);
const results = new Map<string, Round[]>(dirs.map((d) => [d, []]));
for (let r = 0; r < rounds; r++) {
  for (const d of dirs) {
    const out = execFileSync(process.execPath, [import.meta.filename, '--child', d], { encoding: 'utf8' });
    results.get(d)!.push(JSON.parse(out.trim().split('\n').at(-1)!) as Round);
  }
}
const median = (xs: number[]) => quantile(xs, 0.5);
const summary = dirs.map((d) => {
  const rs = results.get(d)!;
  return {
    calls: d,
    cpuMsPerAudioSecond: median(rs.map((x) => x.cpuMsPerAudioSecond)),
    firstModelCpuMs: median(rs.map((x) => x.firstModel.cpuMs)),
    secondModelCpuMs: median(rs.map((x) => x.secondModel.cpuMs)),
    turns: rs[0]!.turns,
    rounds: rs,
  };
});
if (json) console.log(JSON.stringify(summary));
else {
  console.log(`node ${process.version}; ${rounds} rounds, interleaved; medians`);
  for (const s of summary) {
    console.log(
      `${s.calls}: ${s.cpuMsPerAudioSecond} ms CPU per second of audio (${s.turns} turns in 60 s); ` +
        `a stream's model: first ${s.firstModelCpuMs} ms CPU, second ${s.secondModelCpuMs} ms CPU`,
    );
  }
}
