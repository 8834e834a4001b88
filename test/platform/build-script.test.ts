import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync, existsSync } from 'node:fs';
import { join } from 'node:path';

// `npx commerce …` in the service's folder (what the operator manual and the scaling guide tell an operator to type)
// makes npm link that folder into its npx cache and run its `prepare` script there, with npm_command=exec. That
// rebuilt dist/ under every process running from it (a CLI test started meanwhile found dist/cli.js missing in CI),
// and in a production folder pruned of development dependencies it cannot build at all. The build is kept then.
const ROOT = process.cwd();
const CLI = join(ROOT, 'dist', 'cli.js');

test('the prepare script run by npx (npm_command=exec) keeps the existing build instead of rebuilding dist/', () => {
  assert.ok(existsSync(CLI), 'dist/cli.js is built before the tests (npm test builds it)');
  const before = statSync(CLI).mtimeMs;
  const env = { ...process.env, npm_lifecycle_event: 'prepare', npm_command: 'exec' };
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { env, stdio: 'pipe', timeout: 120_000 });
  assert.equal(statSync(CLI).mtimeMs, before, 'dist/cli.js was not rewritten');
});
