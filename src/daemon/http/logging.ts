/**
 * The request logger of the daemon's routes. Fastify gives every request a
 * child of the daemon's pino logger bound to its request id (`req.log`); pino
 * builds a child eagerly (a new logger object and its serialized bindings),
 * ~1.5 % of a POST's CPU, for a logger that most requests never use: the
 * access line is written by the daemon's onResponse hook (main.ts), and
 * `req.log` only logs refusals and faults. `lazyChildLogger`, set as the
 * child-logger factory of /v1 and /admin/v1 (routes.ts), hands fastify a
 * stand-in that builds the very same pino child on its first use, so what is
 * logged, with which bindings, level and serializers, does not change.
 */
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Methods on the prototype (no closures per request); each logs through the real child, made on first use. */
class LazyChild implements FastifyBaseLogger {
  private real: FastifyBaseLogger | undefined;
  private readonly parent: FastifyBaseLogger;
  private readonly bindings: Bindings;
  private readonly opts: ChildOptions;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, opts: ChildOptions) {
    this.parent = parent;
    this.bindings = bindings;
    this.opts = opts;
  }

  /** The pino child fastify would have made. */
  private get logger(): FastifyBaseLogger {
    return (this.real ??= this.parent.child(this.bindings, this.opts));
  }

  private log(level: Level, args: unknown[]): void {
    const l = this.logger;
    (l[level] as (...a: unknown[]) => void).apply(l, args);
  }

  get level(): string {
    return this.logger.level;
  }

  set level(l: string) {
    this.logger.level = l;
  }

  fatal(...a: unknown[]): void {
    this.log('fatal', a);
  }
  error(...a: unknown[]): void {
    this.log('error', a);
  }
  warn(...a: unknown[]): void {
    this.log('warn', a);
  }
  info(...a: unknown[]): void {
    this.log('info', a);
  }
  debug(...a: unknown[]): void {
    this.log('debug', a);
  }
  trace(...a: unknown[]): void {
    this.log('trace', a);
  }
  silent(...a: unknown[]): void {
    this.log('silent', a);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** A fastify child-logger factory: the request's child is made when first used. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildOptions): FastifyBaseLogger {
  return new LazyChild(logger, bindings, opts);
}
