/**
 * The buyer portal's action forms on a subscription: the two ways to cancel (at the period end, or now with the
 * refund shown), undoing a scheduled cancel, changing the plan, and changing the card (a test card number, or
 * Toss's registration window). Every form carries the session's CSRF secret.
 */
import { ownValue } from '../../platform/lookup';
import type { CancelPreviewView } from '../../subscriptions/cancel/schemas';
import type { SubscriptionView } from '../../subscriptions/schemas';
import { html, won, type SafeHtml } from '../html';
import { csrfField, dateOnly, INTERVAL, type PortalPage, type PortalSubscription } from './view-model';

const REASON: Record<string, string> = {
  initial_full: '청약철회 기간 안의 미사용 결제라 전액 환불됩니다.',
  renewal_full: '갱신 결제의 청약철회 기간 안이고 사용하지 않아 전액 환불됩니다.',
  statutory_full: '청약철회 기간 안이라 전액 환불됩니다.',
  prorated: '이용한 기간만큼 차감한 금액이 환불됩니다.',
  past_due: '현재 기간은 결제되지 않아 환불할 금액이 없습니다.',
  nothing_refundable: '환불할 금액이 없습니다.',
};

export function cancelChoices(p: PortalPage, s: PortalSubscription): SafeHtml {
  const { sub, preview } = s;
  const im = preview.immediate;
  const action = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/cancel`;
  if (sub.cancelAtPeriodEnd) {
    return html`<div class="banner info" role="status">${dateOnly(sub.currentPeriodEnd)}에 해지될 예정입니다. 그때까지 계속 이용할 수 있습니다.</div>
<div class="choices">
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/resume" class="choice">
    ${csrfField(p.csrf)}
    <h3>해지 예약 취소</h3><p>구독을 계속 유지하고 다음 결제일에 갱신합니다.</p>
    <button type="submit" class="later" data-action="resume">해지 예약 취소</button>
  </form>
  ${immediateChoice(p, action, im)}
</div>`;
  }
  return html`<div class="choices" aria-label="해지 방법">
  <form method="post" action="${action}" class="choice">
    ${csrfField(p.csrf)}<input type="hidden" name="timing" value="period_end">
    <h3>기간 종료 시 해지</h3>
    <p class="amount">환불 없음</p>
    <p>${dateOnly(preview.periodEnd.effectiveAt)}까지 이용하고 그 뒤로는 결제되지 않습니다.</p>
    <button type="submit" class="later" data-action="period_end">기간 종료 시 해지</button>
  </form>
  ${immediateChoice(p, action, im)}
</div>`;
}

function immediateChoice(p: PortalPage, action: string, im: CancelPreviewView['immediate']): SafeHtml {
  const blocked = im.blockedReason;
  return html`<form method="post" action="${action}" class="choice">
    ${csrfField(p.csrf)}<input type="hidden" name="timing" value="immediate">
    <h3>지금 해지하고 환불</h3>
    <p class="amount" data-refund-amount="${im.refundAmount}">환불 예정 ${won(im.refundAmount)}</p>
    <p>${blocked ? blocked.message : ownValue(REASON, im.reason) ?? ''}</p>
    ${im.deduction + im.penalty + im.clawback > 0 && !blocked
      ? html`<p>이용 ${im.usedDays}/${im.totalDays}일 차감 ${won(im.deduction)}${im.clawback ? html` · 할인 회수 ${won(im.clawback)}` : ''}${im.penalty ? html` · 위약금 ${won(im.penalty)}` : ''}</p>`
      : ''}
    ${im.requiresApproval && !blocked ? html`<p>판매자 승인 후 환불됩니다 (환불 요청으로 접수).</p>` : ''}
    <button type="submit" class="now" data-action="immediate"${blocked ? html` disabled` : ''}>지금 해지하고 환불받기</button>
  </form>`;
}

export function cardForm(p: PortalPage, sub: SubscriptionView): SafeHtml {
  const action = `${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/card`;
  return html`<details${sub.status === 'past_due' ? html` open` : ''}><summary>결제 카드 변경</summary>
  <form method="post" action="${action}">
    ${csrfField(p.csrf)}
    ${p.cardEntry === 'card_number'
      ? html`<label for="card-${sub.id}">카드 번호</label>
    <input type="text" id="card-${sub.id}" name="cardNumber" inputmode="numeric" autocomplete="cc-number" required pattern="[0-9 ]{12,23}">
    <p class="hint">테스트 모드: 4242 4242 4242 4242 (성공), 4000 0000 0000 0341 (이후 결제 실패)</p>`
      : html`<p class="hint">토스페이먼츠 창에서 새 카드를 등록합니다. 카드 정보는 토스페이먼츠에만 입력되며 이 사이트에 저장되지 않습니다.</p>`}
    <button type="submit" class="secondary" style="margin-top:10px" data-action="card">${p.cardEntry === 'card_number' ? '카드 변경' : '새 카드 등록하기'}</button>
  </form></details>`;
}

export function planForm(p: PortalPage, s: PortalSubscription): SafeHtml {
  const { sub } = s;
  const options = s.plans.flatMap((pl) =>
    (['monthly', 'yearly'] as const)
      .map((iv) => ({ pl, iv, price: iv === 'monthly' ? pl.monthlyPrice : pl.yearlyPrice }))
      .filter((o) => o.price !== null),
  );
  if (options.length < 2) return html``;
  const pending = sub.pendingPlanChange;
  return html`<details><summary>요금제 변경</summary>
  ${pending ? html`<p class="hint">${dateOnly(pending.effectiveAt)}부터 ${s.plans.find((x) => x.id === pending.planId)?.name ?? pending.planId} · ${INTERVAL[pending.billingInterval]}(${won(pending.amount)})으로 바뀝니다.</p>` : ''}
  <form method="post" action="${p.basePath}/subscriptions/${encodeURIComponent(sub.id)}/plan">
    ${csrfField(p.csrf)}
    <fieldset><legend>새 요금제</legend>
    ${options.map(
      (o) => html`<label class="method"><input type="radio" name="plan" value="${o.pl.id}:${o.iv}"${o.pl.id === sub.planId && o.iv === sub.billingInterval ? html` checked` : ''}> ${o.pl.name} · ${INTERVAL[o.iv]} ${won(o.price!)}</label>`,
    )}
    </fieldset>
    <p class="hint">같은 결제 주기의 더 비싼 요금제는 지금 바로 바뀌고 남은 기간의 차액이 결제됩니다. 그 밖의 변경은 다음 결제일부터 적용됩니다.</p>
    <button type="submit" class="secondary" style="margin-top:10px">요금제 변경</button>
  </form></details>`;
}

