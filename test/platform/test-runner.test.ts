import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

// The test runner (scripts/run-tests.mjs) runs fast files several to a process (issue 43: npm test spent most of its
// CPU loading the same modules in 250 processes). What a developer relies on: a file's hooks stay its own in a shared
// process, a file is never failed (or passed) by what another file left in the process, and a real failure still
// fails the run. Checked on a project of its own in a temporary directory, with the real runner.

const RUNNER = resolve('scripts');

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-runner-'));
  mkdirSync(join(dir, 'test'));
  symlinkSync(RUNNER, join(dir, 'scripts'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'test', name), text);
  return dir;
}

function run(dir: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['scripts/run-tests.mjs'], {
    cwd: dir,
    // One lane, so the files meet in one process; no PGlite template (these files open no database).
    env: { ...process.env, TEST_CONCURRENCY: '1', TEST_PGLITE_TEMPLATE: '', TEST_DATABASE_URL: '', TEST_GROUP_FILES: '8' },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

// The runner starts the biggest files first (no timings yet): the padding puts the polluter before its victim.
const PAD = `// ${'x'.repeat(3000)}\n`;
const POLLUTER = `${PAD}import { test } from 'node:test';\ntest('leaves a global behind', () => { (globalThis as any).__left = 1; });\n`;
const VICTIM = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('no global left by another file', () => { assert.equal((globalThis as any).__left, undefined); });\n`;
// Started after the two padded files and before the victim: were its hooks the process's, its beforeEach would run for
// the victim's test too, and its after hook (run at the very end) would see 3.
const HOOKS = `// ${'h'.repeat(1500)}
import { test, before, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
let each = 0;
let opened = false;
before(() => { opened = true; });
beforeEach(() => { each++; });
after(() => { assert.equal(each, 2, 'its beforeEach ran for its own two tests only'); });
test('first: its own before ran, its own beforeEach once', () => { assert.ok(opened); assert.equal(each, 1); });
test('second: its own beforeEach twice, no other file\\'s', () => { assert.equal(each, 2); });
`;
const OTHER_HOOKS = `${PAD}import { test, beforeEach } from 'node:test';\nbeforeEach(() => { (globalThis as any).__otherEach = ((globalThis as any).__otherEach ?? 0) + 1; });\ntest('one', () => {});\ntest('two', () => {});\n`;
const FAILS = `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('really fails', () => { assert.equal(1, 2); });\n`;

test('files share a process with their hooks their own; a file failed only by another file is run alone and passes, and is named', (t) => {
  const dir = project({ 'a-polluter.test.ts': POLLUTER, 'b-victim.test.ts': VICTIM, 'c-hooks.test.ts': HOOKS, 'd-other-hooks.test.ts': OTHER_HOOKS });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { code, out } = run(dir);
  assert.match(out, /━━ 4 files in one process — FAILED \(test\/b-victim\.test\.ts\)/, 'the four ran together, and the victim failed there');
  assert.match(out, /━━ test\/b-victim\.test\.ts — ok/, 'then alone, where it passes');
  assert.match(out, /failed in a shared process and passed alone \(1\)[^\n]*\n {2}test\/b-victim\.test\.ts/, 'and the summary names it');
  assert.match(out, /✔ test\/c-hooks\.test\.ts/, 'the file with hooks passed in the shared process (its beforeEach ran only for its tests)');
  assert.match(out, /4 files, 6 tests passed, 0 failed/, 'each file counted once, by its own run');
  assert.equal(code, 0, out);
});

test('a file that fails alone fails the run, named, and the group is counted by each file alone', (t) => {
  const dir = project({ 'a-hooks.test.ts': HOOKS, 'b-fails.test.ts': FAILS });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { code, out } = run(dir);
  assert.equal(code, 1, out);
  assert.match(out, /━━ test\/b-fails\.test\.ts — FAILED/);
  assert.match(out, /2 files, 2 tests passed, 1 failed/);
  assert.match(out, /failed files:\n {2}test\/b-fails\.test\.ts \(exit 1, 1 failed\)/);
  assert.doesNotMatch(out, /passed alone/);
});

test('TEST_GROUP_FILES=1 runs every file in its own process', (t) => {
  const dir = project({ 'a-polluter.test.ts': POLLUTER, 'b-victim.test.ts': VICTIM });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = spawnSync(process.execPath, ['scripts/run-tests.mjs'], {
    cwd: dir,
    env: { ...process.env, TEST_CONCURRENCY: '1', TEST_PGLITE_TEMPLATE: '', TEST_DATABASE_URL: '', TEST_GROUP_FILES: '1' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stdout);
  assert.doesNotMatch(r.stdout, /in one process/);
  assert.match(r.stdout, /2 files, 2 tests passed, 0 failed/);
});
