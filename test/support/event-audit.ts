/**
 * The event audit: tool calls that change persistent state and write no ActivityEvent (spec 6: every state change
 * writes its event in the same transaction). Test-only, never in migrations.
 *
 * With SVC_EVENT_AUDIT=/path/file set, the global set-up installs into the migrated template database (so into every
 * per-file clone) a schema `svc_event_audit`: an unlogged table `changes` and, on every table of our schemas, three
 * AFTER ... FOR EACH STATEMENT triggers with transition tables that append one row per statement that changed rows:
 * the transaction (txid_current()), the table, the operation, for an UPDATE the columns whose value changed (rows
 * matched on the primary key; an update that changed no value is not recorded), the calling key (`svc.key_id`, which
 * app_hidden.set_request_context sets transaction-locally for every tool call) and the tool's function, read from the
 * statement the API sends (`select app_tools.<fn>($9::jsonb)::text … set_request_context(…)`, as-caller.ts).
 * The trigger function is SECURITY DEFINER: tools run as svc_visitor, who has no rights on the audit table.
 *
 * rest() (and rpc() for tools/call) reads the audit's last id before the call and, after a 200, the transactions
 * whose changes that call made (same key, same tool function; worker jobs, the sequencer, key bookkeeping and
 * fixtures set no svc.key_id and send no tool statement, so they never count) and that inserted no
 * app_public.activity_events row. A transaction whose every change is on the allow-list below is not reported.
 * Findings are appended to the file as one JSON object per line; nothing fails (collect mode only, for now).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { findTool } from '../../src/tools/catalog.ts';

export const EVENT_AUDIT_FILE = process.env.SVC_EVENT_AUDIT;
const SCHEMA = 'svc_event_audit';
/** Schemas holding tenant state (migrations create only these; app_hidden and app_tools hold functions today). */
const AUDITED_SCHEMAS = ['app_public', 'app_private', 'app_hidden', 'app_tools'];
const EVENTS_TABLE = 'app_public.activity_events';

/** Installs the audit into a migrated database (the template). Run as the database's owner or a superuser. */
export async function installEventAudit(client: pg.ClientBase): Promise<void> {
  await client.query(`
    create schema ${SCHEMA};
    comment on schema ${SCHEMA} is 'Test-only (test/support/event-audit.ts): which tables each transaction changed.';
    create unlogged table ${SCHEMA}.changes (
      id bigserial primary key,
      txid bigint not null,
      tbl text not null,
      op text not null,
      cols text[],
      n int not null,
      key_id text,
      fn text,
      pid int not null
    );
    create index on ${SCHEMA}.changes (txid);
    create function ${SCHEMA}.tg_record() returns trigger
      language plpgsql security definer set search_path to 'pg_catalog'
    as $$
    declare
      v_pk text[] := tg_argv;
      v_n int;
      v_cols text[];
    begin
      if tg_op = 'DELETE' then
        select count(*) into v_n from old_rows;
      elsif tg_op = 'INSERT' then
        select count(*) into v_n from new_rows;
      elsif cardinality(v_pk) = 0 then
        -- No primary key: rows that are not the same before and after (columns unknown).
        select count(*) into v_n from (select to_jsonb(r) from new_rows r except all select to_jsonb(r) from old_rows r) d;
      else
        -- The rows whose values changed (matched on the primary key) and the columns that did.
        select count(distinct nn.pk), array_agg(distinct e.key order by e.key) into v_n, v_cols
        from (select x.j, (select jsonb_agg(x.j -> k order by o) from unnest(v_pk) with ordinality u(k, o)) as pk
              from (select to_jsonb(r) as j from new_rows r) x) nn
        join (select x.j, (select jsonb_agg(x.j -> k order by o) from unnest(v_pk) with ordinality u(k, o)) as pk
              from (select to_jsonb(r) as j from old_rows r) x) oo on oo.pk = nn.pk
        cross join lateral jsonb_each(nn.j) e
        where e.value is distinct from oo.j -> e.key;
      end if;
      if coalesce(v_n, 0) = 0 then
        return null;
      end if;
      insert into ${SCHEMA}.changes (txid, tbl, op, cols, n, key_id, fn, pid)
      values (txid_current(), tg_table_schema || '.' || tg_table_name, tg_op, v_cols, v_n,
              nullif(current_setting('svc.key_id', true), ''),
              substring(current_query() from '((?:app_tools|app_hidden)\\.[a-z0-9_]+)\\(\\$9'),
              pg_backend_pid());
      return null;
    end
    $$;`);
  const { rows } = await client.query<{ name: string; pk: string[] }>(
    `select c.oid::regclass::text as name,
            coalesce((select array_agg(a.attname::text order by k.ord)
                      from pg_index i cross join unnest(i.indkey) with ordinality k(attnum, ord)
                      join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
                      where i.indrelid = c.oid and i.indisprimary), '{}') as pk
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = any($1) and c.relkind in ('r', 'p') and not c.relispartition
     order by 1`, [AUDITED_SCHEMAS]);
  for (const t of rows) {
    const args = t.pk.map((k) => pg.escapeLiteral(k)).join(', ');
    await client.query(`
      create trigger zzz_event_audit_insert after insert on ${t.name} referencing new table as new_rows
        for each statement execute function ${SCHEMA}.tg_record(${args});
      create trigger zzz_event_audit_update after update on ${t.name} referencing old table as old_rows new table as new_rows
        for each statement execute function ${SCHEMA}.tg_record(${args});
      create trigger zzz_event_audit_delete after delete on ${t.name} referencing old table as old_rows
        for each statement execute function ${SCHEMA}.tg_record(${args});`);
  }
}

/** The audit's triggers, for the catalog readers (schema-catalog.ts) to leave out. */
export const EVENT_AUDIT_TRIGGER_PREFIX = 'zzz_event_audit_';

interface Change { tbl: string; op: 'INSERT' | 'UPDATE' | 'DELETE'; cols: string[] | null; n: number }

/**
 * Changes that legitimately happen without an event. A table listed with `true` never needs one; with a column list,
 * an UPDATE that changed only those columns does not (any INSERT or DELETE, or another column, still counts).
 */
const ALLOWED: Record<string, true | string[]> = {
};

function needsEvent(c: Change): boolean {
  const rule = ALLOWED[c.tbl];
  if (rule === true) return false;
  if (rule && c.op === 'UPDATE' && c.cols && c.cols.every((col) => rule.includes(col))) return false;
  return true;
}

/** One pool per database, straight to the server (a test's database proxy may be cut or frozen). */
const pools = new Map<string, { pool: pg.Pool; installed: Promise<boolean> }>();
function poolFor(ownerUrl: string) {
  const db = new URL(ownerUrl).pathname;
  let entry = pools.get(db);
  if (!entry) {
    const u = new URL(inject('adminUrl'));
    u.pathname = db;
    const pool = new pg.Pool({
      connectionString: u.toString(), max: 2, idleTimeoutMillis: 1000, allowExitOnIdle: true,
      connectionTimeoutMillis: 5000, application_name: 'svc-event-audit',
    });
    pool.on('error', () => {}); // a test that terminates backends may end ours: the next query reconnects
    const installed = pool.query(`select to_regclass('${SCHEMA}.changes') is not null as ok`).then((r) => !!r.rows[0]?.ok, () => false);
    entry = { pool, installed };
    pools.set(db, entry);
  }
  return entry;
}

export interface AuditMark { ownerUrl: string; since: string }

/** Before a tool call: where the audit stands (undefined when the audit is off or not installed in this database). */
export async function eventAuditMark(ownerUrl: string): Promise<AuditMark | undefined> {
  if (!EVENT_AUDIT_FILE) return undefined;
  try {
    const { pool, installed } = poolFor(ownerUrl);
    if (!(await installed)) return undefined;
    const { rows } = await pool.query(`select coalesce(max(id), 0)::text as since from ${SCHEMA}.changes`);
    return { ownerUrl, since: rows[0].since };
  } catch {
    return undefined;
  }
}

const reported = new Set<string>();

/** After a tool call answered 200: reports its transactions that changed state and wrote no event. */
export async function eventAuditCheck(mark: AuditMark | undefined, tool: string, token: string | undefined, input: unknown, via: string): Promise<void> {
  if (!mark || !EVENT_AUDIT_FILE) return;
  const t = findTool(tool);
  // A tool with its own run hook may make several statements, of other tools or read helpers: any tool statement of
  // the key counts. A plain SQL tool: its own function's.
  const fn = t && !t.run ? t.sqlFunction : null;
  const hash = token ? crypto.createHash('sha256').update(token).digest() : null;
  let rows: Array<{ txid: string; changes: Change[] }>;
  try {
    ({ rows } = await poolFor(mark.ownerUrl).pool.query(
      `with me as (select id::text as key_id from app_private.api_keys where token_hash = $2::bytea)
       select c.txid::text as txid,
              json_agg(json_build_object('tbl', c.tbl, 'op', c.op, 'cols', c.cols, 'n', c.n) order by c.id) as changes
       from ${SCHEMA}.changes c
       where c.id > $1::bigint and c.fn is not null
         and ($3::text is null or c.fn = $3)
         and (not exists (select from me) or c.key_id = (select key_id from me))
         and not exists (select from ${SCHEMA}.changes e where e.txid = c.txid and e.tbl = '${EVENTS_TABLE}' and e.op = 'INSERT')
       group by c.txid
       order by min(c.id)`, [mark.since, hash, fn]));
  } catch {
    return;
  }
  const db = new URL(mark.ownerUrl).pathname;
  for (const r of rows) {
    const key = `${db}:${r.txid}`;
    if (reported.has(key)) continue; // concurrent calls of one key and tool see each other's transactions
    reported.add(key);
    const changes = r.changes.filter(needsEvent);
    if (!changes.length) continue;
    let testFile: string | undefined;
    let testName: string | undefined;
    try {
      const state = expect.getState();
      testFile = state.testPath?.replace(`${process.cwd()}/`, '');
      testName = state.currentTestName;
    } catch { /* outside a test */ }
    const summary = JSON.stringify(input ?? null) ?? 'null';
    fs.appendFileSync(EVENT_AUDIT_FILE, `${JSON.stringify({
      tool, via,
      changes: changes.map((c) => `${c.tbl} ${c.op}${c.cols ? `(${c.cols.join(',')})` : ''} x${c.n}`),
      input: summary.length > 400 ? `${summary.slice(0, 400)}…` : summary,
      testFile, testName,
    })}\n`);
  }
}
