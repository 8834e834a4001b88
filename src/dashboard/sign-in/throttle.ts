import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppDeps } from '../../deps';
import { createLimiter } from '../../platform/http/rate-limit';

/**
 * Failed sign-ins allowed per e-mail, and per client address, in one window. Wrong passwords and wrong second-factor
 * codes (app codes, recovery codes, at sign-in, at step-up or when confirming a new app) count in the same window, so
 * knowing the password buys no extra guesses at the code.
 */
export const SIGN_IN_LIMITS = { perEmail: 5, perIp: 30, windowSec: 15 * 60 };

export interface SignInThrottle {
  /** Whether this e-mail or address is locked out now, and for how many seconds. */
  check(emailKey: string, ip: string): Promise<{ locked: boolean; retrySec: number; perEmail: boolean; perIp: boolean }>;
  /** Counts a failure against both. */
  fail(emailKey: string, ip: string): Promise<void>;
  /** A complete sign-in forgives the e-mail's failures (never a password alone while a second factor is pending). */
  clear(emailKey: string): Promise<void>;
}

async function failures(limiter: RateLimiterAbstract, key: string): Promise<{ used: number; resetSec: number }> {
  const res = await limiter.get(key);
  return res ? { used: res.consumedPoints, resetSec: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) } : { used: 0, resetSec: 0 };
}

const throttles = new WeakMap<object, SignInThrottle>();

/** The one throttle of a deployment's dashboard (in process, or in Redis when REDIS_URL is set). */
export function signInThrottle(deps: Pick<AppDeps, 'redis' | 'config'>): SignInThrottle {
  let t = throttles.get(deps.config);
  if (t) return t;
  const perEmail = createLimiter({ redis: deps.redis, keyPrefix: 'rl_dash_login_email', points: SIGN_IN_LIMITS.perEmail, durationSec: SIGN_IN_LIMITS.windowSec });
  const perIp = createLimiter({ redis: deps.redis, keyPrefix: 'rl_dash_login_ip', points: SIGN_IN_LIMITS.perIp, durationSec: SIGN_IN_LIMITS.windowSec });
  t = {
    async check(emailKey, ip) {
      const [e, a] = [await failures(perEmail, emailKey), await failures(perIp, ip)];
      const byEmail = e.used >= SIGN_IN_LIMITS.perEmail;
      const byIp = a.used >= SIGN_IN_LIMITS.perIp;
      return { locked: byEmail || byIp, retrySec: Math.max(byEmail ? e.resetSec : 0, byIp ? a.resetSec : 0), perEmail: byEmail, perIp: byIp };
    },
    async fail(emailKey, ip) {
      await Promise.all([perEmail.penalty(emailKey, 1), perIp.penalty(ip, 1)]);
    },
    async clear(emailKey) {
      await perEmail.delete(emailKey);
    },
  };
  throttles.set(deps.config, t);
  return t;
}
