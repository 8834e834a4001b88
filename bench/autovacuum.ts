import type pg from 'pg';

/**
 * What PostgreSQL's autovacuum would do to the soak's database, for a server where it is off (this machine's
 * PostgreSQL runs with `autovacuum = off`, a CI setting; a seller's server has it on by default). Without it a table
 * that grows during the run keeps the statistics of its first minutes: the planner then guesses its indexes from a
 * nearly empty table, and in the 60-minute soak of 2026-12-03 dashboard Home's "later today" read went through the
 * orders' e-mail index, filtering every order of the store (p50 rising with the orders). The soak runs this after
 * every minute so that its latencies are those of a server run as documented.
 *
 * The thresholds are autovacuum's defaults (PostgreSQL's documentation, "The Autovacuum Daemon"): a table is vacuumed
 * when its dead tuples exceed 50 + 0.2 × reltuples, analysed when the tuples changed since its last analyse exceed
 * 50 + 0.1 × reltuples; a table never analysed has reltuples -1, counted as 0.
 */
export const AUTOVACUUM_DEFAULTS = { vacuumThreshold: 50, vacuumScaleFactor: 0.2, analyzeThreshold: 50, analyzeScaleFactor: 0.1 };

export interface TableActivity {
  table: string;
  reltuples: number;
  deadTuples: number;
  changedSinceAnalyze: number;
}

export function autovacuumDue(t: TableActivity, s = AUTOVACUUM_DEFAULTS): { vacuum: boolean; analyze: boolean } {
  const tuples = Math.max(0, t.reltuples);
  return {
    vacuum: t.deadTuples > s.vacuumThreshold + s.vacuumScaleFactor * tuples,
    analyze: t.changedSinceAnalyze > s.analyzeThreshold + s.analyzeScaleFactor * tuples,
  };
}

/** True when the server's autovacuum is off (the soak then does its work). */
export async function autovacuumOff(db: pg.Client): Promise<boolean> {
  const { rows } = await db.query<{ autovacuum: string }>('show autovacuum');
  return rows[0].autovacuum === 'off';
}

/**
 * The cost-based delay autovacuum works under on this server: `autovacuum_vacuum_cost_delay` (2 ms by default) and
 * `autovacuum_vacuum_cost_limit` (-1: `vacuum_cost_limit`, 200). A VACUUM or ANALYZE typed in a session runs
 * unthrottled (`vacuum_cost_delay` 0), reading and dirtying pages, and writing WAL, as fast as the disk takes them;
 * autovacuum sleeps `delay` each time it has spent `limit` in page costs, so its passes spread over time instead of
 * queueing the server's commits behind their WAL. The 60-minute soak of 2026-12-04 ran the unthrottled kind each
 * minute on tables that grew all hour, and its write routes' p99 (commits waiting on WAL flushes) grew with them.
 */
export async function autovacuumCost(db: pg.Client): Promise<{ delayMs: number; limit: number }> {
  const { rows } = await db.query<{ name: string; setting: string }>(
    `select name, setting from pg_settings where name in ('autovacuum_vacuum_cost_delay', 'autovacuum_vacuum_cost_limit', 'vacuum_cost_delay', 'vacuum_cost_limit')`,
  );
  const s = Object.fromEntries(rows.map((r) => [r.name, Number(r.setting)]));
  const delayMs = s.autovacuum_vacuum_cost_delay >= 0 ? s.autovacuum_vacuum_cost_delay : s.vacuum_cost_delay;
  const limit = s.autovacuum_vacuum_cost_limit > 0 ? s.autovacuum_vacuum_cost_limit : s.vacuum_cost_limit;
  return { delayMs, limit };
}

/**
 * One pass of autovacuum's decisions over the database's own tables: VACUUM (ANALYZE) or ANALYZE where due, under
 * autovacuum's cost-based delay (set on this session; see autovacuumCost). Run it on a connection of its own: a pass
 * over big tables takes a while, as autovacuum's does.
 */
export async function autovacuumPass(db: pg.Client): Promise<Array<{ table: string; did: 'vacuum analyze' | 'vacuum' | 'analyze' }>> {
  const cost = await autovacuumCost(db);
  await db.query(`set vacuum_cost_delay = '${cost.delayMs}ms'`);
  await db.query(`set vacuum_cost_limit = ${cost.limit}`);
  const { rows } = await db.query<{ table: string; reltuples: string; dead: string; changed: string }>(
    `select s.relname as table, c.reltuples::text as reltuples, s.n_dead_tup::text as dead, s.n_mod_since_analyze::text as changed
       from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = 'public'`,
  );
  const done: Array<{ table: string; did: 'vacuum analyze' | 'vacuum' | 'analyze' }> = [];
  for (const r of rows) {
    const due = autovacuumDue({ table: r.table, reltuples: Number(r.reltuples), deadTuples: Number(r.dead), changedSinceAnalyze: Number(r.changed) });
    if (!due.vacuum && !due.analyze) continue;
    const did = due.vacuum && due.analyze ? 'vacuum analyze' : due.vacuum ? 'vacuum' : 'analyze';
    const name = `"${r.table.replace(/"/g, '""')}"`;
    await db.query(did === 'analyze' ? `analyze ${name}` : did === 'vacuum' ? `vacuum ${name}` : `vacuum (analyze) ${name}`);
    done.push({ table: r.table, did });
  }
  return done;
}
