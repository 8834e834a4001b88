#!/usr/bin/env node
// `npm run build`: bundles the service (src/cli.ts and everything it imports) into one ES module, dist/cli.js,
// with the SQL migrations beside it. npm packages stay external (loaded from node_modules at run time), except the few
// in BUNDLED below. Production runs this JavaScript; tsx is for development and tests only.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, mkdirSync, existsSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

// `npx commerce …` in the service's folder (the operator manual's commands) makes npm link that folder into its npx
// cache and run its `prepare` script there (npm_command=exec) the first time for each path: a rebuild nobody asked
// for, which would also need the development dependencies a pruned production folder no longer has. The build that
// `npm install` made is kept.
if (process.env.npm_lifecycle_event === 'prepare' && process.env.npm_command === 'exec' && existsSync(join(dist, 'cli.js'))) process.exit(0);

// Built beside dist/ and moved into place at the end, so a process starting meanwhile (a test, a server) finds the
// old build whole rather than a dist/ half written.
const out = join(root, `.dist-build-${process.pid}`);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// Bundled into dist/cli.js although they are npm packages: pure JavaScript ES modules of hundreds of small files each
// (kysely ~290, PortOne's SDK ~270, TypeBox ~200), imported by our code alone (no external package imports them, so
// there is one copy). Node 20's ES module loader reads each file into a buffer freed only by a later collection;
// ~15 MB of them, interleaved with what a process keeps, left a hole in glibc's main arena (21 MB, 6 in use) whose
// free pages a long-running worker touched one by one: its RSS grew ~1.4 MB every 10 minutes with its heap flat.
// Bundled, the arena is 8 MB (docs/manual/13-performance.md, round 4, last section).
const BUNDLED = new Set(['kysely', '@sinclair/typebox', '@portone/server-sdk']);
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const externals = {
  name: 'externals',
  setup(b) {
    // A bare specifier (not ./ or /) is a package or a builtin: external unless bundled.
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('node:') || !BUNDLED.has(packageOf(args.path)) ? { path: args.path, external: true } : undefined));
  },
};

// dist/tracing.js (src/tracing.ts) is a separate file: bin/commerce.js loads it, before cli.js, only when tracing is
// configured, so OpenTelemetry stays out of a process that does not trace.
await build({
  entryPoints: { cli: join(root, 'src/cli.ts'), tracing: join(root, 'src/tracing.ts') },
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [externals],
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

// Swap: the old dist/ goes aside, the new one takes its name (two renames, microseconds apart), the old is removed.
const old = join(root, `.dist-old-${process.pid}`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(out, dist);
rmSync(old, { recursive: true, force: true });
