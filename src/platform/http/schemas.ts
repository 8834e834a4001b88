import { Type, type TSchema, type TProperties, type ObjectOptions, type Static } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from '../errors';
import { DOCUMENTED_AS } from '../openapi-components';

/** Objects reject fields they do not register (the contract's VALIDATION_FAILED rule), so every object goes through here. */
export const Obj = <T extends TProperties>(props: T, opts: ObjectOptions = {}) =>
  Type.Object(props, { additionalProperties: false, ...opts });

/** The query of an operation that takes no query parameters: any parameter is refused (VALIDATION_FAILED). */
export const EmptyQuery = Type.Object({}, { additionalProperties: false });

/** A field that is always present and may be null. */
export const Nullable = <T extends TSchema>(schema: T, opts: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], opts);

export const ModeSchema = Type.Union([Type.Literal('live'), Type.Literal('test')], { description: '`live` 또는 `test`' });
export const CurrencySchema = Type.Literal('KRW', { description: 'Always `KRW`' });
export const DateTime = (description?: string) =>
  Type.String({ format: 'date-time', description: description ?? 'ISO 8601, UTC, millisecond precision', examples: ['2026-11-21T09:30:00.000Z'] });
export const Won = (description?: string) => Type.Integer({ minimum: 0, description: description ?? 'Integer Korean won' });
export const StringMap = (opts: { description?: string } = {}) =>
  Type.Record(Type.String(), Type.String(), { description: opts.description });

/**
 * A request field the service checks itself because the contract answers its refusal with its own code (e.g.
 * METADATA_INVALID, or BAD_REQUEST for the portal's `buyerEmail`), not VALIDATION_FAILED: requests are validated
 * against `validated` (the handler's type), the OpenAPI document shows `documented`, which must be exactly what the
 * service's own check accepts (a test per field holds the two together).
 */
export const CheckedByService = <V extends TSchema>(validated: V, documented: TSchema) =>
  Type.Unsafe<Static<V>>({ ...validated, [DOCUMENTED_AS]: documented });

export const ApiErrorSchema = Type.Object(
  {
    statusCode: Type.Integer({ description: 'The HTTP status, repeated' }),
    // The closed catalog as an enum, so generated clients get a union of the codes (each operation's description lists its own).
    code: Type.Unsafe<ErrorCode>(Type.String({ enum: ERROR_CODES, description: 'Error code; branch on it together with the HTTP status' })),
    message: Type.String({ description: 'Korean explanation' }),
    details: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'fields | required | free object' })),
  },
  { $id: undefined, title: 'ApiError' },
);
export type ApiErrorBody = Static<typeof ApiErrorSchema>;

export const IdParams = Obj({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** The highest page a list accepts: offsets stay far inside PostgreSQL's bigint and JavaScript's safe integers. */
export const MAX_PAGE = 1_000_000;

export const PageQueryProps = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `Page number starting at 1, at most ${MAX_PAGE}` })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1 to 100' })),
};
/** The list query every list endpoint takes; extend with filters via `PageQuery({ status: … })`. */
export const PageQuery = <T extends TProperties>(filters: T = {} as T) => Obj({ ...PageQueryProps, ...filters });

export const PageOf = <T extends TSchema>(item: T, title?: string) =>
  Obj(
    {
      data: Type.Array(item),
      total: Type.Integer({ minimum: 0 }),
      page: Type.Integer({ minimum: 1 }),
      limit: Type.Integer({ minimum: 1, maximum: 100 }),
    },
    { title },
  );

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
}
