/** What a payment attempt came to, as the payment page shows it (`completePayment`, `settle`). */
import type { OrderView } from '../orders/schemas';
import type { SessionRow } from './model';

export type RefusedField = 'couponCode' | 'cardNumber' | 'method' | null;

export type PayResult =
  | { kind: 'paid'; session: SessionRow; order: OrderView }
  | { kind: 'not_found' }
  | { kind: 'completed'; session: SessionRow }
  | { kind: 'expired'; session: SessionRow }
  /** Another attempt of this session is with the gateway right now. */
  | { kind: 'processing'; session: SessionRow }
  /** The gateway's answer was lost; the reconciliation job will finish or release the payment. */
  | { kind: 'checking'; session: SessionRow }
  | { kind: 'unavailable'; code: 'SOLD_OUT' | 'PRODUCT_ARCHIVED' }
  /** Nothing was charged: show the form again with this message (next to `field`). */
  | { kind: 'refused'; field: RefusedField; code: string; message: string };
