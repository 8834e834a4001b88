// Makes the migrated PGlite template the test runner hands to every test file (TEST_PGLITE_TEMPLATE): a new PGlite
// runs initdb, which costs seconds of CPU in each of ~150 files; loading a dumped, migrated cluster costs a fraction.
// Usage: node --import tsx test/helpers/pglite-template.ts <output.tar>
import { writeFileSync, renameSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { migratePGlite } from '../../src/db';

const out = process.argv[2];
if (!out) throw new Error('usage: pglite-template.ts <output.tar>');
const pglite = new PGlite();
await pglite.waitReady;
await migratePGlite(pglite);
const blob = await pglite.dumpDataDir('none');
const tmp = `${out}.${process.pid}`;
writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
renameSync(tmp, out);
await pglite.close();
