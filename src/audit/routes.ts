import { Type } from '@sinclair/typebox';
import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery } from '../platform/http/schemas';
import { pageParams } from '../platform/http/pagination';
import { listAuditLog } from './service';

export const AuditEntrySchema = Obj(
  {
    id: Type.String({ description: '`aud_…`' }),
    mode: Nullable(ModeSchema, { description: 'The mode the action was taken in; null when it concerns the whole store' }),
    actor: Obj({
      kind: Type.Union([Type.Literal('member'), Type.Literal('owner_token'), Type.Literal('operator')], {
        description: '`member`: a person signed in to the dashboard; `owner_token`: a console API call; `operator`: the CLI',
      }),
      id: Nullable(Type.String(), { description: 'The member id (`mem_…`) when a member acted' }),
      name: Nullable(Type.String(), { description: "The member's name at the time" }),
    }),
    action: Type.String({ description: 'e.g. `api_key.rotated`, `member.created`, `console.POST /admin/v1/products`' }),
    target: Nullable(Obj({ type: Type.String(), id: Type.String() })),
    details: Type.Object({}, { additionalProperties: true }),
    ip: Nullable(Type.String()),
    userAgent: Nullable(Type.String()),
    createdAt: DateTime(),
  },
  { title: 'AuditEntry' },
);

const AuditQuery = PageQuery({
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Exact action, e.g. `api_key.rotated`' })),
  actor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Actor id (`mem_…`) or name' })),
  mode: Type.Optional(ModeSchema),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this instant' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this instant' })),
});

/** GET /admin/v1/audit-log: who changed what, from the dashboard, the console API and the operator CLI. */
const auditModule: Module = async (app, deps) => {
  app.get(
    '/admin/v1/audit-log',
    op(
      {
        operationId: 'listAuditLog',
        summary: 'The audit log: state-changing actions, newest first',
        description:
          'Every state-changing dashboard action (with the member who took it), every successful non-GET console API call (actor `owner_token`) and operator CLI actions on members. Filters combine with AND; `mode` also returns store-wide entries (mode null).',
        tags: ['Audit'],
      },
      { auth: 'owner' },
      { querystring: AuditQuery, response: { 200: PageOf(AuditEntrySchema, 'AuditLogPage') } },
    ),
    async (req) => {
      const q = req.query;
      return listAuditLog(
        deps.db,
        req.owner!.storeId,
        { action: q.action, actor: q.actor, mode: q.mode, from: q.from ? new Date(q.from) : undefined, to: q.to ? new Date(q.to) : undefined },
        pageParams(q),
      );
    },
  );
};

export default auditModule;
