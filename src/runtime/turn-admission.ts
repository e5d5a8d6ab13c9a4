/**
 * Turn admission: whether a use that costs like a turn (a turn, a call) may start. It counts against the user's turn
 * limit (turn-limiter.ts: 429 rate_limited), then passes the active plugins' turn gates in order (one throws, e.g.
 * 402 payment_required, to refuse; what one charged, the credits plugin's, is returned for the turn's usage). A use
 * the gates refuse gives its count back: an unpaid attempt does not spend the user's rate.
 */
import type { HostedPlugin } from './plugin-host.ts';
import type { TurnCharge, TurnRequest } from './plugin.ts';
import { TurnRateLimiter } from './turn-limiter.ts';

export class TurnAdmission {
  readonly limiter: TurnRateLimiter;
  private readonly plugins: () => HostedPlugin[];

  constructor(perMinute: number, plugins: () => HostedPlugin[]) {
    this.plugins = plugins;
    this.limiter = new TurnRateLimiter(perMinute);
  }

  /** The active plugins' turn gates, in order; what the last one that charged charged. */
  async gate(req: TurnRequest): Promise<TurnCharge | undefined> {
    let charge: TurnCharge | undefined;
    for (const { plugin, ctx } of this.plugins()) charge = (await plugin.gateTurn?.(req, ctx)) || charge;
    return charge;
  }

  /** The turn limit, then the gates; a refusal by the gates gives the count back. */
  async admit(req: TurnRequest): Promise<TurnCharge | undefined> {
    const giveBack = await this.limiter.take(req.userDid);
    try {
      return await this.gate(req);
    } catch (e) {
      await giveBack();
      throw e;
    }
  }

  close(): void {
    this.limiter.close();
  }
}
