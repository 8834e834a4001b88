// Preloaded into the server by `npm run bigstore` (node --import ./bench/capture-queries.mjs bin/commerce.js start) for
// its EXPLAIN check: while capture is on (SIGUSR2 toggles it), every SELECT the server sends through node-postgres is
// appended, with its parameters, as one JSON line to BIGSTORE_CAPTURE. Off by default, so the timed requests run the
// production code path untouched. Never loaded by the service itself.
import { appendFileSync } from 'node:fs';
import pg from 'pg';

const file = process.env.BIGSTORE_CAPTURE;
if (file) {
  let on = false;
  process.on('SIGUSR2', () => {
    on = !on;
  });
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    if (on) {
      const text = typeof config === 'string' ? config : config?.text;
      const params = Array.isArray(values) ? values : config?.values;
      if (typeof text === 'string' && /^\s*(select|with)\b/i.test(text)) {
        appendFileSync(file, JSON.stringify({ text, values: (params ?? []).map((v) => (v instanceof Date ? v.toISOString() : v)) }) + '\n');
      }
    }
    return original.call(this, config, values, callback);
  };
}
