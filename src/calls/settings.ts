/**
 * The calls plugin's variables (docs/live-agent.md, "Settings"), parsed once
 * at boot: where rooms live (a LiveKit server, or the embedded endpoint and
 * the address its media binds to) and the voice services of the oracle's agent
 * (OpenAI-compatible /audio/transcriptions and /audio/speech, by default at
 * the chat model's LLM_BASE_URL with its key).
 */
import { z } from 'zod';

const LIVEKIT = ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET'] as const;

/** An Opus frame length (ms) the endpoint may ask for: 10 or 20. */
const frameMs = (byDefault: 10 | 20) =>
  z.coerce
    .number()
    .int()
    .refine((n) => n === 10 || n === 20, { error: '10 or 20' })
    .default(byDefault);

// the runtime parses this schema after the one env rule (parseEnv): a blank variable arrives unset
export const CallsEnvSchema = z
  .object({
    LIVEKIT_URL: z.url({ protocol: /^(wss?|https?)$/, error: 'a ws://, wss://, http:// or https:// URL' }).optional(),
    LIVEKIT_API_KEY: z.string().trim().min(1).optional(),
    LIVEKIT_API_SECRET: z.string().min(1).optional(),
    /**
     * The address the embedded endpoint's media (ICE over UDP) binds to: 127.0.0.1 like HOST by default, 0.0.0.0 for
     * every interface.
     */
    CALLS_MEDIA_ADDRESS: z.union([z.ipv4(), z.literal('0.0.0.0')]).default('127.0.0.1'),
    LLM_BASE_URL: z.string().optional(),
    LLM_PROVIDER_API_KEY: z.string().optional(),
    CALLS_STT_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    CALLS_STT_API_KEY: z.string().optional(),
    CALLS_STT_MODEL: z.string().trim().min(1).default('whisper-1'),
    CALLS_TTS_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    CALLS_TTS_API_KEY: z.string().optional(),
    CALLS_TTS_MODEL: z.string().trim().min(1).default('tts-1'),
    CALLS_TTS_VOICE: z.string().trim().min(1).max(64).default('alloy'),
    /**
     * Where clients reach the embedded endpoint (ws://, wss://, http:// or https://; http(s) is handed out as ws(s)):
     * connection.url. Unset: the origin of the request, whose Host the oracle checked (a loopback bind or
     * ORACLE_ALLOWED_HOSTS); needed when the oracle listens on every interface and answers to any host name.
     */
    CALLS_PUBLIC_URL: z
      .url({ protocol: /^(wss?|https?)$/, error: 'a ws://, wss://, http:// or https:// URL' })
      .optional(),
    /** The host names the oracle answers to (the runtime's ORACLE_ALLOWED_HOSTS): a checked Host names the origin. */
    ORACLE_ALLOWED_HOSTS: z.string().optional(),
    /** Live calls one user may have at once. */
    CALLS_MAX_PER_USER: z.coerce.number().int().min(1).max(1000).default(2),
    /** Live calls of the process at once (one core holds about 8 with the embedded endpoint). */
    CALLS_MAX_PER_PROCESS: z.coerce.number().int().min(1).max(10_000).default(8),
    /** A call no user joined this long (s) after its creation ends. */
    CALLS_JOIN_TIMEOUT_S: z.coerce.number().int().min(5).max(3600).default(60),
    /** A call whose user left and did not come back this long (s) after ends. */
    CALLS_LEFT_GRACE_S: z.coerce.number().int().min(1).max(3600).default(30),
    /** A participant of the embedded endpoint with no media connection this long (s) after joining is dropped. */
    CALLS_MEDIA_TIMEOUT_S: z.coerce.number().int().min(2).max(600).default(20),
    /** Signal messages per second one participant of the embedded endpoint may send (a burst of 5 s' worth). */
    CALLS_SIGNAL_PER_SECOND: z.coerce.number().int().min(1).max(1000).default(20),
    /** The largest SDP the embedded endpoint accepts (bytes). */
    CALLS_SDP_MAX_BYTES: z.coerce.number().int().min(4096).max(1_048_576).default(65_536),
    /**
     * The most media sections (m-lines) an SDP may carry at the embedded endpoint: LiveKit's native SDKs offer 9 for a
     * microphone and a camera (three receive-only audio and three video sections, data, then the two tracks).
     */
    CALLS_SDP_MAX_MEDIA_SECTIONS: z.coerce.number().int().min(1).max(64).default(16),
    /**
     * The Opus frame length (ms) the embedded endpoint asks of the users' microphones: 10 or 20 (WebRTC's default).
     * A sound waits for its frame to fill, so 10 ms frames reach the agent up to 10 ms sooner (5 on average), for
     * twice the packets through the endpoint and for the agent to open and decode.
     */
    CALLS_AUDIO_FRAME_MS: frameMs(10),
    /**
     * The Opus frame length (ms) asked of the agent's voice: 20 or 10, which reaches a browser about 10 ms sooner
     * again, for twice the packets to encode, encrypt and forward to every user in the call.
     */
    CALLS_AGENT_AUDIO_FRAME_MS: frameMs(20),
    /** Speech shorter than this (ms) while the agent answers does not interrupt it (0: any speech does). */
    CALLS_MIN_INTERRUPTION_MS: z.coerce.number().int().min(0).max(5000).default(250),
    /** What the agent says once the user hears it, in a call that names no greeting of its own (unset: nothing). */
    CALLS_GREETING: z.string().trim().min(1).max(500).optional(),
    /** The silence (ms) after speech that ends the user's utterance. */
    CALLS_END_OF_TURN_MS: z.coerce.number().int().min(100).max(5000).default(500),
    /**
     * A pause this long (ms) in the user's speech starts transcribing what they said so far, so that the transcript is
     * ready when the turn ends (an extra request when they go on speaking, at most three a turn); 0 transcribes at the
     * end of the turn only.
     */
    CALLS_EARLY_TRANSCRIPTION_MS: z.coerce.number().int().min(0).max(5000).default(200),
    /**
     * `on`: the answer's model request is sent on that early transcription (LiveKit's preemptive generation), and the
     * turn streams from it if the user said nothing more; else it is cancelled, its tokens spent (at most three a
     * turn); the speech of the reply's first words is fetched as they stream too. `model`: the request only. `off`:
     * the request is sent when the turn ends.
     */
    CALLS_PREEMPTIVE_GENERATION: z.enum(['on', 'model', 'off']).default('on'),
  })
  .superRefine((env, ctx) => {
    // a LiveKit server needs all three; a key without a server is a mistake, not the embedded endpoint
    const set = LIVEKIT.filter((k) => env[k] !== undefined);
    if (set.length === 0 || set.length === 3) return;
    const missing = LIVEKIT.find((k) => env[k] === undefined)!;
    ctx.addIssue({
      code: 'custom',
      path: [missing],
      message: `a LiveKit server needs LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET together (${set.join(', ')} set); set ${missing}, or unset all three for the embedded endpoint`,
    });
  });
export type CallsEnv = z.infer<typeof CallsEnvSchema>;
