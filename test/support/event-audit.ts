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
 * statement the API sends (`select app_tools.<fn>($2::jsonb)::text … set_request_context($1)`, as-caller.ts).
 * The trigger function is SECURITY DEFINER: tools run as svc_visitor, who has no rights on the audit table.
 *
 * rest() (and rpc() for tools/call) reads the audit's last id before the call and, after a 200, the transactions
 * whose changes that call made (same key, same tool function; worker jobs, the sequencer, key bookkeeping and
 * fixtures set no svc.key_id and send no tool statement, so they never count) and that inserted no
 * app_public.activity_events row. A transaction whose every change is on the allow-list below is not reported.
 * When a test app closes, a sweep reports the same for every other transaction made as a key (MCP SDK clients,
 * JSON-RPC batches, GraphQL's own mutations, ...), without the input. Findings are appended to the file as one JSON
 * object per line ({tool, via: rest | rpc | sweep, changes, input, testFile, testName}); with SVC_EVENT_AUDIT=fail (as
 * `npm test` runs) each finding fails its test instead. Without SVC_EVENT_AUDIT nothing is installed and rest()/rpc()
 * make no extra query.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { expect, inject } from 'vitest';
import { TOOLS, findTool } from '../../src/tools/catalog.ts';

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
      q text,
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
      insert into ${SCHEMA}.changes (txid, tbl, op, cols, n, key_id, fn, q, pid)
      select txid_current(), tg_table_schema || '.' || tg_table_name, tg_op, v_cols, v_n, s.key_id, s.fn,
             -- Not a tool statement but as a key (GraphQL's own mutations): the start of the statement, for the sweep.
             case when s.fn is null and s.key_id is not null then left(regexp_replace(current_query(), '\\s+', ' ', 'g'), 160) end,
             pg_backend_pid()
      from (select nullif(current_setting('svc.key_id', true), '') as key_id,
                   substring(current_query() from '((?:app_tools|app_hidden)\\.[a-z0-9_]+)\\(\\$2') as fn) s;
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
 * Changes that legitimately happen without an event. `true`: the table never needs one (any operation). A column list:
 * an UPDATE that changed only those columns needs none (an INSERT or DELETE, or any other column, still counts; and an
 * UPDATE that moved nothing but updated_at always counts: a write that changed nothing must leave updatedAt alone,
 * docs/decisions.md "A patch that changes nothing writes nothing (no event, updatedAt untouched)").
 *
 * Only what tool calls write is listed: bookkeeping written outside a tool's transaction (api_keys.last_used_at, flushed
 * by the key cache on the owner pool; app_private.rate_limit_counters, counted by the HTTP layer; webhook deliveries
 * and attempts, graphile_worker's tables, the sequencer's stream_pos, the sweeps) carries no tool statement and no
 * svc.key_id, so it is never attributed to a call. Deliveries a tool's event enqueues are in a transaction with that
 * event. graphile_worker is not audited at all (jobs, not tenant state).
 */
const ALLOWED: Record<string, true | string[]> = {
  // Personal records (docs/decisions.md "No events for personal records"): notes, pins, watches and time entries have
  // no event kind and would leak private content to every key of the workspace, its streams and webhooks.
  'app_public.notes': true, // notes.create/update/archive/todayJournal
  'app_public.pins': true, // pins.set (replace, reorder)
  'app_public.issue_watchers': true, // issues.watch/unwatch ("writes no event (no kind exists)")
  'app_public.time_entries': true, // time.start/stop/log/update/delete (start stops the caller's running timer)
  // A person's own notification preferences ("No event (personal record, as setPreference)").
  'app_public.notification_preferences': true,
  // An idempotency key's claim and its answer (sql/core/idempotency.sql): bookkeeping of the call, not tenant state;
  // a repeated call replays the answer and writes nothing else (its first run wrote the events).
  'app_private.idempotent_calls': true,
  // A pending upload: a reservation for a PUT that may never come, expired by a job after 15 min. The attachment and
  // its ISSUE_UPDATED (changes attachments) are written by attachments.finalize; until then no list shows it.
  'app_public.attachment_uploads': true,
  // Presence: agents.heartbeat bumps lastHeartbeatAt on every call; AGENT_STATUS_CHANGED only when the status
  // actually changes (spec 3.4, 6.3). A status or runtime change is another column and still counts.
  'app_public.agents': ['last_heartbeat_at', 'updated_at'],
  // Runtime telemetry: runtimes.heartbeat bumps heartbeatAt and merges info, runtimes.reportInfo merges info
  // (sql/runtimes/tools/heartbeat.sql, reportInfo.sql: "Telemetry: no event"; docs/decisions.md "Heartbeats and
  // reportInfo are telemetry and write no event").
  'app_public.runtimes': ['heartbeat_at', 'info', 'updated_at'],
  // A run's liveness stamp, read by the stale-run sweep: every report of the run's agent (runs.recordUsage with the
  // same figures, resumeWork on an ACTIVE run, comments.upsertStatus with the same body) bumps it; AGENT_RUN_UPDATED
  // only when a figure or the current step changed (docs/decisions.md "a repeated report writes none").
  'app_public.agent_runs': ['last_event_at'],
  // When the local snapshot of an external issue was last refreshed (a cache stamp): repohost.importIssue/sync of a
  // resource whose state and title did not change. A changed state or title writes ISSUE_UPDATED on the linked issues
  // (app_private.tg_external_resources__events); other snapshot columns still count.
  'app_public.external_resources': ['synced_at'],
  // (No configuration is listed any more: dispatch rules write DISPATCH_RULE_* since the twenty-eighth session,
  // repository mappings REPO_MAPPING_* and plugins PLUGIN_CREATED/UPDATED since the twenty-ninth.)
};

function needsEvent(c: Change): boolean {
  const rule = ALLOWED[c.tbl];
  if (rule === true) return false;
  if (rule && c.op === 'UPDATE' && c.cols && c.cols.some((col) => col !== 'updated_at')
      && c.cols.every((col) => rule.includes(col))) return false;
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

/** Transactions already looked at (db:txid), by a call's check or a sweep. */
const seen = new Set<string>();

function where(): { testFile?: string; testName?: string } {
  try {
    const state = expect.getState();
    return { testFile: state.testPath?.replace(`${process.cwd()}/`, ''), testName: state.currentTestName };
  } catch {
    return {}; // outside a test
  }
}

/** SVC_EVENT_AUDIT=fail (what `npm test` sets): a finding fails its test (the sweep's, the file's) instead of being collected. */
function report(finding: Record<string, unknown>): void {
  if (EVENT_AUDIT_FILE === 'fail') {
    throw new Error(`a state change with no ActivityEvent (test/support/event-audit.ts; allow-list there if it needs none): ${JSON.stringify(finding)}`);
  }
  fs.appendFileSync(EVENT_AUDIT_FILE!, `${JSON.stringify(finding)}\n`);
}

const describeChanges = (changes: Change[]) =>
  changes.map((c) => `${c.tbl} ${c.op}${c.cols ? `(${c.cols.join(',')})` : ''} x${c.n}`);

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
    if (seen.has(key)) continue; // concurrent calls of one key and tool see each other's transactions
    seen.add(key);
    const changes = r.changes.filter(needsEvent);
    if (!changes.length) continue;
    const summary = JSON.stringify(input ?? null) ?? 'null';
    report({
      tool, via, changes: describeChanges(changes),
      input: summary.length > 400 ? `${summary.slice(0, 400)}…` : summary,
      ...where(),
    });
  }
}

const sqlFunctionTools = new Map<string, string>();

/**
 * When a test app closes: every transaction made as a key (a tool statement, or GraphQL's own mutations) that no
 * call's check looked at (MCP SDK clients, JSON-RPC batches, GraphQL, raw requests, a run hook's statement of a call
 * that then failed) and that changed state without an event. Reported with the tool of the statement, no input.
 */
export async function eventAuditSweep(ownerUrl: string): Promise<void> {
  if (!EVENT_AUDIT_FILE) return;
  const db = new URL(ownerUrl).pathname;
  let rows: Array<{ txid: string; fn: string | null; q: string | null; changes: Change[] }>;
  try {
    const { pool, installed } = poolFor(ownerUrl);
    if (!(await installed)) return;
    ({ rows } = await pool.query(
      `select c.txid::text as txid, min(c.fn) as fn, min(c.q) as q,
              json_agg(json_build_object('tbl', c.tbl, 'op', c.op, 'cols', c.cols, 'n', c.n) order by c.id) as changes
       from ${SCHEMA}.changes c
       where c.key_id is not null
         and not exists (select from ${SCHEMA}.changes e where e.txid = c.txid and e.tbl = '${EVENTS_TABLE}' and e.op = 'INSERT')
       group by c.txid
       order by min(c.id)`));
  } catch {
    return;
  }
  if (!sqlFunctionTools.size) for (const t of TOOLS) if (t.hasSql) sqlFunctionTools.set(t.sqlFunction, t.name);
  for (const r of rows) {
    const key = `${db}:${r.txid}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const changes = r.changes.filter(needsEvent);
    if (!changes.length) continue;
    report({
      tool: r.fn ? sqlFunctionTools.get(r.fn) ?? r.fn : `graphql: ${r.q ?? '?'}`, via: 'sweep',
      changes: describeChanges(changes), testFile: where().testFile, // (the last test's name would mislead)
    });
  }
}
