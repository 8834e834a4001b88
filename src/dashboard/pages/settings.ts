/**
 * /dashboard/settings: the store's business details, the session's mode's return-URL allow-list and Toss keys, the
 * trial and 현금영수증 switches, and the go-live checklist. Its words are in settings-text.ts.
 */
import type { FastifyReply } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { getBusinessDetails, getStoreView, updateBusinessDetails, updateModeSettings, updateStore } from '../../stores/service';
import type { BusinessDetailsInput } from '../../stores/schemas';
import { auditAction, csrfField, ctxOf, notice, requireRole, sendPage, type DashboardContext } from '../frame';
import { field, lines } from '../form';
import { METHODS } from '../../pages/form';
import { PROVIDER_NAMES, providerTraits } from '../../payments';
import { settingsTabs } from './settings-nav';
import { errorText } from './errors';
import { goLiveCard } from './go-live-view';
import { getGoLiveChecklist } from '../../stores/go-live-service';
import { notifyOwners } from '../owner-notice';
import { SETTINGS_TEXT } from './settings-text';

const m = SETTINGS_TEXT;

/** The business-details fields of the form, in order, with the input type and the help text they carry. */
const BUSINESS_FIELDS = [
  { name: 'companyName', type: 'text', max: 100, autocomplete: 'organization' },
  { name: 'representative', type: 'text', max: 50, autocomplete: 'name' },
  { name: 'businessNumber', type: 'text', max: 20, autocomplete: 'off', hint: 'businessNumberHint', inputmode: 'numeric' },
  { name: 'mailOrderNumber', type: 'text', max: 60, autocomplete: 'off', hint: 'mailOrderNumberHint' },
  { name: 'address', type: 'text', max: 200, autocomplete: 'street-address' },
  { name: 'supportPhone', type: 'tel', max: 30, autocomplete: 'tel', hint: 'supportHint' },
  { name: 'supportEmail', type: 'email', max: 254, autocomplete: 'email', hint: 'supportHint' },
] as const;
type BusinessField = (typeof BUSINESS_FIELDS)[number]['name'];
type BusinessForm = Record<BusinessField, string>;

interface Flash {
  ok?: string;
  error?: string;
  /** The business details as typed, shown again when the save was refused (so nothing typed is lost). */
  business?: BusinessForm;
  /** Fields the refusal named (VALIDATION_FAILED details), marked aria-invalid. */
  invalid?: string[];
}

async function render(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<FastifyReply> {
  const L = ctx.lang;
  const t = (k: Parameters<typeof m>[1], v?: Record<string, string>) => m(L, k, v);
  const store = await getStoreView(deps, ctx.member.storeId);
  const s = store.settings[ctx.mode];
  const biz = await getBusinessDetails(deps.db, ctx.member.storeId);
  // The go-live checklist sits beside the live switch's settings in both modes: it is what live mode still lacks.
  const goLive = await getGoLiveChecklist(deps, ctx.member.storeId);
  // Same rule as GET /admin/v1/store/business-details: live checkout needs the details set.
  const liveReady = biz !== null;
  const value = (f: BusinessField): string => (flash.business ? flash.business[f] : (biz?.[f] ?? ''));
  const shownHints = new Set<string>(); // phone and e-mail share one hint, printed once
  const bizFields = BUSINESS_FIELDS.map((f) => {
    const id = `biz-${f.name}`;
    const hint = 'hint' in f ? html` aria-describedby="hint-${f.hint}"` : '';
    const invalid = flash.invalid?.includes(f.name) ? html` aria-invalid="true"` : '';
    const required = f.name === 'supportPhone' || f.name === 'supportEmail' ? '' : html` required`;
    const mode = 'inputmode' in f ? html` inputmode="${f.inputmode}"` : '';
    return html`<label for="${id}">${t(f.name)}</label><input type="${f.type}" id="${id}" name="${f.name}" value="${value(f.name)}" maxlength="${String(f.max)}" autocomplete="${f.autocomplete}"${mode}${required}${hint}${invalid}>
${'hint' in f && !shownHints.has(f.hint) && shownHints.add(f.hint) ? html`<p class="hint" id="hint-${f.hint}">${t(f.hint)}</p>` : ''}`;
  });
  const body = html`${settingsTabs(L, ctx.member.role, '/dashboard/settings')}
${flash.ok ? notice('ok', flash.ok) : ''}${flash.error ? notice('error', flash.error) : ''}
${goLiveCard(L, goLive)}
<p class="muted">${t('modeNote', { mode: ctx.mode === 'test' ? (L === 'en' ? 'test' : '테스트') : L === 'en' ? 'live' : '라이브' })}</p>
<form class="card" method="post" action="/dashboard/settings/business-details" aria-labelledby="biz-h" data-testid="business-details">
${csrfField(ctx)}
<h2 id="biz-h">${t('business')}${biz?.sample ? html` <span class="tag test">${t('sample')}</span>` : ''}</h2>
<p data-testid="live-ready">${liveReady ? html`<span class="tag good">${t('liveReady')}</span>` : html`<span class="tag bad">${t('liveNotReady')}</span>`}</p>
<p class="muted">${t('businessHint')}</p>
${bizFields}
<p><button type="submit" class="primary">${t('save')}</button></p>
</form>
<form class="card" method="post" action="/dashboard/settings/return-urls" aria-labelledby="ru-h">
${csrfField(ctx)}
<h2 id="ru-h">${t('returnUrls')}</h2>
<label for="ru" class="skip">${t('returnUrls')}</label>
<textarea id="ru" name="returnUrlDomains" rows="4" aria-describedby="ru-hint">${s.returnUrlDomains.join('\n')}</textarea>
<p class="hint" id="ru-hint">${t('returnUrlsHint')}</p>
<p><button type="submit" class="primary">${t('save')}</button></p>
</form>
<form class="card" method="post" action="/dashboard/settings/payments" aria-labelledby="pay-h" autocomplete="off">
${csrfField(ctx)}
<h2 id="pay-h">${t('payments')}</h2>
<label for="provider">${t('provider')}</label>
<select id="provider" name="paymentProvider">
<option value=""${s.paymentProvider === null ? html` selected` : ''}>${t('providerNone')}</option>
${PROVIDER_NAMES.filter((n) => ctx.mode === 'test' || !providerTraits(n).testOnly).map((n) => html`<option value="${n}"${s.paymentProvider === n ? html` selected` : ''}>${t(n)}</option>
`)}</select>
<label for="ck">${t('clientKey')}</label><input type="text" id="ck" name="tossClientKey" value="${s.tossClientKey ?? ''}" maxlength="200">
<label for="sk">${t('secretKey')}</label><input type="password" id="sk" name="tossSecretKey" maxlength="200" autocomplete="new-password" aria-describedby="sk-hint">
<p class="hint" id="sk-hint" data-testid="secret-state">${s.tossSecretKeySet ? t('secretSet') : t('secretUnset')}</p>
${s.tossSecretKeySet ? html`<label class="method"><input type="checkbox" name="clearSecret" value="1"> ${t('secretClear')}</label>` : ''}
<fieldset data-testid="billing-keys" aria-describedby="bk-hint"><legend>${t('billingKeys')}</legend>
<p class="hint" id="bk-hint">${t('billingKeysHint')}</p>
<label for="bck">${t('billingClientKey')}</label><input type="text" id="bck" name="tossBillingClientKey" value="${s.tossBillingClientKey ?? ''}" maxlength="200">
<label for="bsk">${t('billingSecretKey')}</label><input type="password" id="bsk" name="tossBillingSecretKey" maxlength="200" autocomplete="new-password" aria-describedby="bsk-hint">
<p class="hint" id="bsk-hint" data-testid="billing-secret-state">${s.tossBillingSecretKeySet ? t('billingSecretSet') : t('billingSecretUnset')}</p>
${s.tossBillingSecretKeySet ? html`<label class="method"><input type="checkbox" name="clearBillingSecret" value="1"> ${t('billingSecretClear')}</label>` : ''}
</fieldset>
<label for="twh">${t('webhookUrl')}</label><input type="text" id="twh" value="${s.tossWebhookUrl}" readonly aria-describedby="twh-hint" data-testid="toss-webhook-url">
<p class="hint" id="twh-hint">${t('webhookUrlHint')}</p>
<fieldset data-testid="portone-fields" aria-describedby="po-hint"><legend>${t('portoneFields')}</legend>
<p class="hint" id="po-hint">${t('portoneHint')}</p>
<label for="pos">${t('portoneStoreId')}</label><input type="text" id="pos" name="portoneStoreId" value="${s.portoneStoreId ?? ''}" maxlength="100">
<label for="poa">${t('portoneApiSecret')}</label><input type="password" id="poa" name="portoneApiSecret" maxlength="500" autocomplete="new-password" aria-describedby="poa-hint">
<p class="hint" id="poa-hint" data-testid="portone-secret-state">${s.portoneApiSecretSet ? t('portoneApiSecretSet') : t('portoneApiSecretUnset')}</p>
<label for="pow">${t('portoneWebhookSecret')}</label><input type="password" id="pow" name="portoneWebhookSecret" maxlength="500" autocomplete="new-password" aria-describedby="pow-hint">
<p class="hint" id="pow-hint">${s.portoneWebhookSecretSet ? t('portoneWebhookSecretSet') : t('portoneWebhookSecretUnset')}</p>
${METHODS.map((mt) => html`<label for="poc-${mt.value}">${mt.label} ${t('portoneChannel')}</label><input type="text" id="poc-${mt.value}" name="portoneChannel_${mt.value}" value="${s.portoneChannelKeys[mt.value] ?? ''}" maxlength="100">`)}
<label for="powh">${t('portoneWebhookUrl')}</label><input type="text" id="powh" value="${s.portoneWebhookUrl}" readonly aria-describedby="powh-hint" data-testid="portone-webhook-url">
<p class="hint" id="powh-hint">${t('portoneWebhookUrlHint')}</p>
</fieldset>
<label for="bpu">${t('buyerPageUrl')}</label><input type="text" id="bpu" value="${s.buyerPageUrl}" readonly aria-describedby="bpu-hint" data-testid="buyer-page-url">
<p class="hint" id="bpu-hint">${t('buyerPageUrlHint')}</p>
<p><button type="submit" class="primary">${t('save')}</button></p>
</form>
<form class="card" method="post" action="/dashboard/settings/trials" aria-labelledby="tr-h">
${csrfField(ctx)}
<h2 id="tr-h">${t('trials')}</h2>
<label class="method"><input type="checkbox" name="allowRepeatTrials" value="1"${store.allowRepeatTrials ? html` checked` : ''} aria-describedby="tr-hint" data-testid="allow-repeat-trials"> ${t('allowRepeatTrials')}</label>
<p class="hint" id="tr-hint">${t('trialsHint')}</p>
<p><button type="submit" class="primary">${t('save')}</button></p>
</form>
<form class="card" method="post" action="/dashboard/settings/cash-receipts" aria-labelledby="cr-h">
${csrfField(ctx)}
<h2 id="cr-h">${t('cashReceipt')}</h2>
<label class="method"><input type="checkbox" name="cashReceiptMandatory" value="1"${store.cashReceiptMandatory ? html` checked` : ''} aria-describedby="cr-hint" data-testid="cash-receipt-mandatory"> ${t('cashReceiptMandatory')}</label>
<p class="hint" id="cr-hint">${t('cashReceiptHint')}</p>
<p><button type="submit" class="primary">${t('save')}</button></p>
</form>
<section class="card" aria-labelledby="rp-h"><h2 id="rp-h">${t('refundPolicy')}</h2><p class="muted">${t('refundPolicyNote')}</p></section>`;
  return sendPage(reply, ctx, { title: t('title'), nav: '/dashboard/settings' }, body, status);
}

async function attempt(deps: AppDeps, reply: FastifyReply, ctx: DashboardContext, fn: () => Promise<{ ok?: string }>, keep: Pick<Flash, 'business'> = {}): Promise<FastifyReply> {
  try {
    return await render(deps, reply, ctx, await fn());
  } catch (e) {
    if (e instanceof ApiError && e.statusCode < 500) {
      const invalid = (e.details?.fields as { field: string }[] | undefined)?.map((f) => f.field);
      return render(deps, reply, ctx, { error: errorText(e), invalid, ...keep }, e.statusCode);
    }
    throw e;
  }
}

/** /dashboard/settings: business details (store-wide), return-URL allow-list and Toss keys of the session's mode. */
const settingsPage: DashboardPage = async (app, deps) => {
  const guard = { schema: { hide: true }, preHandler: requireRole('settings') };

  app.get('/dashboard/settings', guard, async (req, reply) => render(deps, reply, ctxOf(req)));

  app.post('/dashboard/settings/business-details', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    const typed = Object.fromEntries(BUSINESS_FIELDS.map((f) => [f.name, field(req.body, f.name)])) as BusinessForm;
    return attempt(
      deps,
      reply,
      ctx,
      async () => {
        const input: BusinessDetailsInput = { ...typed, supportPhone: typed.supportPhone || null, supportEmail: typed.supportEmail || null };
        const before = await getBusinessDetails(deps.db, ctx.member.storeId);
        const view = await updateBusinessDetails(deps, ctx.member.storeId, input);
        // Store-wide (mode null). The details are public (printed on every hosted page), so the log may name them;
        // it records which fields changed plus the identifying ones.
        const changed = BUSINESS_FIELDS.map((f) => f.name).filter((f) => (before?.[f] ?? null) !== view[f]);
        await auditAction(deps.db, deps, req, {
          action: 'settings.business_details_updated',
          mode: null,
          target: { type: 'store', id: ctx.member.storeId },
          details: { companyName: view.companyName, businessNumber: view.businessNumber, changed },
        });
        await notifyOwners(deps, req, 'business_details', null, changed);
        return { ok: m(ctx.lang, 'saved') };
      },
      { business: typed },
    );
  });

  app.post('/dashboard/settings/return-urls', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const returnUrlDomains = lines(req.body, 'returnUrlDomains');
      const view = await updateModeSettings(deps, ctx.member.storeId, ctx.mode, { returnUrlDomains });
      await auditAction(deps.db, deps, req, { action: 'settings.return_urls_updated', target: { type: 'store', id: ctx.member.storeId }, details: { returnUrlDomains: view.settings[ctx.mode].returnUrlDomains } });
      return { ok: m(ctx.lang, 'saved') };
    });
  });

  app.post('/dashboard/settings/trials', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const allowRepeatTrials = field(req.body, 'allowRepeatTrials') === '1';
      await updateStore(deps, ctx.member.storeId, { allowRepeatTrials });
      await auditAction(deps.db, deps, req, { action: 'settings.trials_updated', mode: null, target: { type: 'store', id: ctx.member.storeId }, details: { allowRepeatTrials } });
      return { ok: m(ctx.lang, 'saved') };
    });
  });

  app.post('/dashboard/settings/cash-receipts', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const cashReceiptMandatory = field(req.body, 'cashReceiptMandatory') === '1';
      await updateStore(deps, ctx.member.storeId, { cashReceiptMandatory });
      await auditAction(deps.db, deps, req, { action: 'settings.cash_receipts_updated', mode: null, target: { type: 'store', id: ctx.member.storeId }, details: { cashReceiptMandatory } });
      return { ok: m(ctx.lang, 'saved') };
    });
  });

  app.post('/dashboard/settings/payments', guard, async (req, reply) => {
    const ctx = ctxOf(req);
    return attempt(deps, reply, ctx, async () => {
      const p = field(req.body, 'paymentProvider');
      const paymentProvider = PROVIDER_NAMES.find((n) => n === p) ?? null;
      const tossClientKey = field(req.body, 'tossClientKey', 200) || null;
      // Write-only: an empty field keeps the stored secret; only the checkbox removes it.
      const secret = field(req.body, 'tossSecretKey', 200);
      const tossSecretKey = secret ? secret : field(req.body, 'clearSecret') === '1' ? null : undefined;
      // The 자동결제 MID's pair (issue 32), same rules: the secret is write-only, the checkbox removes it.
      const tossBillingClientKey = field(req.body, 'tossBillingClientKey', 200) || null;
      const billingSecret = field(req.body, 'tossBillingSecretKey', 200);
      const tossBillingSecretKey = billingSecret ? billingSecret : field(req.body, 'clearBillingSecret') === '1' ? null : undefined;
      // PortOne (issue 42): the secrets are write-only like Toss's (an empty field keeps the stored one).
      const portoneStoreId = field(req.body, 'portoneStoreId', 100) || null;
      const portoneApiSecret = field(req.body, 'portoneApiSecret', 500) || undefined;
      const portoneWebhookSecret = field(req.body, 'portoneWebhookSecret', 500) || undefined;
      const portoneChannelKeys = Object.fromEntries(METHODS.map((mt) => [mt.value, field(req.body, `portoneChannel_${mt.value}`, 100)]).filter(([, k]) => k));
      const before = (await getStoreView(deps, ctx.member.storeId)).settings[ctx.mode];
      const portoneChanged = (before.portoneStoreId ?? null) !== portoneStoreId || portoneApiSecret !== undefined || portoneWebhookSecret !== undefined || JSON.stringify(before.portoneChannelKeys) !== JSON.stringify(portoneChannelKeys);
      await updateModeSettings(deps, ctx.member.storeId, ctx.mode, {
        paymentProvider, tossClientKey, tossSecretKey, tossBillingClientKey, tossBillingSecretKey,
        ...(portoneChanged ? { portoneStoreId, portoneApiSecret, portoneWebhookSecret, portoneChannelKeys } : {}),
      });
      const fields = [
        ...(before.paymentProvider !== paymentProvider ? ['paymentProvider'] : []),
        ...((before.tossClientKey ?? null) !== tossClientKey ? ['tossClientKey'] : []),
        ...(tossSecretKey === undefined || (tossSecretKey === null && !before.tossSecretKeySet) ? [] : ['tossSecretKey']),
        ...((before.tossBillingClientKey ?? null) !== tossBillingClientKey ? ['tossBillingClientKey'] : []),
        ...(tossBillingSecretKey === undefined || (tossBillingSecretKey === null && !before.tossBillingSecretKeySet) ? [] : ['tossBillingSecretKey']),
        // PortOne's keys move money the same way Toss's do: the owners hear of a change to them too.
        ...((before.portoneStoreId ?? null) !== portoneStoreId ? ['portoneStoreId'] : []),
        ...(portoneApiSecret !== undefined ? ['portoneApiSecret'] : []),
        ...(portoneWebhookSecret !== undefined ? ['portoneWebhookSecret'] : []),
        ...(JSON.stringify(before.portoneChannelKeys) !== JSON.stringify(portoneChannelKeys) ? ['portoneChannelKeys'] : []),
      ];
      await notifyOwners(deps, req, 'toss_keys', ctx.mode, fields);
      await auditAction(deps.db, deps, req, {
        action: 'settings.payments_updated',
        target: { type: 'store', id: ctx.member.storeId },
        details: {
          paymentProvider,
          tossClientKey,
          tossSecretKey: tossSecretKey === undefined ? 'unchanged' : tossSecretKey === null ? 'removed' : 'replaced',
          tossBillingClientKey,
          tossBillingSecretKey: tossBillingSecretKey === undefined ? 'unchanged' : tossBillingSecretKey === null ? 'removed' : 'replaced',
          portoneStoreId,
          portoneApiSecret: portoneApiSecret === undefined ? 'unchanged' : 'replaced',
          portoneWebhookSecret: portoneWebhookSecret === undefined ? 'unchanged' : 'replaced',
        },
      });
      return { ok: m(ctx.lang, 'saved') };
    });
  });
};

export default settingsPage;
