#!/usr/bin/env node
// Entry point of the `commerce` command: runs the compiled service in dist/ (built by `npm run build`, which
// `npm install` runs). Development can run the TypeScript sources directly with `npm run dev`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('dist/cli.js is missing: run `npm run build` first (npm install runs it).\n');
  process.exit(1);
}
const { main } = await import(entry.href);
main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
