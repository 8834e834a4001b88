#!/usr/bin/env node
// Runs the *.test.ts files under test/, src/ and packages/ (compiled once to JavaScript, see ./test-build.mjs),
// several processes at once, each file with its own database; fast files share a process in groups of up to
// TEST_GROUP_FILES (default 8; 1 runs every file alone, see runGroup below). Prints each process's output when it
// ends, then the time each part took.
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
import { join, resolve, sep } from 'node:path';
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
 * It is made on PostgreSQL runs too: the files about the embedded database itself (its data directory, backups and
 * restores, the CLI on a DATA_DIR) unpack it instead of running initdb (test/helpers/embedded-dir.ts).
 */
function pgliteTemplate() {
  if (process.env.TEST_PGLITE_TEMPLATE === '') return undefined;
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
const out = join('.test-build', `run-${process.pid}`);
if (!process.env.TEST_TSX) {
  process.on('exit', () => rmSync(out, { recursive: true, force: true }));
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));
  const t0 = Date.now();
  compiled = await compileTests(process.cwd(), out);
  console.log(`compiled the TypeScript to ${out} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Runs one process: a file alone, or a group of files (an entry importing each inside a `describe` named by its path). */
function runProcess(entry, files) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const run = compiled ? ['--enable-source-maps', entry] : ['--import', 'tsx', entry];
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
      const r = { files, seconds, ok: code === 0, code: code ?? signal, pass: count('pass'), fail: count('fail'), skipped: count('skipped') + count('todo'), cancelled: count('cancelled'), cpu: count('cpu_ms') / 1000, out };
      if (r.pass + r.fail + r.cancelled + r.skipped === 0) r.ok = false; // a process that ran no test at all is a failure, not a pass
      resolve(r);
    });
  });
}

/** Seconds per file: a file's own process, or its `describe`'s time in a group (what the next run's order uses). */
const fileSeconds = new Map();

function runFile(file) {
  return runProcess(compiled ? compiled(file) : file, [file]).then((r) => {
    process.stdout.write(`\n━━ ${file} — ${r.ok ? 'ok' : 'FAILED'} in ${r.seconds.toFixed(1)} s\n${r.out}`);
    fileSeconds.set(file, r.seconds);
    return { ...r, out: undefined };
  });
}

/**
 * Several fast files in one process: each file's process spent about 1.4 s of CPU loading the same modules before its
 * first test and compiled PGlite's WebAssembly again (issue 43: 250 files, 17 min of CPU), so files that share nothing
 * but the process run in groups; each still opens its own database. Each file is imported inside a `describe` named by
 * its path, so its `before`/`after`/`beforeEach` hooks stay its own, and the spec reporter prints a line per file with
 * its time and outcome.
 *
 * A file runs alone when it is slow (browsers, several servers: they run alone anyway), when it changes the process's
 * environment or mocks timers, or says `@alone` anywhere in it. If a group fails, every one of its files runs again
 * alone, and what each does alone is its result: a file is never judged by what another file left in the process. The
 * summary names every file that failed in a group and passed alone (a test depending on process state that it should
 * not: look at it).
 */
const ALONE = /process\.env\.[A-Z_]+\s*=(?!=)|process\.env\[[^\]]+\]\s*=(?!=)|delete process\.env|mock\.timers|@alone\b/;
const groupable = (f) => compiled && !isSlow(f) && !ALONE.test(readFileSync(f, 'utf8'));
const GROUP_FILES = Math.max(1, Number(process.env.TEST_GROUP_FILES ?? 8));
let groupCount = 0;
const passedAlone = [];

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function runGroup(files) {
  const entry = join(out, `group-${++groupCount}.mjs`);
  const lines = ["import { describe } from 'node:test';", "import { pathToFileURL } from 'node:url';"];
  for (const f of files) lines.push(`describe(${JSON.stringify(f)}, async () => { await import(pathToFileURL(${JSON.stringify(resolve(compiled(f)))}).href); });`);
  writeFileSync(entry, lines.join('\n') + '\n');
  const r = await runProcess(entry, files);
  // The spec reporter ends each file's block with its suite line at the start of a line: `✔ <file> (12.3ms)` or `✖ …`.
  const per = files.map((file) => {
    const m = new RegExp(`^(✔|✖) ${escapeRe(file)} \\((\\d+(?:\\.\\d+)?)ms\\)`, 'm').exec(r.out);
    return { file, ok: m?.[1] === '✔', seconds: m ? Number(m[2]) / 1000 : null };
  });
  const failedHere = r.ok ? [] : per.filter((p) => !p.ok);
  process.stdout.write(`\n━━ ${files.length} files in one process — ${r.ok ? 'ok' : `FAILED (${failedHere.map((p) => p.file).join(', ') || 'the process'})`} in ${r.seconds.toFixed(1)} s: ${files.join(' ')}\n${r.out}`);
  for (const p of per) if (p.seconds !== null) fileSeconds.set(p.file, p.seconds);
  if (r.ok) return [{ ...r, out: undefined }];
  // A failed group's counts are dropped and every one of its files runs again alone: each file is counted once, by
  // what it does in a process of its own.
  const results = [];
  for (const f of files) {
    const alone = await runFile(f);
    if (alone.ok && failedHere.some((p) => p.file === f)) passedAlone.push(f);
    results.push(alone);
  }
  if (failedHere.length === 0) passedAlone.push(`(the process of ${files.join(', ')})`);
  return results;
}

async function lane() {
  for (let f = queue.shift(); f; f = queue.shift()) {
    if (!groupable(f) || GROUP_FILES === 1) {
      results.push(await runFile(f));
      continue;
    }
    const group = [f];
    for (let i = 0; i < queue.length && group.length < GROUP_FILES; ) {
      if (groupable(queue[i])) group.push(queue.splice(i, 1)[0]);
      else i++;
    }
    results.push(...(group.length === 1 ? [await runFile(f)] : await runGroup(group)));
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, lane));

const total = (Date.now() - started) / 1000;
for (const [f, sec] of fileSeconds) timings[f] = Math.round(sec * 10) / 10;
try {
  mkdirSync('.test-build', { recursive: true });
  writeFileSync(TIMINGS, JSON.stringify(timings, null, 1));
} catch {}
const sum = (k) => results.reduce((n, r) => n + r[k], 0);
const byPart = new Map();
for (const [f, sec] of fileSeconds) {
  const part = f.split('/').slice(0, 2).join('/');
  byPart.set(part, (byPart.get(part) ?? 0) + sec);
}
console.log('\n━━ time per part (seconds of file time; files run in parallel)');
for (const [part, s] of [...byPart].sort((a, b) => b[1] - a[1])) console.log(`${s.toFixed(1).padStart(8)}  ${part}`);
console.log('\n━━ slowest files');
for (const [f, sec] of [...fileSeconds].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`${sec.toFixed(1).padStart(8)}  ${f}`);
const failed = results.filter((r) => !r.ok);
const grouped = results.filter((r) => r.files.length > 1);
if (grouped.length) console.log(`\n━━ ${grouped.reduce((n, r) => n + r.files.length, 0)} files ran in ${grouped.length} shared processes (up to ${GROUP_FILES} a process), ${results.length - grouped.length} alone`);
if (passedAlone.length) {
  console.log(`\n━━ failed in a shared process and passed alone (${passedAlone.length}): a test that depends on what another file left in the process; look at it`);
  for (const f of passedAlone) console.log(`  ${f}`);
}
console.log(`\n━━ CPU: ${(sum('cpu') / 60).toFixed(1)} min in all (user + system, every test process); with ${availableParallelism()} cores no run can take less than ${(sum('cpu') / 60 / availableParallelism()).toFixed(1)} min`);
console.log(`\n━━ ${label}: ${files.length} files, ${sum('pass')} tests passed, ${sum('fail')} failed, ${sum('cancelled')} cancelled, ${sum('skipped')} skipped, in ${(total / 60).toFixed(1)} min (${total.toFixed(0)} s)`);
if (failed.length) {
  console.log('failed files:');
  for (const r of failed) console.log(`  ${r.files.join(', ')} (exit ${r.code}, ${r.fail} failed)`);
}
process.exit(failed.length ? 1 : 0);
