#!/usr/bin/env node
// Entry point of the `commerce` command: runs the compiled service in dist/ (built by `npm run build`, which
// `npm install` runs). Development can run the TypeScript sources directly with `npm run dev`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('dist/cli.js is missing: run `npm run build` first (npm install runs it).\n');
  process.exit(1);
}
// Tracing (OTEL_EXPORTER_OTLP_ENDPOINT set) starts before the service is imported: its instrumentations patch
// fastify, pg and ioredis as they load. Without it nothing from OpenTelemetry is loaded.
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
  const { startTracing } = await import(new URL('../dist/tracing.js', import.meta.url).href);
  await startTracing(process.env);
}
const { main } = await import(entry.href);
main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
