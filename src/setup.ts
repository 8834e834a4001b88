import type { AppDeps } from './deps';
import { assertReturnUrlDomains, createStore, updateModeSettings } from './stores/service';
import { ALL_SCOPES, createApiKey } from './stores/api-keys';
import { createMember, normalizeEmail } from './dashboard/members';
import { mailMemberPassword, type MailOutcome } from './dashboard/mail';
import { isValidEmail } from './platform/text';
import { TEST_CARDS } from './payments';

/**
 * `commerce setup`: a store ready for its first test payment in one step (the PostgreSQL counterpart of the embedded
 * demo, without sample data): the store, a test API key with every scope, its owner as a dashboard member (password
 * mailed through SMTP_URL, else printed once), and test mode's return-URL allow-list holding this machine and the
 * service's public host. Nothing live: going live is the operator's and the seller's later steps (the production
 * manual's order).
 */
export interface SetupInput {
  name: string;
  email: string;
  ownerName?: string;
  /** Extra hosts test mode's successUrl/cancelUrl may use (the shop's own domain). */
  returnDomains?: string[];
}

export interface SetupResult {
  storeId: string;
  storeName: string;
  ownerToken: string;
  testApiKey: string;
  owner: { email: string; name: string };
  /** The generated password (printed only when it was not mailed, or with --print). */
  password: string;
  mail: MailOutcome | null;
  returnUrlDomains: string[];
  /** The hosts given with --return-domains (beyond this machine and the service's own host): the shop's own domain. */
  shopDomains: string[];
}

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

/** Everything checked before anything is written, so a typo leaves no half-made store behind. */
export function checkSetupInput(input: SetupInput, publicBaseUrl: string): { name: string; email: string; ownerName: string; returnUrlDomains: string[]; shopDomains: string[] } {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100) throw new Error('--name: 1 to 100 characters');
  const email = normalizeEmail(input.email);
  if (!isValidEmail(email)) throw new Error(`--email: not an e-mail address: ${input.email}`);
  const ownerName = (input.ownerName ?? email.slice(0, email.indexOf('@'))).trim();
  if (ownerName.length < 1 || ownerName.length > 100) throw new Error('--owner-name: 1 to 100 characters');
  const host = new URL(publicBaseUrl).hostname.toLowerCase();
  const defaults = ['localhost', '127.0.0.1', host];
  const returnUrlDomains = [...new Set([...defaults, ...(input.returnDomains ?? []).map((d) => d.trim().toLowerCase()).filter(Boolean)])];
  const shopDomains = returnUrlDomains.filter((d) => !defaults.includes(d));
  try {
    assertReturnUrlDomains(returnUrlDomains);
  } catch {
    throw new Error(`--return-domains: host names only (shop.example.com, localhost:4000): ${returnUrlDomains.join(', ')}`);
  }
  return { name, email, ownerName, returnUrlDomains, shopDomains };
}

export async function setupStore(deps: Deps, input: SetupInput): Promise<SetupResult> {
  const checked = checkSetupInput(input, deps.config.publicBaseUrl);
  const { store, ownerToken } = await createStore(deps, { name: checked.name });
  await updateModeSettings(deps, store.id, 'test', { returnUrlDomains: checked.returnUrlDomains });
  const { secret } = await createApiKey(deps, store.id, { mode: 'test', name: 'setup', scopes: ALL_SCOPES });
  const { member, password } = await createMember(deps, { storeId: store.id, email: checked.email, name: checked.ownerName, role: 'owner' }, { kind: 'operator', id: null, name: null });
  // After the commit: the member exists whatever the mail does.
  const mail = await mailMemberPassword(deps, store.id, member, password, 'created');
  return { storeId: store.id, storeName: checked.name, ownerToken, testApiKey: secret, owner: { email: member.email, name: member.name }, password, mail, returnUrlDomains: checked.returnUrlDomains, shopDomains: checked.shopDomains };
}

/** What `commerce setup` prints: like the demo's banner, every secret shown once, then the next steps. */
export function setupBanner(r: SetupResult, baseUrl: string, o: { print?: boolean } = {}): string {
  const dashboard =
    r.mail?.sent && !o.print
      ? `e-mail ${r.owner.email}  password mailed to ${r.owner.email}`
      : `e-mail ${r.owner.email}  password ${r.password}${r.mail && !r.mail.sent ? `  (the mail could not be sent: ${r.mail.error})` : ''}`;
  return [
    '',
    `  Store created: ${r.storeName} (test mode ready; live mode comes later)`,
    `  store id     : ${r.storeId}`,
    `  owner token  : ${r.ownerToken}`,
    `  test API key : ${r.testApiKey}`,
    `  dashboard    : ${baseUrl}/dashboard  ${dashboard}`,
    `  test return URLs may use: ${r.returnUrlDomains.join(', ')} (and their subdomains)`,
    '  The owner token, the key and a printed password are shown only now: keep them in your secret store.',
    '',
    '  Next:',
    ...nextSteps(r, baseUrl).map((step, i) => `  ${i + 1}. ${step}`),
    '',
  ].join('\n');
}

/**
 * The steps setup leaves, and only those (a shop domain given with --return-domains is not asked for again). Every
 * link is a page the service serves: the guides live at /docs/{ko,en}/<slug>, Korean first for Korean sellers.
 */
function nextSteps(r: SetupResult, baseUrl: string): string[] {
  const guide = (slug: string) => `${baseUrl}/docs/ko/${slug} (English: ${baseUrl}/docs/en/${slug})`;
  return [
    ...(r.shopDomains.length ? [] : [`Add your shop's domain to test mode's return URLs: dashboard Settings, or PUT ${baseUrl}/admin/v1/store/settings/test`]),
    `A product: the dashboard's Products, or POST ${baseUrl}/admin/v1/products with the owner token`,
    `A test payment: POST ${baseUrl}/v1/checkout/sessions with the test key, then pay on its url with the card ${TEST_CARDS.success.replace(/(\d{4})(?=\d)/g, '$1 ')}; how: ${guide('accept-payments')}`,
    `Subscriptions (monthly, yearly, a free trial): ${guide('subscription-checkout')}`,
    `Going live: ${guide('go-live-toss')} (business details, Toss keys, the operator's store verify, a live key)`,
  ];
}

/**
 * Printed (and logged) when a server starts on a database without any store: the command that makes one. The embedded
 * database admits one process, so there the command runs with the server stopped, or the API is used instead.
 */
export function noStoreBanner(databaseKind: 'pglite' | 'postgres', baseUrl: string): string {
  const command = 'npx commerce setup --name "<store name>" --email <owner e-mail>';
  return [
    '',
    '  No store yet. Create one, with a test API key and the dashboard owner, in one step:',
    `    ${command}`,
    databaseKind === 'postgres'
      ? '  (from any shell with the same DATABASE_URL and MASTER_KEY, while this server runs; PUBLIC_BASE_URL is taken from this server)'
      : '  (the embedded database admits one process: stop this server first, or start it with --demo for a sample store)',
    `  Then: ${baseUrl}/dashboard, and the production manual's "From an empty database to the first live payment": ${baseUrl}/docs/manual/production-deployment`,
    '',
  ].join('\n');
}

export const NO_STORE_LOG = 'no store yet: run `npx commerce setup --name "<store name>" --email <owner e-mail>`';
