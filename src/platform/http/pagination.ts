import type { Page } from './schemas';

export interface PageParams {
  page: number;
  limit: number;
}

export function pageParams(q: { page?: number; limit?: number }): PageParams {
  return { page: q.page ?? 1, limit: q.limit ?? 20 };
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
