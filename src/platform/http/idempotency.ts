import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db';
import type { Clock } from '../clock';
import { ApiError, validationError } from '../errors';
import { sha256Hex } from '../crypto';
import { depthError, depthExceeds } from './validation';
import * as repo from './idempotency-repo';
import { MESSAGES } from '../messages';

export { purgeIdempotencyKeys } from './idempotency-repo';

/** How long a 'processing' record blocks retries before it is presumed abandoned (its request died). */
export const PROCESSING_LOCK_MS = 60_000;

interface IdemState {
  storeId: string;
  mode: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: IdemState;
    /** Set on a `claimInWrite` route whose claim was left to the handler's write (see `deferIdempotency`). */
    claimInWrite?: ClaimInWrite;
  }
  interface FastifyContextConfig {
    /**
     * The handler claims the Idempotency-Key in the same statement as its one write (`claimingWrite`), instead of a
     * claim statement before it: one round trip less on the hottest POST. Answers are the same as on other routes.
     */
    claimInWrite?: boolean;
  }
}

/** A claim left to the handler's write: what to insert, and the ordinary claim to fall back on. */
export interface ClaimInWrite {
  storeId: string;
  mode: string;
  key: string;
  /** The key-scoped request fingerprint (what is stored and compared). */
  fingerprint: string;
  /** When the stored answer expires (retention). */
  expiresAt: Date;
  /** The ordinary claim (beginIdempotency): replays, refuses, or claims the key for this request. */
  fallback(): Promise<void>;
}

export function fingerprint(method: string, path: string, body: unknown): string {
  // JSON.stringify recurses: refuse bodies nested past the limit (the JSON parser already does) instead of overflowing.
  if (depthExceeds(body)) throw depthError();
  return sha256Hex(`${method}\n${path}\n${JSON.stringify(body ?? null)}`);
}

/** The request fingerprint bound to the API key that sent it (what is stored and compared). */
export function keyScopedFingerprint(keyId: string, requestFingerprint: string): string {
  return sha256Hex(`${keyId}\n${requestFingerprint}`);
}

function readKey(request: FastifyRequest): string {
  const raw = request.headers['idempotency-key'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const key = typeof value === 'string' ? value.trim() : '';
  if (key.length < 1 || key.length > 255) {
    throw validationError([{ field: 'Idempotency-Key', message: MESSAGES.http.idempotencyKeyRequired }]);
  }
  return key;
}

/**
 * Runs before validation on idempotent routes. Either claims the key for this request (the handler runs and
 * `finishIdempotency` stores the answer), or answers here: a replay of the stored answer, a conflict, or
 * in-progress. The claim is one INSERT … ON CONFLICT DO NOTHING, so concurrent requests and several server
 * processes on one database agree on a single owner.
 */
export async function beginIdempotency(db: Db, clock: Clock, retentionHours: number, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const auth = request.auth;
  if (!auth) throw new Error('idempotency requires an authenticated request');
  const key = readKey(request);
  const path = request.url.split('?')[0];
  const fp = fingerprint(request.method, path, request.body);
  // A stored answer belongs to the API key that made it: another key of the store (say one with a narrower product
  // range) sending the same Idempotency-Key gets IDEMPOTENCY_KEY_CONFLICT, never the other key's answer.
  const keyFp = keyScopedFingerprint(auth.keyId, fp);
  const scope = { storeId: auth.storeId, mode: auth.mode, key };

  for (let attempt = 0; attempt < 2; attempt++) {
    const now = clock.now();
    const [inserted] = await repo.claimIdempotencyKey(
      db,
      scope.storeId,
      scope.mode,
      key,
      keyFp,
      now,
      new Date(now.getTime() + PROCESSING_LOCK_MS),
      new Date(now.getTime() + retentionHours * 3_600_000),
    );
    if (inserted) {
      request.idempotency = { storeId: auth.storeId, mode: auth.mode, key };
      return;
    }
    const row = await repo.findIdempotencyKey(db, scope);
    if (!row) continue; // deleted meanwhile (a failed first attempt): claim again
    if (row.expires_at <= now) {
      await repo.deleteExpiredIdempotencyKey(db, scope, now);
      continue;
    }
    if (row.fingerprint !== keyFp) throw new ApiError('IDEMPOTENCY_KEY_CONFLICT');
    if (row.state === 'processing') {
      if (row.locked_until <= now) {
        const taken = await repo.takeOverStaleIdempotencyKey(db, scope, now, new Date(now.getTime() + PROCESSING_LOCK_MS));
        if (taken) {
          request.idempotency = { storeId: auth.storeId, mode: auth.mode, key };
          return;
        }
      }
      throw new ApiError('IDEMPOTENCY_IN_PROGRESS', { details: { retryable: true } });
    }
    reply
      .code(row.response_status ?? 200)
      .header('Idempotent-Replayed', 'true')
      .header('content-type', row.response_content_type ?? 'application/json; charset=utf-8');
    // Mark as replay so finishIdempotency leaves the record alone.
    (request as any).idempotencyReplay = true;
    await reply.send(row.response_body ?? '');
    return;
  }
  throw new ApiError('IDEMPOTENCY_IN_PROGRESS', { details: { retryable: true } });
}

/**
 * Runs before validation on a `claimInWrite` route, instead of beginIdempotency: when the body passes the route's
 * schema, the claim is left to the handler (`claimingWrite`) and true is returned. A body the schema refuses goes
 * the ordinary way (false), so a reused key still answers IDEMPOTENCY_KEY_CONFLICT before VALIDATION_FAILED, as on
 * every other route.
 */
export function deferIdempotency(db: Db, clock: Clock, retentionHours: number, request: FastifyRequest, reply: FastifyReply): boolean {
  const auth = request.auth;
  if (!auth) throw new Error('idempotency requires an authenticated request');
  const key = readKey(request);
  if (!request.validateInput(request.body, 'body')) return false;
  const fp = keyScopedFingerprint(auth.keyId, fingerprint(request.method, request.url.split('?')[0], request.body));
  request.claimInWrite = {
    storeId: auth.storeId,
    mode: auth.mode,
    key,
    fingerprint: fp,
    expiresAt: new Date(clock.now().getTime() + retentionHours * 3_600_000),
    fallback: () => beginIdempotency(db, clock, retentionHours, request, reply),
  };
  return true;
}

/**
 * The handler side of `claimInWrite`. `write(claim)` makes its checks, then writes with the key claimed in the same
 * statement, and returns null when the key was already there (nothing written). When a check refuses (an ApiError
 * below 500) or the key was there, the ordinary claim runs before anything is answered, so a replay, a conflict or
 * IDEMPOTENCY_IN_PROGRESS wins over the handler's own answer exactly as on other routes; a refusal is then stored
 * and replayed like any other. After a fallback claim `write` runs again with the claimed slot (a stale or expired
 * key taken over). Returns undefined when the answer is already sent (a replay).
 */
export async function claimingWrite<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  write: (slot: { claim?: ClaimInWrite; claimed?: AnswerSlot }) => Promise<T | null>,
): Promise<T | undefined> {
  const claim = request.claimInWrite;
  if (claim) {
    request.claimInWrite = undefined;
    let out: T | null;
    try {
      out = await write({ claim });
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
      await claim.fallback();
      if (reply.sent) return undefined;
      throw err; // the key is claimed for this request: onSend stores this answer
    }
    if (out !== null) return out;
    await claim.fallback();
    if (reply.sent) return undefined;
  }
  const out = await write({ claimed: request.idempotency });
  if (out === null) throw new Error('claimingWrite: a write without a claim to make cannot find its key taken');
  return out;
}

/** Called from onSend: stores the answer, or forgets the key when the answer must not be replayed. */
export async function finishIdempotency(db: Db, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const st = request.idempotency;
  if (!st) return;
  request.idempotency = undefined;
  const status = reply.statusCode;
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload == null ? '' : JSON.stringify(payload);
  let validationFailed = false;
  if (status === 400) {
    try {
      validationFailed = JSON.parse(body)?.code === 'VALIDATION_FAILED';
    } catch {
      validationFailed = true;
    }
  }
  if (status >= 500 || validationFailed) {
    await repo.deleteIdempotencyKey(db, st);
    return;
  }
  await repo.saveIdempotentAnswer(db, st, { status, body, contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8') });
}

export type AnswerSlot = IdemState;
export const JSON_UTF8 = 'application/json; charset=utf-8';

/** The handler stored the answer itself: onSend leaves the record alone. */
export function answerStored(request: FastifyRequest): void {
  request.idempotency = undefined;
}

