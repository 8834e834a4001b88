#!/usr/bin/env node
// Runs the *.test.ts files under test/, src/ and packages/ (compiled once to JavaScript, see ./test-build.mjs),
// several files at once, each in its own process with its own database, and prints each file's output when it ends,
// then the time each part took.
//
// Layout: test/ has the rooms of src/ (test/checkout for src/checkout, test/refunds/requests for src/refunds/requests,
// test/docs-site, test/bench…), so a room's tests sit beside each other; a room's browser tests are in its
// browser/ folder (test/dashboard/browser/…), and every file under a browser/ folder is slow. Besides the rooms:
// test/helpers and test/fixtures (shared), test/e2e (a seller's journey across rooms).
//
//   node scripts/run-tests.mjs            the fast suite: every file except the slow ones (`npm test`)
//   node scripts/run-tests.mjs --slow     only the slow files: browsers (test/<room>/browser/) and files marked `@slow`
//                                         (several server processes, kill -9, npm pack) (`npm run test:slow`)
//   node scripts/run-tests.mjs --all      both (CI)
//   node scripts/run-tests.mjs <part>…    only files whose path contains one of the parts (fast and slow alike)
//
// TEST_CONCURRENCY sets how many files run at once (default: the machine's cores + 1: most files wait on their
// database or on sockets part of the time).
import { readdirSync, readFileSync, statSync, existsSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { compileTests } from './test-build.mjs';

function walk(dir, out = []) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Slow: the browser tests (any file under a browser/ folder), and files that say so in their first lines with `@slow` (and why). */
function isSlow(file) {
  if (file.split(sep).includes('browser')) return true;
  return /@slow\b/.test(readFileSync(file, 'utf8').slice(0, 2000));
}

const args = process.argv.slice(2);
const group = args.includes('--all') ? 'all' : args.includes('--slow') ? 'slow' : 'fast';
const filter = args.filter((a) => !a.startsWith('--'));
let files = ['test', 'src', 'packages'].flatMap((d) => walk(d)).sort();
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
else if (group !== 'all') files = files.filter((f) => isSlow(f) === (group === 'slow'));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? availableParallelism() + 1));
const label = filter.length ? `files matching ${filter.join(', ')}` : { fast: 'the fast suite', slow: 'the slow suite', all: 'every test file' }[group];
console.log(`running ${files.length} test files (${label}), ${concurrency} at a time`);

// Long files first, so the pool does not end waiting on one: the browser and multi-process files, then by the time
// each took in the last run here (.test-build/timings.json), else by size (about a second per 1,000 bytes).
const TIMINGS = join('.test-build', 'timings.json');
let timings = {};
try {
  timings = JSON.parse(readFileSync(TIMINGS, 'utf8'));
} catch {}
const weight = (f) => (isSlow(f) ? 1e9 : 0) + (timings[f] ?? statSync(f).size / 1000);
const queue = [...files].sort((a, b) => weight(b) - weight(a));

const started = Date.now();
const results = [];

// Test files run PGlite's WebAssembly build of PostgreSQL briefly; V8's optimizing tier would compile much of it again
// on background threads, which costs a test file more CPU (measured: a fifth to a quarter of a file's CPU) than it
// saves. Baseline code only. Server processes the tests start keep Node's defaults, as in production.
const NODE_FLAGS = ['--liftoff-only'];

/**
 * On the embedded database every test file starts PGlite, whose initdb costs seconds of CPU; instead each file loads a
 * migrated copy made once here (TEST_PGLITE_TEMPLATE, read by test/helpers/app.ts). The copy is named by a hash of the
 * migrations and the PGlite version, so a changed migration makes a new one. Without it the files run initdb as before.
 */
function pgliteTemplate() {
  if (process.env.TEST_DATABASE_URL || process.env.TEST_PGLITE_TEMPLATE === '') return process.env.TEST_PGLITE_TEMPLATE;
  const h = createHash('sha256');
  const migrations = join('src', 'db', 'migrations');
  for (const f of readdirSync(migrations).sort()) h.update(f).update(readFileSync(join(migrations, f)));
  h.update(readFileSync(join('node_modules', '@electric-sql', 'pglite', 'package.json')));
  const file = join(tmpdir(), `commerce-test-pglite-${h.digest('hex').slice(0, 16)}.tar`);
  if (existsSync(file)) return file;
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join('test', 'helpers', 'pglite-template.ts'), file], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.log('could not make the migrated PGlite template; each file will create its own database');
    return undefined;
  }
  console.log(`made the migrated PGlite template in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${file}`);
  return file;
}
const template = pgliteTemplate();

/**
 * The files run as JavaScript compiled once here (scripts/test-build.mjs), not through tsx in each process: tsx's
 * loader costs each file about a second and a half of CPU. TEST_TSX=1 runs them through tsx as before.
 */
let compiled;
if (!process.env.TEST_TSX) {
  const out = join('.test-build', `run-${process.pid}`);
  process.on('exit', () => rmSync(out, { recursive: true, force: true }));
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));
  const t0 = Date.now();
  compiled = await compileTests(process.cwd(), out);
  console.log(`compiled the TypeScript to ${out} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const run = compiled ? ['--enable-source-maps', compiled(file)] : ['--import', 'tsx', file];
    const child = spawn(process.execPath, [...NODE_FLAGS, '--import', './scripts/cpu-report.mjs', '--test-reporter=spec', ...run], {
      env: { ...process.env, NODE_ENV: 'test', ...(template ? { TEST_PGLITE_TEMPLATE: template } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - t0) / 1000;
      const count = (name) => Number(new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
      const r = { file, seconds, ok: code === 0, code: code ?? signal, pass: count('pass'), fail: count('fail'), skipped: count('skipped') + count('todo'), cancelled: count('cancelled'), cpu: count('cpu_ms') / 1000 };
      if (r.pass + r.fail + r.cancelled + r.skipped === 0) r.ok = false; // a file that ran no test at all is a failure, not a pass
      process.stdout.write(`\n━━ ${file} — ${r.ok ? 'ok' : 'FAILED'} in ${seconds.toFixed(1)} s\n${out}`);
      resolve(r);
    });
  });
}

async function lane() {
  for (let f = queue.shift(); f; f = queue.shift()) results.push(await runFile(f));
}
await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, lane));

const total = (Date.now() - started) / 1000;
for (const r of results) timings[r.file] = Math.round(r.seconds * 10) / 10;
try {
  mkdirSync('.test-build', { recursive: true });
  writeFileSync(TIMINGS, JSON.stringify(timings, null, 1));
} catch {}
const sum = (k) => results.reduce((n, r) => n + r[k], 0);
const byPart = new Map();
for (const r of results) {
  const part = r.file.split('/').slice(0, 2).join('/');
  byPart.set(part, (byPart.get(part) ?? 0) + r.seconds);
}
console.log('\n━━ time per part (seconds of file time; files run in parallel)');
for (const [part, s] of [...byPart].sort((a, b) => b[1] - a[1])) console.log(`${s.toFixed(1).padStart(8)}  ${part}`);
console.log('\n━━ slowest files');
for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 10)) console.log(`${r.seconds.toFixed(1).padStart(8)}  ${r.file}`);
const failed = results.filter((r) => !r.ok);
console.log(`\n━━ CPU: ${(sum('cpu') / 60).toFixed(1)} min in all (user + system, every file's process); with ${availableParallelism()} cores no run can take less than ${(sum('cpu') / 60 / availableParallelism()).toFixed(1)} min`);
console.log(`\n━━ ${label}: ${results.length} files, ${sum('pass')} tests passed, ${sum('fail')} failed, ${sum('cancelled')} cancelled, ${sum('skipped')} skipped, in ${(total / 60).toFixed(1)} min (${total.toFixed(0)} s)`);
if (failed.length) {
  console.log('failed files:');
  for (const r of failed) console.log(`  ${r.file} (exit ${r.code}, ${r.fail} failed)`);
}
process.exit(failed.length ? 1 : 0);
