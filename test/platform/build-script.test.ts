import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync, existsSync, readFileSync } from 'node:fs';
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

// Node 20's ES module loader reads every file of an imported package into a buffer that only a later collection
// frees; the ~750 small files of kysely, TypeBox and PortOne's SDK left a 15 MB hole in glibc's main arena that a
// long-running worker's RSS then grew into (docs/manual/13-performance.md, round 4). The build bundles them.
test('dist/cli.js carries kysely, TypeBox and PortOne\'s SDK inside it instead of loading their files from node_modules', () => {
  const bundle = readFileSync(CLI, 'utf8');
  const imported = [...bundle.matchAll(/(?:^import\s[^;]*?from\s*|import\()"([^"]+)"/gm)].map((m) => m[1]!);
  assert.ok(imported.includes('fastify'), 'the bundle was read (fastify stays an external import)');
  for (const pkg of ['kysely', '@sinclair/typebox', '@portone/server-sdk']) {
    assert.deepEqual(imported.filter((s) => s === pkg || s.startsWith(`${pkg}/`)), [], `${pkg} is imported from node_modules`);
  }
  assert.match(bundle, /node_modules\/kysely\/dist\/esm\/kysely\.js/, "kysely's module is in the bundle");
  assert.match(bundle, /node_modules\/@portone\/server-sdk\//, "PortOne's SDK is in the bundle");
});
