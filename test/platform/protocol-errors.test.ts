import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../helpers/app';

/**
 * Issue 8, item 11: requests Node's HTTP parser refuses before any route runs (bad framing, NUL in a header,
 * headers over 16 KB) still answer an ApiError with a Korean message, then close the connection.
 */
let t: TestApp;
let port: number;
before(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
after(async () => {
  await t.close();
});

/** Sends raw bytes and reads until the server closes the connection. */
function raw(request: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer')));
    socket.end(request);
  });
}

function assertApiError(res: { status: number; headers: Record<string, string>; body: string }, status: number, code: string) {
  assert.equal(res.status, status, res.body);
  assert.match(res.headers['content-type'], /^application\/json/);
  assert.equal(res.headers.connection, 'close');
  assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body));
  const b = JSON.parse(res.body);
  assert.equal(b.statusCode, status);
  assert.equal(b.code, code);
  assert.match(b.message, /[가-힣]/);
  assert.doesNotMatch(res.body, /Bad Request|Client Error/);
}

test('bad framing → 400 VALIDATION_FAILED ApiError with a Korean message', async () => {
  for (const req of [
    'GARBAGE\r\n\r\n',
    'GET /health HTTP/9.9\r\nHost: x\r\n\r\n',
    'POST /v1/licenses/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
    'GET /health HTTP/1.1\r\nHost x\r\n\r\n',
  ]) {
    const res = await raw(req);
    assertApiError(res, 400, 'VALIDATION_FAILED');
    assert.equal(JSON.parse(res.body).details.fields[0].field, 'request', req);
  }
});

test('a NUL byte in a header value → 400 VALIDATION_FAILED ApiError', async () => {
  const res = await raw(Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nX-Note: a\u0000b\r\n\r\n', 'latin1'));
  assertApiError(res, 400, 'VALIDATION_FAILED');
});

test('headers over 16 KB → 431 HEADERS_TOO_LARGE ApiError', async () => {
  const res = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`);
  assertApiError(res, 431, 'HEADERS_TOO_LARGE');
});

test('a well-formed request on the same server still works', async () => {
  const res = await raw('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(res.status, 200);
});
