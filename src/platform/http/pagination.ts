import { MAX_PAGE, type Page } from './schemas';
import { validationError } from '../errors';

export interface PageParams {
  page: number;
  limit: number;
}

/** The schema already holds page/limit to their ranges; this is the last guard before they become an OFFSET. */
export function pageParams(q: { page?: number; limit?: number }): PageParams {
  const page = q.page ?? 1;
  const limit = q.limit ?? 20;
  if (!Number.isSafeInteger(page) || page < 1 || page > MAX_PAGE) throw validationError([{ field: 'page', message: `1 이상 ${MAX_PAGE} 이하의 정수여야 합니다.` }]);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100) throw validationError([{ field: 'limit', message: '1 이상 100 이하의 정수여야 합니다.' }]);
  return { page, limit };
}

/**
 * The one list helper: runs the count and the page query (offset from page/limit) and wraps them in the
 * contract's envelope. Callers order their query newest first before handing it over.
 */
export async function listPage<Row, T>(
  params: PageParams,
  count: () => Promise<number>,
  rows: (offset: number, limit: number) => Promise<Row[]>,
  map: (row: Row) => T,
): Promise<Page<T>> {
  const [total, data] = await Promise.all([count(), rows((params.page - 1) * params.limit, params.limit)]);
  return { data: data.map(map), total, page: params.page, limit: params.limit };
}
