/**
 * Test mode's stand-in for the buyer's bank on the order page: a 가상계좌 order waiting for its deposit gets a button
 * that makes the deposit arrive, through the same service as POST /admin/v1/orders/{id}/test-deposit (the simulator's
 * deposit, then the secret check and lookup a real DEPOSIT_CALLBACK gets). Never shown, and refused, in live mode:
 * only the buyer's bank makes a live deposit.
 */
import type { App, AppDeps } from '../../deps';
import { html, type SafeHtml } from '../../pages/html';
import { ApiError } from '../../platform/errors';
import { simulateDeposit } from '../../checkout/virtual-account';
import { auditAction, csrfField, redirectTo, requireRole, type DashboardContext } from '../frame';
import { act, tr, type Problem } from './kit';

type RenderDetail = (deps: AppDeps, req: any, reply: any, ctx: DashboardContext, id: string, problem: Problem | null, form: null) => Promise<any>;

/** The button, for a test-mode order still awaiting its 가상계좌 deposit; nothing otherwise. */
export function testDepositForm(ctx: DashboardContext, order: { id: string; mode: string; status: string; virtualAccount?: unknown }): SafeHtml | '' {
  if (ctx.mode !== 'test' || order.mode !== 'test' || order.status !== 'awaiting_deposit' || !order.virtualAccount) return '';
  const L = (ko: string, en: string) => tr(ctx.lang, ko, en);
  return html`<form method="post" action="/dashboard/orders/${encodeURIComponent(order.id)}/test-deposit" data-testid="test-deposit" hx-disabled-elt="find button">
  ${csrfField(ctx)}
  <p class="hint">${L('테스트 모드: 구매자의 입금을 흉내 냅니다. 실제 입금처럼 처리되어 결제 완료, 라이선스 발급, order.paid 이벤트가 이어집니다.', "Test mode: stands in for the buyer's deposit. It is processed as a real one: paid, licenses issued, order.paid sent.")}</p>
  <p><button type="submit" class="primary">${L('테스트 입금하기', 'Make a test deposit')}</button></p>
</form>`;
}

export function testDepositRoute(app: App, deps: AppDeps, renderDetail: RenderDetail): void {
  app.post('/dashboard/orders/:id/test-deposit', { schema: { hide: true }, preHandler: requireRole('orders') }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    return act(
      req,
      reply,
      async (ctx) => {
        // A live session never makes a deposit, whatever the order: the same answer as an order that is not there.
        if (ctx.mode !== 'test') throw new ApiError('ORDER_NOT_FOUND');
        try {
          return await simulateDeposit(deps, ctx.member.storeId, id);
        } catch (err) {
          if (err instanceof ApiError && err.code === 'VALIDATION_FAILED') {
            throw new ApiError('VALIDATION_FAILED', {
              message: tr(ctx.lang, '이 상점의 테스트 모드는 토스페이먼츠 테스트 키를 씁니다. 입금은 토스페이먼츠 개발자센터의 테스트 도구에서 하세요.', "This store's test mode uses Toss Payments' test keys: make the deposit with Toss's own test tools."),
            });
          }
          throw err;
        }
      },
      async (result) => {
        if (result === 'paid') await auditAction(deps.db, deps, req, { action: 'order.test_deposit', target: { type: 'order', id }, details: {} });
        return redirectTo(req, reply, `/dashboard/orders/${encodeURIComponent(id)}?done=${result === 'paid' ? 'deposited' : result === 'not_waiting' ? 'notWaiting' : 'notDeposited'}`);
      },
      (p, ctx) => renderDetail(deps, req, reply, ctx, id, p, null),
    );
  });
}
