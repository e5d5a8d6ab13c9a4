/**
 * Imported first by the call benches: @livekit/rtc-node logs at debug level (pino JSON on stdout) unless NODE_ENV is
 * production when it loads, and a bench's stdout is its report.
 */
process.env.NODE_ENV ??= 'production';
