// Lints the two served OpenAPI documents (/v1 and the seller console's /admin/v1) with Spectral (`spectral:oas`,
// .spectral.yaml) and Redocly (`recommended-strict`, redocly.yaml), and fails on any finding, warnings and hints included.
// The linters come from devDependencies (`npx --no-install`): CI never downloads them at run time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd: string, args: string[]) =>
  spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });

/** Lints OpenAPI documents already written to disk; `ok` is false on any finding of either linter. */
export function lintOpenApiFiles(docs: string[]): { ok: boolean; report: string } {
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  let failed = false;

  const spectral = run('npx', ['--no-install', 'spectral', 'lint', '--ruleset', '.spectral.yaml', '--fail-severity', 'hint', '--format', 'text', ...docs]);
  const spectralOut = spectral.stdout.trim();
  log(`spectral (spectral:oas): ${spectral.status === 0 ? 'no findings' : 'FINDINGS'}\n${spectralOut}`);
  if (spectral.status !== 0) failed = true;

  for (const doc of docs) {
    const redocly = run('npx', ['--no-install', 'redocly', 'lint', doc, '--format', 'json']);
    let totals: { errors: number; warnings: number } | undefined;
    let problems: unknown[] = [];
    try {
      const report = JSON.parse(redocly.stdout);
      totals = report.totals;
      problems = report.problems;
    } catch {
      log(`redocly: could not read its report for ${doc}:\n${redocly.stdout}${redocly.stderr}`);
      failed = true;
      continue;
    }
    log(`redocly (recommended-strict) ${doc.split('/').pop()}: ${totals!.errors} errors, ${totals!.warnings} warnings`);
    for (const p of problems as { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[]) {
      log(`  ${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
    }
    if (redocly.status !== 0 || totals!.errors > 0 || totals!.warnings > 0) failed = true;
  }
  return { ok: !failed, report: lines.join('\n') };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-openapi-'));
  try {
    const dump = run(process.execPath, ['--import', 'tsx', 'scripts/dump-openapi.ts', dir]);
    if (dump.status !== 0) throw new Error(`could not dump the documents:\n${dump.stdout}${dump.stderr}`);
    const { ok, report } = lintOpenApiFiles(['v1.json', 'admin.json'].map((f) => join(dir, f)));
    console.log(report);
    process.exitCode = ok ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
