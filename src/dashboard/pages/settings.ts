import type { FastifyReply } from 'fastify';
import type { DashboardPage } from './page';
import type { AppDeps } from '../../deps';
import { html } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { getBusinessDetails, getStoreView, updateBusinessDetails, updateModeSettings, updateStore } from '../../stores/service';
import type { BusinessDetailsInput } from '../../stores/schemas';
import { auditAction, csrfField, ctxOf, notice, requireRole, sendPage, type DashboardContext } from '../frame';
import { catalog } from '../i18n';
import { field, lines } from '../form';
import { settingsTabs } from './settings-nav';
import { errorText } from './errors';
import { goLiveCard } from './go-live-view';
import { getGoLiveChecklist } from '../../stores/go-live-service';
import { stepUp } from '../step-up';
import { notifyOwners } from '../owner-notice';

const m = catalog(
  {
    title: '설정',
    business: '사업자 정보',
    businessHint: '결제 페이지, 영수증, 구독 관리 화면 하단에 표시됩니다 (전자상거래법). 상점 전체에 적용되며 테스트·라이브 모드 구분이 없습니다.',
    companyName: '상호',
    representative: '대표자',
    businessNumber: '사업자등록번호',
    businessNumberHint: '숫자 10자리 (예: 123-45-67891). 검증 번호를 확인합니다.',
    mailOrderNumber: '통신판매업 신고번호',
    mailOrderNumberHint: '신고 면제 사업자는 면제 사유를 적어 주세요 (예: 신고 면제 (간이과세자)).',
    address: '사업장 주소',
    supportPhone: '고객센터 전화',
    supportEmail: '고객센터 이메일',
    supportHint: '전화번호와 이메일 중 하나 이상 입력해 주세요.',
    liveReady: '라이브 결제 준비됨',
    liveNotReady: '사업자 정보를 저장해야 라이브 결제를 받을 수 있습니다 (테스트 모드는 없이도 됩니다).',
    sample: '샘플 정보',
    returnUrls: '돌아갈 주소(return URL) 허용 도메인',
    returnUrlsHint: '한 줄에 하나씩 (예: shop.example.com, localhost:3000). 결제 후 이 도메인으로만 돌아갑니다.',
    save: '저장',
    payments: '결제 설정',
    provider: '결제대행사',
    providerNone: '설정 안 함',
    simulator: '시뮬레이터 (테스트 전용)',
    toss: '토스페이먼츠',
    clientKey: '토스 클라이언트 키',
    secretKey: '토스 시크릿 키',
    secretSet: '시크릿 키가 설정되어 있습니다. 바꾸려면 새 키를 입력하세요 (저장된 키는 다시 보여 드리지 않습니다).',
    secretUnset: '시크릿 키가 없습니다.',
    secretClear: '저장된 시크릿 키 지우기',
    billingKeys: '자동결제(빌링) MID 키 (선택)',
    billingKeysHint: '토스페이먼츠가 자동결제를 별도 상점아이디(MID)로 계약했다면, 개발자센터의 API 키 메뉴에서 그 MID를 선택해 나온 클라이언트 키와 시크릿 키를 넣으세요. 넣으면 구독(카드 등록, 빌링키 발급, 정기결제, 카드 변경)은 이 키로, 단건 결제는 위의 키로 처리됩니다. 비워 두면 모두 위의 키를 씁니다.',
    billingClientKey: '자동결제 클라이언트 키',
    billingSecretKey: '자동결제 시크릿 키',
    billingSecretSet: '자동결제 시크릿 키가 설정되어 있습니다. 바꾸려면 새 키를 입력하세요.',
    billingSecretUnset: '자동결제 시크릿 키가 없습니다 (구독도 위의 키를 씁니다).',
    billingSecretClear: '저장된 자동결제 시크릿 키 지우기',
    webhookUrl: '토스 웹훅 URL',
    webhookUrlHint: '토스페이먼츠 개발자센터의 웹훅 메뉴에 이 모드의 키로 이 주소를 등록하고 PAYMENT_STATUS_CHANGED, CANCEL_STATUS_CHANGED, BILLING_DELETED 이벤트를 선택하세요. 상점관리자에서 한 취소가 여기 환불(출처: 결제대행사)로 기록되고, 토스가 삭제했다고 알린 빌링키는 다음 결제에서 확인되면 구독의 카드에서 지워집니다.',
    trials: '무료 체험',
    allowRepeatTrials: '같은 구매자에게 무료 체험을 다시 제공 (이메일·카드가 같아도)',
    trialsHint: '끄면(기본) 상품의 무료 체험은 구매자(이메일·카드)마다 한 번이며, 두 번째 신청은 결제 페이지에서 거절되고 결제되지 않습니다. 모든 모드에 적용됩니다.',
    cashReceipt: '현금영수증',
    cashReceiptMandatory: '현금영수증 의무발행업종입니다 (전자상거래 소매업·소프트웨어 소매업)',
    cashReceiptHint: '켜면 계좌이체·가상계좌로 10만 원 이상 결제된 주문은 구매자가 신청하지 않아도 국세청 자진발급번호(010-000-1234)로 소득공제 현금영수증을 발급합니다. 의무발행업종이 발급하지 않으면 미발급 금액의 20% 가산세가 부과됩니다. 모든 모드에 적용됩니다.',
    saved: '저장했습니다.',
    refundPolicy: '환불 정책 기본값',
    refundPolicyNote: '환불 정책은 상품마다 설정합니다 (상품 편집 화면). 상점 전체 기본값은 없습니다.',
    modeNote: '{mode} 모드의 설정입니다. 다른 모드의 설정은 상단에서 모드를 바꾸면 보입니다.',
  },
  {
    title: 'Settings',
    business: 'Business details',
    businessHint: 'Shown at the bottom of the payment page, receipts and the subscription portal (Korean e-commerce law). Applies to the whole store, in both test and live mode.',
    companyName: 'Trade name',
    representative: 'Representative',
    businessNumber: 'Business registration number',
    businessNumberHint: '10 digits (e.g. 123-45-67891). The check digit is verified.',
    mailOrderNumber: 'Mail-order business registration number',
    mailOrderNumberHint: 'Exempt sellers write the exemption (e.g. 신고 면제 (간이과세자)).',
    address: 'Business address',
    supportPhone: 'Customer service phone',
    supportEmail: 'Customer service e-mail',
    supportHint: 'Enter a phone number, an e-mail address, or both.',
    liveReady: 'Ready for live payments',
    liveNotReady: 'Save the business details to take live payments (test mode works without them).',
    sample: 'Sample details',
    returnUrls: 'Return-URL allowed domains',
    returnUrlsHint: 'One per line (e.g. shop.example.com, localhost:3000). After payment, buyers return only to these domains.',
    save: 'Save',
    payments: 'Payments',
    provider: 'Payment provider',
    providerNone: 'Not set',
    simulator: 'Simulator (test only)',
    toss: 'Toss Payments',
    clientKey: 'Toss client key',
    secretKey: 'Toss secret key',
    secretSet: 'A secret key is set. Enter a new one to replace it (the stored key is never shown again).',
    secretUnset: 'No secret key.',
    secretClear: 'Remove the stored secret key',
    billingKeys: '자동결제 (billing) MID keys (optional)',
    billingKeysHint: 'If Toss contracted 자동결제 under a merchant ID (MID) of its own, pick that MID in the API keys menu of Toss\'s developer center and enter its client and secret keys here. Subscriptions (card registration, billing keys, renewals, card changes) then use these keys and one-time payments the keys above. Left empty, everything uses the keys above.',
    billingClientKey: '자동결제 client key',
    billingSecretKey: '자동결제 secret key',
    billingSecretSet: 'A 자동결제 secret key is set. Enter a new one to replace it.',
    billingSecretUnset: 'No 자동결제 secret key (subscriptions use the keys above).',
    billingSecretClear: 'Remove the stored 자동결제 secret key',
    webhookUrl: 'Toss webhook URL',
    webhookUrlHint: 'Register this address in the Webhook menu of Toss\'s developer center, for this mode\'s keys, with the events PAYMENT_STATUS_CHANGED, CANCEL_STATUS_CHANGED and BILLING_DELETED. Cancels made in Toss\'s merchant admin are then recorded here as refunds (source: gateway), and a billing key Toss reports deleted is cleared from its subscription once the next charge confirms it.',
    trials: 'Free trials',
    allowRepeatTrials: 'Offer a free trial again to the same buyer (same e-mail or card)',
    trialsHint: 'Off (the default): a product\'s free trial is once per buyer (e-mail and card); a second one is refused on the payment page and nothing is charged. Applies to both modes.',
    cashReceipt: 'Cash receipts (현금영수증)',
    cashReceiptMandatory: 'This store must issue 현금영수증 (e-commerce or software retail)',
    cashReceiptHint: 'On: a transfer or virtual-account order of 100,000 won or more gets a 현금영수증 (소득공제) to the National Tax Service\'s self-issue number 010-000-1234 even when the buyer asks for none. A missing one costs such a business a 20% penalty tax. Applies to both modes.',
    saved: 'Saved.',
    refundPolicy: 'Refund policy defaults',
    refundPolicyNote: 'Refund policies are set per product (product editor). The store has no store-wide default.',
    modeNote: 'Settings of {mode} mode. Switch the mode at the top to see the other mode.',
  },
);

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
${ctx.mode === 'test' ? html`<option value="simulator"${s.paymentProvider === 'simulator' ? html` selected` : ''}>${t('simulator')}</option>` : ''}
<option value="toss"${s.paymentProvider === 'toss' ? html` selected` : ''}>${t('toss')}</option>
</select>
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
    if (!(await stepUp(deps, req, reply, 'business_details'))) return reply;
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
    if (!(await stepUp(deps, req, reply, 'return_urls'))) return reply;
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
    if (ctx.mode === 'live' && !(await stepUp(deps, req, reply, 'toss_keys'))) return reply;
    return attempt(deps, reply, ctx, async () => {
      const p = field(req.body, 'paymentProvider');
      const paymentProvider = p === 'toss' || p === 'simulator' ? p : null;
      const tossClientKey = field(req.body, 'tossClientKey', 200) || null;
      // Write-only: an empty field keeps the stored secret; only the checkbox removes it.
      const secret = field(req.body, 'tossSecretKey', 200);
      const tossSecretKey = secret ? secret : field(req.body, 'clearSecret') === '1' ? null : undefined;
      // The 자동결제 MID's pair (issue 32), same rules: the secret is write-only, the checkbox removes it.
      const tossBillingClientKey = field(req.body, 'tossBillingClientKey', 200) || null;
      const billingSecret = field(req.body, 'tossBillingSecretKey', 200);
      const tossBillingSecretKey = billingSecret ? billingSecret : field(req.body, 'clearBillingSecret') === '1' ? null : undefined;
      const before = (await getStoreView(deps, ctx.member.storeId)).settings[ctx.mode];
      await updateModeSettings(deps, ctx.member.storeId, ctx.mode, { paymentProvider, tossClientKey, tossSecretKey, tossBillingClientKey, tossBillingSecretKey });
      const fields = [
        ...(before.paymentProvider !== paymentProvider ? ['paymentProvider'] : []),
        ...((before.tossClientKey ?? null) !== tossClientKey ? ['tossClientKey'] : []),
        ...(tossSecretKey === undefined || (tossSecretKey === null && !before.tossSecretKeySet) ? [] : ['tossSecretKey']),
        ...((before.tossBillingClientKey ?? null) !== tossBillingClientKey ? ['tossBillingClientKey'] : []),
        ...(tossBillingSecretKey === undefined || (tossBillingSecretKey === null && !before.tossBillingSecretKeySet) ? [] : ['tossBillingSecretKey']),
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
        },
      });
      return { ok: m(ctx.lang, 'saved') };
    });
  });
};

export default settingsPage;
