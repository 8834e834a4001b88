import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvCell, csvLine, CSV_BOM } from '../../src/orders/csv';

test('CSV cells: quotes, commas and line breaks are quoted with quotes doubled; plain text and numbers stay as they are', () => {
  assert.equal(csvCell('김구매'), '김구매');
  assert.equal(csvCell(15000), '15000');
  assert.equal(csvCell(null), '');
  assert.equal(csvCell('a,b'), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('line1\nline2'), '"line1\nline2"');
  assert.equal(csvLine(['a', 1, null]), 'a,1,\r\n');
});

test('CSV cells that a spreadsheet would run as a formula become text (leading apostrophe)', () => {
  for (const evil of ['=HYPERLINK("http://x","y")', '+1+2', '-2+3', '@SUM(A1)', '\tx', '\rx']) {
    const out = csvCell(evil);
    assert.ok(out.startsWith(`"'`), `${JSON.stringify(evil)} → ${out}`);
  }
  assert.equal(csvCell('=1+1'), `"'=1+1"`);
  // a negative amount would be a number, not text, and stays numeric
  assert.equal(csvCell(-5), '-5');
});

test('the BOM is the UTF-8 byte-order mark Excel looks for', () => {
  assert.deepEqual([...Buffer.from(CSV_BOM, 'utf8')], [0xef, 0xbb, 0xbf]);
});
