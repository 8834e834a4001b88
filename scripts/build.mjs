#!/usr/bin/env node
// `npm run build`: bundles the service (src/cli.ts and everything it imports) into one ES module, dist/cli.js,
// with the SQL migrations beside it. npm packages stay external (loaded from node_modules at run time), so the
// bundle holds only our code. Production runs this JavaScript; tsx is for development and tests only.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// dist/tracing.js (src/tracing.ts) is a separate file: bin/commerce.js loads it, before cli.js, only when tracing is
// configured, so OpenTelemetry stays out of a process that does not trace.
await build({
  entryPoints: { cli: join(root, 'src/cli.ts'), tracing: join(root, 'src/tracing.ts') },
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
// src/db/index.ts reads its migrations from `<its own directory>/migrations`; in the bundle that is dist/.
cpSync(join(root, 'src/db/migrations'), join(out, 'migrations'), { recursive: true });

// The client packages as npm tarballs (their prepack compiles them), served at /downloads/<name>-<version>.tgz so a
// seller's app installs them from this service: they are not on a public registry.
const packs = join(out, 'packages');
mkdirSync(packs, { recursive: true });
for (const name of ['license-client', 'sdk']) {
  execFileSync('npm', ['pack', '--silent', '--pack-destination', packs], { cwd: join(root, 'packages', name), stdio: ['ignore', 'ignore', 'inherit'] });
}
