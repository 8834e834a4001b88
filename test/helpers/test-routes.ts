import { Type } from '@sinclair/typebox';
import type { Module } from '../../src/deps';
import { op } from '../../src/platform/http/route';
import { Obj, Nullable } from '../../src/platform/http/schemas';
import { ApiError } from '../../src/platform/errors';

/**
 * Routes that exist only in tests, to exercise the platform (auth, idempotency, validation) independently of
 * any business module. `calls` counts how often the echo handler really ran (a replay does not run it).
 */
export function platformTestRoutes() {
  const state = { calls: 0, gate: null as Promise<void> | null };
  const mod: Module = async (app) => {
    app.get(
      '/v1/test/whoami',
      op({ operationId: 'testWhoami', summary: 'test', tags: ['Test'] }, { auth: 'api_key', scope: 'orders:read' }, {
        response: { 200: Obj({ storeId: Type.String(), mode: Type.String(), keyId: Type.String(), productIds: Nullable(Type.Array(Type.String())), note: Nullable(Type.String()) }) },
      }),
      async (req) => ({ storeId: req.auth!.storeId, mode: req.auth!.mode, keyId: req.auth!.keyId, productIds: req.auth!.productIds, note: null }),
    );
    app.post(
      '/v1/test/echo',
      op({ operationId: 'testEcho', summary: 'test', tags: ['Test'] }, { auth: 'api_key', scope: 'checkout:write', idempotent: true, errors: ['SOLD_OUT'] }, {
        body: Obj({
          value: Type.String({ maxLength: 50 }),
          outcome: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('server_error'), Type.Literal('sold_out')])),
          count: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
        }),
        response: { 201: Obj({ value: Type.String(), call: Type.Integer() }) },
      }),
      async (req, reply) => {
        state.calls++;
        const call = state.calls;
        if (state.gate) await state.gate;
        if (req.body.outcome === 'server_error') throw new Error('boom: internal detail that must not leak');
        if (req.body.outcome === 'sold_out') throw new ApiError('SOLD_OUT');
        reply.code(201);
        return { value: req.body.value, call };
      },
    );
  };
  return { mod, state };
}
