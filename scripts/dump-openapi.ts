// Writes the public and seller-console OpenAPI documents to a directory (for linting or publishing).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp } from '../test/helpers/app';

const out = process.argv[2] ?? 'openapi';
mkdirSync(out, { recursive: true });
const t = await createTestApp();
try {
  for (const [name, url] of [['v1', '/v1/openapi.json'], ['admin', '/admin/v1/openapi.json']]) {
    const res = await t.app.inject({ url });
    writeFileSync(join(out, `${name}.json`), JSON.stringify(res.json(), null, 2));
  }
  console.log(`wrote ${out}/v1.json and ${out}/admin.json`);
} finally {
  await t.close();
}
