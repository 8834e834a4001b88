import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import semver from 'semver';

// `npm install` warns (EBADENGINE) for every installed package whose `engines.node` excludes the running Node; the
// service supports Node 20 (package.json engines), so no package in the lockfile may ask for more.
test('every package in the lockfile admits Node 20, so npm install prints no engine warning', () => {
  const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, { engines?: { node?: string } | string[] }> };
  const node20 = '20.19.0';
  const refused = Object.entries(lock.packages)
    .filter(([, p]) => p.engines && !Array.isArray(p.engines) && typeof p.engines.node === 'string')
    .filter(([, p]) => !semver.satisfies(node20, (p.engines as { node: string }).node, { includePrerelease: true }))
    .map(([name, p]) => `${name} wants node ${(p.engines as { node: string }).node}`);
  assert.deepEqual(refused, []);
});
