/**
 * The layer rules of the codebase, checked in CI (`npm run lint:deps`, Node 22). See docs/manual/15-architecture.md.
 *
 * platform, db        the floor: know nothing of any business area
 * payments            the gateway adapters: speak Toss, PortOne and the simulator, know nothing of orders or subscriptions
 * domain modules      stores, catalog, checkout, orders, refunds, subscriptions, licenses, webhooks, audit,
 *                     reconciliation, buyers, tax: business rules; they never import what faces people (pages, dashboard, mail)
 * faces               pages (buyers), dashboard (sellers' staff), mail, docs-site, gateway (Toss's callbacks)
 * composition         app.ts, modules.ts, deps.ts, serve.ts, runtime.ts, cli.ts, setup.ts, demo.ts
 */
const DOMAIN = '^src/(stores|catalog|checkout|orders|refunds|subscriptions|licenses|webhooks|audit|reconciliation|buyers|tax)/';
const FACES = '^src/(pages|dashboard|mail|docs-site)/';

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle: move the shared type or helper to the side both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'floor-knows-no-domain',
      severity: 'error',
      comment: 'platform/ and db/ are the floor every module stands on; they import no business area at run time.',
      from: { path: '^src/(platform|db)/' },
      to: { path: `${DOMAIN}|${FACES}|^src/(payments|jobs|gateway)/`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-does-not-face-people',
      severity: 'error',
      comment: 'A business module does not import pages, the dashboard or mail: those call into it, not the other way.',
      from: { path: DOMAIN },
      to: { path: FACES },
    },
    {
      name: 'payments-know-no-domain',
      severity: 'error',
      comment: 'The payment providers speak the gateway\'s language; orders and subscriptions call them, never the reverse.',
      from: { path: '^src/payments/' },
      to: { path: `${DOMAIN}|${FACES}` },
    },
    {
      name: 'only-payments-know-portone',
      severity: 'error',
      comment:
        'PortOne is one provider behind the payment interface (issue 42): outside src/payments/ nothing imports the portone* ' +
        'adapter files; everything goes through src/payments/index.ts, the provider interface and its traits (registry.ts). ' +
        'The exceptions are the files that choose and configure the provider, named one by one (today each of them still ' +
        'goes through payments/index.ts; they may import an adapter file when the form or page needs its exact shapes): ' +
        "the store settings' PortOne check (stores/portone-keys.ts: key shapes, verified with PortOne before a save), the pay " +
        "page's PortOne launch and return (pages/pay/portone-*.ts: the browser SDK's request is PortOne's own), the webhook " +
        "route (gateway/portone.ts: reads PortOne's signed deliveries), and the 세금계산서 provider over PortOne's B2B API " +
        '(tax/invoices/portone.ts, issue 40: a separate PortOne product, not a payment provider).',
      from: { pathNot: '^src/payments/|^src/stores/portone-keys[.]ts$|^src/pages/pay/portone-[a-z-]+[.]ts$|^src/gateway/portone[.]ts$|^src/tax/invoices/portone[.]ts$' },
      to: { path: '^src/payments/portone' },
    },
    {
      name: 'portone-sdk-only-in-its-adapters',
      severity: 'error',
      comment:
        "PortOne's server SDK is imported by the payment adapter (src/payments/) and by the 세금계산서 adapter over PortOne's B2B API " +
        '(src/tax/invoices/portone.ts, issue 40) only; the settings, pages and webhook route listed above reach it through ' +
        "payments/ (the webhook verifier is portone-webhook.ts), and the pay page loads PortOne's browser SDK from its CDN.",
      from: { pathNot: '^src/payments/|^src/tax/invoices/portone[.]ts$' },
      to: { path: '(^|/)node_modules/@portone/|^@portone/' },
    },
    {
      name: 'toss-adapter-stays-in-payments',
      severity: 'error',
      comment:
        'Issue 42: everything else reaches Toss through the provider interface and its traits (payments/index.ts, registry.ts), ' +
        "so a second provider touches payments/, its settings form and its return page only. Only payments/ and Toss's settings " +
        'check (stores/toss-keys.ts: the key shapes, verified with Toss before a save) import the Toss adapter modules.',
      from: { pathNot: '^src/payments/|^src/stores/toss-keys[.]ts$' },
      to: { path: '^src/payments/toss' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/db/migrations' },
  },
};
