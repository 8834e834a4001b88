import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestApp } from '../../../test/helpers/app';
import { SDK_SCHEMA_PATH, sdkSchemaSource } from '../../../scripts/sdk-generate';

// The SDK's types must be the served document's: a route schema changed without `npm run sdk:generate` fails here.
test('packages/sdk/src/schema.d.ts is what openapi-typescript generates from the served /v1/openapi.json', async () => {
  const t = await createTestApp();
  try {
    const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
    const expected = await sdkSchemaSource(doc);
    const committed = readFileSync(SDK_SCHEMA_PATH, 'utf8');
    if (committed !== expected) {
      const a = committed.split('\n');
      const b = expected.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      assert.fail(`packages/sdk/src/schema.d.ts is out of date (first difference at line ${line + 1}: committed ${JSON.stringify(a[line])}, served ${JSON.stringify(b[line])}); run \`npm run sdk:generate\``);
    }
  } finally {
    await t.close();
  }
});
