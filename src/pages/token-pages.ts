import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { statusPage } from './status-page';

/** Forms may only go back to the service; nothing else loads (no scripts). A page may set its own (a nonce'd launch page). */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * What the buyer's token-addressed pages (the receipt `/receipt/{orderId}?t=…`, the portal `/portal/{token}`) share:
 * the address is the credential, so every answer is `no-store`, unframeable, sniff-free, under a script-free CSP,
 * with a Referrer-Policy that never sends the token to another site; urlencoded forms are parsed here only; errors
 * are answered as pages for people (never an API error body or a stack trace). Registered inside each page plugin.
 */
export async function tokenPages(
  app: FastifyInstance,
  opts: {
    /** `no-referrer` (receipt: no Origin check needed, the token is in each form) or `same-origin` (portal: its POSTs keep a real Origin). */
    referrerPolicy: 'no-referrer' | 'same-origin';
    bodyLimit: number;
    /** What a 4xx error page says (or, for a page in the buyer's language, a function of the request), and the log line of a 5xx. */
    clientError: { title: string; message: string } | ((req: FastifyRequest) => { title: string; message: string; lang?: 'ko' | 'en' });
    failure: string;
  },
): Promise<void> {
  await app.register(formbody, { bodyLimit: opts.bodyLimit });

  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', opts.referrerPolicy);
    if (!reply.hasHeader('Content-Security-Policy')) reply.header('Content-Security-Policy', CSP);
    return payload;
  });

  app.setErrorHandler((error: FastifyError, req, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) req.log.error({ err: error }, opts.failure);
    const page =
      status >= 500
        ? statusPage({ title: '일시적인 오류가 발생했습니다', icon: '⚠️', message: '잠시 후 다시 시도해 주세요.' })
        : statusPage({ icon: '⚠️', ...(typeof opts.clientError === 'function' ? opts.clientError(req) : opts.clientError) });
    return sendPage(reply, status, page);
  });
}

export function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}
