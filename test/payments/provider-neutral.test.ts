import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkoutConfigured, paidAtOf, providerNameOrDefault, providersWith, providerTraits, PROVIDER_NAMES } from '../../src/payments/registry';

// Issue 42: what differs between payment providers lives in src/payments/ (the adapters and registry.ts's traits), so
// that adding a provider touches payments/, its settings form and its return page only. This test reads src/ and fails
// when code outside those places branches on Toss by name again or reaches into Toss's adapter.

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** Where a provider's name may be branched on: the adapters, the settings form that chooses one, the return pages. */
const MAY_KNOW_TOSS: ReadonlyMap<string, string> = new Map([
  ['src/dashboard/pages/settings.ts', "the dashboard's settings form: the provider <select> and its Toss key fields"],
  ['src/stores/toss-keys.ts', "Toss's settings check: the keys' shape and kind, verified with Toss before they are saved"],
  ['src/pages/pay/toss-return.ts', "Toss's return page (its success/fail redirects)"],
  ['src/pages/pay/toss-view.ts', "Toss's payment window launch page"],
  ['src/pages/pay/toss-billing-view.ts', "Toss's billing-auth window launch page"],
  ['src/pages/pay/portone-view.ts', "PortOne's payment window launch page: `case 'toss'` there is the METHOD 토스페이 becoming PortOne's TOSSPAY"],
]);

/** Files where `'toss'` is 토스페이, the easy-pay payment METHOD (PaymentMethod), not the provider: only comparisons are checked there. */
const METHOD_TOSS: ReadonlySet<string> = new Set(['src/orders/schemas.ts', 'src/tax/model.ts', 'src/pages/form.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' ? [] : sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The code without its comments (a `//` after `:` is a URL in a string, not a comment). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, '')).replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** A branch on the provider's name: a comparison, a SQL filter, a default, a switch case, an instanceof. */
const BRANCH_PATTERNS: readonly RegExp[] = [
  /[=!]==?\s*['"`](?:toss|simulator)['"`]/, // the simulator by name too: "not the simulator" means "Toss"
  /['"`](?:toss|simulator)['"`]\s*[=!]==?/,
  /['"`][=<>!]+['"`]\s*,\s*['"`]toss['"`]/, // .where('provider', '=', 'toss')
  /\?\?\s*['"`]toss['"`]/,
  /\?\s*['"`]\w+['"`]\s*:\s*['"`]toss['"`]|\?\s*['"`]toss['"`]\s*:/, // … ? 'simulator' : 'toss'
  /case\s+['"`]toss['"`]\s*:/,
  /instanceof\s+TossProvider/,
];
/** Reaching Toss's adapter itself rather than the provider interface. */
const TOSS_ADAPTER = /from\s+['"][./]*(?:\.\.\/)*payments\/toss[^'"]*['"]|\b(?:TossProvider|tossProviderFor)\b/;

/** Every line outside payments/ and the allowed files that knows Toss as a provider, as `path:line: text`. */
function tossBranches(files: { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const f of files) {
    if (f.path.startsWith('src/payments/') || MAY_KNOW_TOSS.has(f.path)) continue;
    code(f.text)
      .split('\n')
      .forEach((line, i) => {
        // A bare 'toss' literal (not `toss` in a sentence of a description) is the provider's name outside METHOD_TOSS.
        const bare = !METHOD_TOSS.has(f.path) && /['"]toss['"]/.test(line);
        if (bare || BRANCH_PATTERNS.some((p) => p.test(line)) || TOSS_ADAPTER.test(line)) found.push(`${f.path}:${i + 1}: ${line.trim()}`);
      });
  }
  return found;
}

test('nothing outside payments/, the settings form and the return pages branches on Toss by name or reaches its adapter', () => {
  const files = sourceFiles(SRC).map((p) => ({ path: relative(ROOT, p).split('\\').join('/'), text: readFileSync(p, 'utf8') }));
  assert.ok(files.length > 100, 'read src/');
  assert.deepEqual(tossBranches(files), [], "a provider's difference belongs in src/payments/registry.ts (a trait) or the provider interface");
});

test('the guard sees each kind of branch it is there to stop (and not the payment method 토스페이)', () => {
  const at = (path: string, text: string) => tossBranches([{ path, text }]).length;
  assert.equal(at('src/checkout/settle.ts', "paid_at: p.provider === 'toss' ? result.approvedAt : now,"), 1);
  assert.equal(at('src/refunds/service.ts', "if (order.provider !== 'toss') return;"), 1);
  assert.equal(at('src/gateway/repo.ts', "    .where('provider', '=', 'toss')"), 1);
  assert.equal(at('src/x.ts', "const name = settings.payment_provider ?? 'toss';"), 1);
  assert.equal(at('src/x.ts', "const name = mode === 'test' ? 'simulator' : 'toss';"), 1);
  assert.equal(at('src/x.ts', "import { TossProvider } from '../payments/toss';"), 1);
  assert.equal(at('src/x.ts', "if (p instanceof TossProvider) {}"), 1);
  assert.equal(at('src/dashboard/pages/order-detail.ts', "payment.provider === 'simulator' ? L('시뮬레이터', 'Simulator') : L('토스페이먼츠', 'Toss Payments')"), 1);
  assert.equal(at('src/tax/model.ts', "if (order.provider === 'toss') {}"), 1, 'a comparison is a branch even where 토스페이 is a method');
  assert.equal(at('src/pages/form.ts', "  { value: 'toss', label: '토스페이', payWith: '토스페이로' },"), 0);
  assert.equal(at('src/x.ts', "const provider: PaymentProviderName = 'toss';"), 1);
  assert.equal(at('src/tax/model.ts', "const EASY_PAYS = new Set(['kakao_pay', 'naver_pay', 'toss']);"), 0);
  assert.equal(at('src/payments/index.ts', "if (settings.payment_provider === 'toss') {}"), 0);
  assert.equal(at('src/pages/pay/toss-return.ts', "if (page.provider?.name !== 'toss') return notFound();"), 0);
  assert.equal(at('src/x.ts', "// Toss: paid when approved (https://docs.tosspayments.com/reference), like 'toss' === x"), 0);
});

test('the traits say what each provider did before they were traits', () => {
  assert.deepEqual([...PROVIDER_NAMES], ['simulator', 'toss', 'portone']);
  const approvedAt = new Date('2026-01-01T14:59:59.000Z');
  const now = new Date('2026-01-01T15:00:01.000Z');
  // Toss: paid when Toss approved it (the day its ledger has it); the simulator and a 0-won order: our clock.
  assert.equal(paidAtOf('toss', 1000, { approvedAt }, now), approvedAt);
  assert.equal(paidAtOf('toss', 0, { approvedAt }, now), now);
  assert.equal(paidAtOf('simulator', 1000, { approvedAt }, now), now);
  assert.equal(providerTraits('toss').checksBalanceBeforePartialRefund, true);
  assert.equal(providerTraits('simulator').checksBalanceBeforePartialRefund, false);
  assert.deepEqual(providersWith('notifies'), ['toss', 'portone']);
  assert.equal(providerTraits('simulator').testOnly, true);
  assert.equal(providerTraits('toss').testOnly, false);
  assert.deepEqual(providerTraits('toss').label, { ko: '토스페이먼츠', en: 'Toss Payments' });
  assert.deepEqual(providerTraits('simulator').label, { ko: '테스트 결제 (시뮬레이터)', en: 'Test payments (simulator)' });
  assert.deepEqual(providersWith('reconciledDaily'), ['toss', 'portone']);
  assert.equal(providerNameOrDefault(null, 'test'), 'simulator');
  assert.equal(providerNameOrDefault(null, 'live'), 'toss');
  assert.equal(providerNameOrDefault('toss', 'test'), 'toss');
  const set = { tossClientKey: 'test_ck_x', tossSecretKeySet: true };
  assert.equal(checkoutConfigured({ mode: 'test', paymentProvider: 'simulator', ...set }), true);
  assert.equal(checkoutConfigured({ mode: 'live', paymentProvider: 'simulator', ...set }), false);
  assert.equal(checkoutConfigured({ mode: 'live', paymentProvider: 'toss', ...set }), true);
  assert.equal(checkoutConfigured({ mode: 'live', paymentProvider: 'toss', tossClientKey: null, tossSecretKeySet: true }), false);
  assert.equal(checkoutConfigured({ mode: 'live', paymentProvider: 'toss', tossClientKey: 'live_ck_x', tossSecretKeySet: false }), false);
  assert.equal(checkoutConfigured({ mode: 'test', paymentProvider: null, ...set }), false);
  // PortOne (issue 42): paid when PortOne says it was, its balance read before a partial refund, its store id and API secret needed.
  assert.equal(paidAtOf('portone', 1000, { approvedAt }, now), approvedAt);
  assert.equal(providerTraits('portone').checksBalanceBeforePartialRefund, true);
  assert.equal(checkoutConfigured({ mode: 'live', paymentProvider: 'portone', ...set }), false);
  assert.equal(checkoutConfigured({ mode: 'live', paymentProvider: 'portone', ...set, portoneStoreId: 'store-x', portoneApiSecretSet: true }), true);
});
