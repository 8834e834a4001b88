import { sql } from 'kysely';
import { MAX_PAGE, type Page } from './schemas';
import { validationError } from '../errors';
import { MESSAGES } from '../messages';

export interface PageParams {
  page: number;
  limit: number;
}

/** The schema already holds page/limit to their ranges; this is the last guard before they become an OFFSET. */
export function pageParams(q: { page?: number; limit?: number }): PageParams {
  const page = q.page ?? 1;
  const limit = q.limit ?? 20;
  if (!Number.isSafeInteger(page) || page < 1 || page > MAX_PAGE) throw validationError([{ field: 'page', message: MESSAGES.http.pageOutOfRange(MAX_PAGE) }]);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100) throw validationError([{ field: 'limit', message: MESSAGES.http.limitOutOfRange }]);
  return { page, limit };
}

/**
 * The column a page query selects so the total comes back with its rows, in the same statement:
 * `count(*) over ()` counts every row the WHERE clause matches before OFFSET/LIMIT apply.
 */
export const TOTAL_COUNT = sql<string>`count(*) over ()`.as('total_count');

/**
 * The one list helper: runs the page query (offset from page/limit) and wraps it in the contract's envelope.
 * Callers order their query newest first before handing it over.
 *
 * One statement, one pool connection: when the page query selects `TOTAL_COUNT` the total comes with the rows. The
 * count query runs (afterwards, on the same single connection at a time) only when the rows cannot tell: a page
 * past the end, or a full page from a query without the column. A short page without the column is its own total.
 */
export async function listPage<Row, T>(
  params: PageParams,
  count: () => Promise<number>,
  rows: (offset: number, limit: number) => Promise<Row[]>,
  map: (row: Row) => T,
): Promise<Page<T>> {
  const offset = (params.page - 1) * params.limit;
  const data = await rows(offset, params.limit);
  const first = data[0] as { total_count?: string | number | bigint } | undefined;
  let total: number;
  if (first && first.total_count !== undefined && first.total_count !== null) total = Number(first.total_count);
  else if (data.length === 0) total = offset === 0 ? 0 : await count();
  else if (data.length < params.limit) total = offset + data.length;
  else total = await count();
  return { data: data.map(map), total, page: params.page, limit: params.limit };
}
