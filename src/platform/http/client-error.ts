import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { ApiError, validationError } from '../errors';
import { MESSAGES } from '../messages';

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser refused the request (bad framing, NUL or other invalid
 * bytes in a header, headers over the 16 KB limit, a request that never finished) before any route ran.
 * The answer is still an ApiError with a Korean message, written raw on the socket, which is then closed.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const e =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError('HEADERS_TOO_LARGE')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError('REQUEST_TIMEOUT')
        : validationError([{ field: 'request', message: MESSAGES.http.malformedHttp }]);
  const body = JSON.stringify(e.toBody());
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${e.statusCode} ${STATUS_CODES[e.statusCode]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  } else {
    socket.destroy();
  }
}
