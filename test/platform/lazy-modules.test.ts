import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// A PostgreSQL deployment must not load the embedded database (its JavaScript and 9 MB WebAssembly module), nor mail
// or Redis or tracing code it was not configured for: they are loaded with `await import()` where they are needed.
// The built bundle (`npm test` builds it first) may import them only that way, never with a static `import`.
test('the built service imports PGlite, nodemailer, ioredis and OpenTelemetry only when it needs them', () => {
  const bundle = readFileSync(join(process.cwd(), 'dist/cli.js'), 'utf8');
  const staticImports = [...bundle.matchAll(/^import\s[^;]*?from\s*"([^"]+)";?$/gm)].map((m) => m[1]!);
  assert.ok(staticImports.includes('fastify'), 'the bundle was read (fastify is imported statically)');
  for (const lazy of ['@electric-sql/pglite', 'nodemailer', 'ioredis']) {
    assert.ok(!staticImports.includes(lazy), `${lazy} is imported statically`);
    assert.ok(bundle.includes(`import("${lazy}")`), `${lazy} is loaded with import() where it is needed`);
  }
  assert.deepEqual(staticImports.filter((s) => s.startsWith('@opentelemetry/')), []);
});
