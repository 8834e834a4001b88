import type { KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/**
 * Tells in-process caches, synchronously, that this process is writing a table: a Kysely plugin that looks at each
 * query's top-level node (and its WITH clauses) for an INSERT, UPDATE or DELETE of a watched table, and calls the
 * table's handlers when the statement is compiled and again when it has run. Other processes' writes reach the same
 * caches through database notifications (triggers, src/db/migrations/013_*.sql); this covers the moment between a
 * write of this process and that notification, so a request that follows a write here never reads an older copy.
 *
 * Statements built as raw SQL are not seen; the watched tables are written through the query builder.
 */
/** What a watched statement does to its table: the columns an UPDATE sets (null for INSERT and DELETE). */
export interface TableWrite {
  op: 'insert' | 'update' | 'delete';
  columns: string[] | null;
}
type Written = Array<{ table: string; write: TableWrite }>;

export class WriteWatch implements KyselyPlugin {
  readonly #handlers = new Map<string, Set<(write: TableWrite) => void>>();
  readonly #pending = new WeakMap<object, Written>();

  on(table: string, handler: (write: TableWrite) => void): () => void {
    let set = this.#handlers.get(table);
    if (!set) this.#handlers.set(table, (set = new Set()));
    set.add(handler);
    return () => set!.delete(handler);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.#handlers.size === 0) return args.node;
    const written = writtenTables(args.node).filter((w) => this.#handlers.has(w.table));
    if (written.length > 0) {
      this.#fire(written);
      this.#pending.set(args.queryId, written);
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const written = this.#pending.get(args.queryId);
    if (written) this.#fire(written);
    return args.result;
  }

  #fire(written: Written): void {
    for (const w of written) for (const h of this.#handlers.get(w.table) ?? []) h(w.write);
  }
}

function tableName(node: OperationNode | undefined): string | null {
  if (!node) return null;
  const n = node as any;
  if (n.kind === 'TableNode') return n.table.identifier.name;
  if (n.kind === 'AliasNode') return tableName(n.node);
  return null;
}

function writtenTables(node: OperationNode): Written {
  const n = node as any;
  const out: Written = [];
  if (n.kind === 'InsertQueryNode') {
    const table = tableName(n.into);
    if (table) out.push({ table, write: { op: 'insert', columns: null } });
  } else if (n.kind === 'UpdateQueryNode') {
    const table = tableName(n.table);
    const columns = (n.updates ?? []).map((u: any) => u.column?.column?.name).filter((c: unknown): c is string => typeof c === 'string');
    if (table) out.push({ table, write: { op: 'update', columns } });
  } else if (n.kind === 'DeleteQueryNode') {
    const table = tableName(n.from?.froms?.[0]);
    if (table) out.push({ table, write: { op: 'delete', columns: null } });
  }
  for (const cte of n.with?.expressions ?? []) out.push(...writtenTables(cte.expression));
  return out;
}
