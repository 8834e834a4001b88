import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createTestApp } from '../helpers/app';
import { notImplemented } from '../../src/platform/http/not-implemented';
import type { Module } from '../../src/deps';

/** Log lines (pino JSON) of an app with one 501 route and one failing route. */
test('a 501 NOT_IMPLEMENTED is logged at warn, not error; a real failure still is an error', async () => {
  const lines: any[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const mod: Module = async (app) => {
    app.get('/probe/later', notImplemented);
    app.get('/probe/boom', async () => {
      throw new Error('boom');
    });
  };
  const t = await createTestApp({ extraModules: [mod], log: pino({ level: 'info' }, stream) });
  try {
    const later = await t.app.inject({ url: '/probe/later' });
    assert.equal(later.statusCode, 501);
    assert.equal(later.json().code, 'NOT_IMPLEMENTED');
    const mine = lines.filter((l) => l.code === 'NOT_IMPLEMENTED' || /NOT_IMPLEMENTED/.test(JSON.stringify(l)));
    assert.ok(mine.length >= 1, 'the 501 is logged');
    for (const l of mine) assert.ok(l.level < 50, `logged below error level: ${JSON.stringify(l)}`);
    assert.ok(mine.some((l) => l.level === 40), 'at warn');

    lines.length = 0;
    assert.equal((await t.app.inject({ url: '/probe/boom' })).statusCode, 500);
    assert.ok(lines.some((l) => l.level === 50), 'a 500 is still logged at error level');
  } finally {
    await t.close();
  }
});
