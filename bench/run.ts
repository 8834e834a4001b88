// `npm run bench`: runs every bench/*.bench.ts in turn (or those named on the command line) and prints their figures.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
// Words name benchmarks; flags (`--bare-ref`) are read by the benchmarks themselves.
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
for (const f of files) {
  console.log(`\n### ${f.replace('.bench.ts', '')}`);
  const mod = await import(join(here, f));
  await mod.default();
}
process.exit(0);
