// @slow: compiles the SDK with tsc (npm run test:slow)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

// The package as published: its build (tsc with the package's own tsconfig, no Node types, so nothing Node-only
// slips in) compiles, and the built ES modules load in plain Node with their runtime exports.
const PKG = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = join(PKG, '..', '..');

test('the SDK builds with its own tsconfig and the built package loads in Node', async () => {
  const out = mkdtempSync(join(PKG, '.build-test-'));
  try {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const res = spawnSync(process.execPath, [tsc, '-p', join(PKG, 'tsconfig.build.json'), '--outDir', out], { cwd: PKG, encoding: 'utf8' });
    assert.equal(res.status, 0, `${res.stdout}${res.stderr}`);
    copyFileSync(join(PKG, 'src', 'schema.d.ts'), join(out, 'schema.d.ts'));
    writeFileSync(join(out, 'package.json'), '{"type":"module"}');
    const sdk = await import(pathToFileURL(join(out, 'index.js')).href);
    assert.deepEqual(Object.keys(sdk).sort(), ['CommerceApiError', 'CommerceClient', 'WebhookVerificationError', 'retryAfterMs', 'verifyWebhook']);
    assert.equal(new sdk.CommerceApiError(404, { statusCode: 404, code: 'ORDER_NOT_FOUND', message: '주문을 찾을 수 없습니다.' }, 'req_1').code, 'ORDER_NOT_FOUND');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
