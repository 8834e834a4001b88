import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long and how much of an oversized body is read and dropped after its 413 before the connection closes. */
export const LINGER_MS = 10_000;
export const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * Lingering close for a request answered before its body was read (413 PAYLOAD_TOO_LARGE), as nginx does: the answer
 * (with `Connection: close`) is sent, the write side is shut, and the rest of the body is read and dropped until the
 * client has sent it all, for at most LINGER_MS and LINGER_BYTES; only then is the socket closed. Closing at once while
 * the client is still sending made the kernel answer its next bytes with a reset, and node:http or Python's requests
 * then reported EPIPE/ECONNRESET instead of the 413 they had been sent (issue 30).
 */
export function lingerAfterAnswer(req: IncomingMessage, limits: { ms?: number; bytes?: number } = {}): void {
  if (req.complete) return;
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (!socket || socket.destroyed) return;
  let read = 0;
  let timer: NodeJS.Timeout | null = null;
  const done = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!socket.destroyed) socket.destroy();
  };
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > (limits.bytes ?? LINGER_BYTES)) done();
  });
  req.once('end', done);
  req.once('error', done);
  socket.once('close', () => timer && clearTimeout(timer));
  req.resume();
  // Node closes a `Connection: close` socket through destroySoon once the answer is written: shut the write side only,
  // and close for good when the body has been read (above) or the bound is reached.
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    timer = setTimeout(done, limits.ms ?? LINGER_MS);
    timer.unref();
  };
}
