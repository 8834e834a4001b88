import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { MESSAGES } from '../../src/platform/messages';

/**
 * Korean API messages live in two catalogs (STYLE.md habit 1): ERROR_CATALOG (src/platform/errors.ts) for each code's
 * default message, MESSAGES (src/platform/messages.ts) for the specific ones. This guard fails when a Korean string
 * literal is written inline where a client would receive it: as a `message:` property, or inside the arguments of
 * `new ApiError(…)`, `validationError(…)` or `new BuyerError(…)`. It reads the source through the TypeScript parser,
 * so comments never count and strings are recognised as strings.
 */

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/** Not API messages: page and dashboard UI, sample content, the gateways' own decline tables, CSV headers. */
const EXCLUDED_DIRS = ['pages', 'dashboard', 'docs-site', 'payments'];
const EXCLUDED_FILES = ['platform/messages.ts', 'platform/errors.ts', 'catalog/demo.ts', 'demo.ts', 'orders/csv.ts'];

const KOREAN = /[\uAC00-\uD7A3]/;
const CALLEES_NEW = new Set(['ApiError', 'BuyerError']);
const CALLEES_CALL = new Set(['validationError']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const rel = relative(SRC, p).split(sep).join('/');
    if (statSync(p).isDirectory()) {
      if (!EXCLUDED_DIRS.includes(rel)) sourceFiles(p, out);
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !EXCLUDED_FILES.includes(rel)) {
      out.push(p);
    }
  }
  return out;
}

/** Korean string or template literals anywhere under `node`. */
function koreanLiterals(node: ts.Node, found: ts.Node[] = []): ts.Node[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
    if (KOREAN.test(node.text)) found.push(node);
    return found;
  }
  if (ts.isTemplateExpression(node)) {
    const parts = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)];
    if (parts.some((x) => KOREAN.test(x))) found.push(node);
  }
  ts.forEachChild(node, (c) => void koreanLiterals(c, found));
  return found;
}

function calleeName(e: ts.Expression): string | null {
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return null;
}

/** "file:line: text" for every inline Korean message in `text`. */
function inlineMessages(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const hits: string[] = [];
  const report = (nodes: ts.Node[]) => {
    for (const n of nodes) {
      const { line } = sf.getLineAndCharacterOfPosition(n.getStart(sf));
      hits.push(`${fileName}:${line + 1}: ${n.getText(sf).slice(0, 80)}`);
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) && node.name.text === 'message') {
      report(koreanLiterals(node.initializer));
    } else if (ts.isNewExpression(node) && CALLEES_NEW.has(calleeName(node.expression) ?? '')) {
      for (const a of node.arguments ?? []) report(koreanLiterals(a));
      return;
    } else if (ts.isCallExpression(node) && CALLEES_CALL.has(calleeName(node.expression) ?? '')) {
      for (const a of node.arguments) report(koreanLiterals(a));
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...new Set(hits)];
}

test('no Korean API message is written inline outside the two catalogs (platform/messages.ts, platform/errors.ts)', () => {
  const files = sourceFiles(SRC);
  assert.ok(files.length > 50, `walked src/ (${files.length} files)`);
  const hits = files.flatMap((f) => inlineMessages(relative(SRC, f), readFileSync(f, 'utf8')));
  assert.deepEqual(hits, [], `move these messages to src/platform/messages.ts:\n${hits.join('\n')}`);
});

test('the guard sees inline messages in each form it polices, and ignores comments and catalog references', () => {
  const sample = [
    "// message: '주석은 괜찮습니다.'",
    "/* new ApiError('NOT_FOUND', { message: '주석' }) */",
    "throw new ApiError('NOT_FOUND', { message: '인라인 메시지' });",
    "throw validationError([{ field: 'x', message: `${n}자 이하여야 합니다.` }]);",
    "return { ok: false, field: 'y', message: cond ? MESSAGES.a : '삼항 안의 메시지' };",
    "throw new BuyerError('구매자 메시지');",
    "throw new ApiError('NOT_FOUND', { message: MESSAGES.subscriptions.noActiveSubscription });",
    "const label = '상호';",
  ].join('\n');
  const hits = inlineMessages('sample.ts', sample);
  assert.deepEqual(
    hits.map((h) => h.split(':')[1]),
    ['3', '4', '5', '6'],
    hits.join('\n'),
  );
});

test('catalog messages that carry values give the same words as before they moved', () => {
  assert.equal(MESSAGES.refundRequests.amountAboveRefundable(12000), '환불 요청 금액은 환불 가능한 금액(12,000원) 이하여야 합니다.');
  assert.equal(MESSAGES.validation.wrongType('string,null'), '문자열 또는 null 형식이어야 합니다.');
  assert.equal(MESSAGES.validation.valueNotAllowed('live, test'), '허용된 값이 아닙니다 (live, test).');
  assert.equal(MESSAGES.validation.valueNotAllowed(undefined), '허용된 값이 아닙니다.');
  assert.equal(MESSAGES.validation.badFormat('date-time', 1970, 9999), '날짜-시간(ISO 8601, 1970~9999년) 형식이 올바르지 않습니다.');
  assert.equal(MESSAGES.businessDetails.tooLong(MESSAGES.businessDetails.labels.companyName, 100), '상호은(는) 100자 이하로 입력해 주세요.');
  assert.ok(MESSAGES.webhooks.urlRefused.startsWith('허용되지 않는 웹훅 주소입니다. 공개된 http(s) 주소만 받을 수 있습니다. '));
});
