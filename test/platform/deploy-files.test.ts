import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config';
import { HELP } from '../../src/cli';
import { PRODUCTION_MALLOC } from '../../bench/lib';

// The Dockerfile, deploy/compose.yaml and deploy/Caddyfile are not run here (no container engine on the test machine):
// these checks keep them from drifting away from the code: the commands exist, every variable is one the service reads
// (and the README documents), the values pass the service's own validation, the proxy reaches the servers' /ready.

const dockerfile = readFileSync('Dockerfile', 'utf8');
const compose = readFileSync('deploy/compose.yaml', 'utf8');
const caddyfile = readFileSync('deploy/Caddyfile', 'utf8');
const readme = readFileSync('README.md', 'utf8');
const configSource = readFileSync('src/config.ts', 'utf8');

/** Variables src/config.ts reads: `env.NAME` and `int(env, 'NAME', …)`-style helpers. */
const CONFIG_VARS = new Set([...configSource.matchAll(/env\.([A-Z][A-Z0-9_]+)|env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? m[2]));

/** Top-level (indent 0) and service (indent 2 under `services:`) blocks of the compose file, by name. */
function blocks(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let inServices = false;
  let current: string[] | null = null;
  for (const line of compose.split('\n')) {
    const top = /^([a-z][\w-]*):/.exec(line);
    if (top) {
      inServices = top[1] === 'services';
      current = inServices ? null : [];
      if (!inServices) out.set(top[1], current!);
      continue;
    }
    const svc = inServices ? /^ {2}([a-z][\w-]*):\s*$/.exec(line) : null;
    if (svc) {
      current = [];
      out.set(svc[1], current);
      continue;
    }
    current?.push(line);
  }
  return out;
}

/** KEY: value lines of an `environment:` mapping (and of the x-app-env anchor), quotes removed. */
function envOf(lines: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of lines) {
    const m = /^\s+([A-Z][A-Z0-9_]*):\s*(.*)$/.exec(line);
    if (m) env[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
  }
  return env;
}

/** Compose interpolation with sample values: `${X:?msg}` must be given (a sample stands in), `${X:-d}` defaults. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Z_]+)(?::([?-])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    if (op === '-') return arg ?? '';
    return name === 'MASTER_KEY' ? 'ab'.repeat(32) : 'sample';
  });
}

const all = blocks();
const appEnv = envOf(all.get('x-app-env') ?? []);
const appServices = [...all.entries()].filter(([, lines]) => lines.some((l) => /<<: \*app$/.test(l.trim())));

test('compose: two servers, one worker, PostgreSQL, Redis and Caddy; our services run real CLI commands', () => {
  for (const name of ['postgres', 'redis', 'caddy', 'server1', 'server2', 'worker']) assert.ok(all.has(name), `service ${name}`);
  assert.deepEqual(appServices.map(([n]) => n).sort(), ['server1', 'server2', 'worker']);
  const commands = appServices.map(([name, lines]) => {
    const raw = lines.find((l) => l.trim().startsWith('command:'));
    assert.ok(raw, `${name} has a command`);
    return { name, argv: JSON.parse(raw.trim().slice('command:'.length)) as string[] };
  });
  for (const { name, argv } of commands) {
    assert.deepEqual(argv.slice(0, 2), ['node', 'bin/commerce.js'], name);
    const [cmd, ...flags] = argv.slice(2);
    const usage = HELP.split('\n').find((l) => l.trim().startsWith(`commerce ${cmd}`));
    assert.ok(usage, `${name}: \`commerce ${cmd}\` is a command`);
    for (const f of flags) assert.ok(usage.includes(f), `${name}: ${cmd} takes ${f}`);
  }
  assert.equal(commands.filter((c) => c.argv[2] === 'start' && c.argv.includes('--no-worker')).length, 2, 'two servers without in-process workers');
  assert.equal(commands.filter((c) => c.argv[2] === 'worker').length, 1, 'one worker');
  assert.ok(existsSync('bin/commerce.js'));
});

test('compose: every variable given to our services is one src/config.ts reads and the README documents, and the values pass its validation', () => {
  for (const [name, lines] of appServices) {
    const env = { ...appEnv, ...envOf(lines) };
    for (const key of Object.keys(env)) {
      assert.ok(CONFIG_VARS.has(key), `${name}: ${key} is read by src/config.ts`);
      assert.ok(readme.includes(`| \`${key}\` |`), `${name}: ${key} is in the README's configuration table`);
    }
    const values = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(v)]));
    const config = loadConfig(values);
    assert.ok(config.databaseUrl?.startsWith('postgres://'), `${name} uses PostgreSQL`);
    assert.ok(config.redisUrl, `${name} shares rate limits through Redis`);
    if (name.startsWith('server')) {
      assert.deepEqual(config.trustProxy, ['172.28.0.10'], `${name} trusts the proxy`);
      assert.ok(config.drainDelayMs > 0, `${name} drains before closing its listener`);
    }
  }
  assert.match(all.get('caddy')!.join('\n'), /ipv4_address: 172\.28\.0\.10/, 'TRUST_PROXY names the proxy\'s fixed address');
  assert.match(appEnv.MASTER_KEY, /^\$\{MASTER_KEY:\?/, 'MASTER_KEY must be given, never defaulted');
});

test('Caddyfile: balances over both servers on the port the image listens on, health-checked on /ready', () => {
  const port = /PORT=(\d+)/.exec(dockerfile)?.[1];
  assert.ok(port);
  const upstreams = /reverse_proxy ([^{]+)\{/.exec(caddyfile)?.[1].trim().split(/\s+/);
  assert.deepEqual(upstreams, [`server1:${port}`, `server2:${port}`]);
  assert.match(caddyfile, /health_uri \/ready/);
  assert.match(caddyfile, /health_status 200/);
});

test('Dockerfile: multi-stage, production dependencies only, non-root, /ready health check, node as PID 1 running start', () => {
  const stages = [...dockerfile.matchAll(/^FROM (\S+)(?: AS (\S+))?/gm)].map((m) => ({ image: m[1], name: m[2] }));
  assert.equal(stages.length, 2);
  assert.match(stages[1].image, /^node:(20|22)-bookworm-slim$/);
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  assert.match(runtime, /npm ci --omit=dev[^\n]*--ignore-scripts/, 'runtime installs production dependencies without the build');
  assert.match(runtime, /COPY --from=build \/app\/dist \.\/dist/);
  assert.match(runtime, /^USER (?!root)\S+/m);
  assert.match(runtime, /^HEALTHCHECK [^\n]*\\\n[^\n]*\/ready/m);
  assert.match(runtime, /^CMD \["node", "bin\/commerce\.js", "start"\]$/m, 'exec form: node is PID 1 and gets SIGTERM');
  for (const m of runtime.matchAll(/^COPY (?!--from)(\S+)/gm)) assert.ok(existsSync(m[1]), `COPY ${m[1]} exists`);
  assert.match(dockerfile, /RUN npm run build/);
  const ignore = readFileSync('.dockerignore', 'utf8').split('\n');
  for (const x of ['node_modules', 'dist', 'data', '.env']) assert.ok(ignore.includes(x), `.dockerignore lists ${x}`);
  for (const key of [...runtime.matchAll(/^\s*(?:ENV )?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1])) {
    if (key.startsWith('MALLOC_')) continue; // glibc's, read by the C library at exec (below)
    assert.ok(CONFIG_VARS.has(key), `ENV ${key} is read by src/config.ts`);
  }
});

test("Dockerfile: the runtime sets glibc's allocator as the soak and the bench run the service (PRODUCTION_MALLOC)", () => {
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const set = Object.fromEntries([...runtime.matchAll(/^\s*(?:ENV )?(MALLOC_[A-Z_]+)=(\S+?)\s*\\?$/gm)].map((m) => [m[1], m[2]]));
  assert.deepEqual(set, PRODUCTION_MALLOC);
});

test('Caddyfile: /metrics is never forwarded to the public; compose passes METRICS_TOKEN to the servers (issue 30)', () => {
  assert.match(caddyfile, /^\s*respond \/metrics 404\s*$/m);
  const block = caddyfile.slice(caddyfile.indexOf('{$SITE_ADDRESS'));
  assert.ok(block.indexOf('respond /metrics 404') < block.indexOf('reverse_proxy'), 'before the proxy, in the site block');
  assert.match(readFileSync('deploy/compose.yaml', 'utf8'), /METRICS_TOKEN: \$\{METRICS_TOKEN:-\}/);
});
