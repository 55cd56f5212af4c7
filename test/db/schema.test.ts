import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/harness.ts';

const OUR_SCHEMAS = ['app_public', 'app_hidden', 'app_private', 'app_tools'];
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: await createTestDatabase() });
  await client.connect();
});
afterAll(() => client.end());

describe('schema rules a DBA can read in psql', () => {
  it('every table has row-level security enabled and forced', async () => {
    const { rows } = await client.query(
      `select n.nspname || '.' || c.relname as name, c.relrowsecurity, c.relforcerowsecurity
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind in ('r', 'p') and n.nspname = any($1)`, [OUR_SCHEMAS]);
    expect(rows.length).toBeGreaterThan(10);
    const missing = rows.filter((r) => !r.relrowsecurity || !r.relforcerowsecurity).map((r) => r.name);
    expect(missing).toEqual([]);
  });

  it('every tenant table carries workspace_id', async () => {
    const { rows } = await client.query(
      `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind = 'r' and n.nspname = any($1)
         and c.relname not in ('workspaces', 'users')
         and not exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'workspace_id')`, [OUR_SCHEMAS]);
    expect(rows.map((r) => r.relname)).toEqual([]);
  });

  it('every table, policy and function has a comment', async () => {
    const tables = await client.query(
      `select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind = 'r' and n.nspname = any($1) and obj_description(c.oid, 'pg_class') is null`, [OUR_SCHEMAS]);
    expect(tables.rows.map((r) => r.name)).toEqual([]);
    const policies = await client.query(
      `select p.polname || ' on ' || c.relname as name from pg_policy p join pg_class c on c.oid = p.polrelid
       join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = any($1) and obj_description(p.oid, 'pg_policy') is null`, [OUR_SCHEMAS]);
    expect(policies.rows.map((r) => r.name)).toEqual([]);
    const functions = await client.query(
      `select n.nspname || '.' || p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = any($1) and obj_description(p.oid, 'pg_proc') is null`, [OUR_SCHEMAS]);
    expect(functions.rows.map((r) => r.name)).toEqual([]);
  });

  it('security-definer functions pin their search_path and live outside app_public', async () => {
    const { rows } = await client.query(
      `select n.nspname || '.' || p.proname as name, p.proconfig
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where p.prosecdef and n.nspname = any($1)`, [OUR_SCHEMAS]);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.name.startsWith('app_public.')).toBe(false);
      expect((r.proconfig ?? []).some((c: string) => c.startsWith('search_path='))).toBe(true);
    }
  });

  it('issues.list and events.recent keep one plan for their unfiltered query (the plan cache re-planned it per call in a big workspace)', async () => {
    const { rows } = await client.query(
      `select p.proname, p.proconfig from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = 'app_tools' and p.proname in ('issues_list', 'events_recent') order by p.proname`);
    expect(rows).toEqual([
      { proname: 'events_recent', proconfig: ['plan_cache_mode=force_generic_plan'] },
      { proname: 'issues_list', proconfig: ['plan_cache_mode=force_generic_plan'] },
    ]);
  });

  // PostgreSQL 17 plans a `language sql` function that it cannot inline again on every call: a shaper called per row
  // of a list must stay one expression without subqueries (1,000 relations took 0.5 s when relation_view had one).
  it.each([
    ['issue_ref_json(i, s)', 'app_public.issues i left join app_public.statuses s on s.id = i.status_id'],
    ['relation_view(r, r.from_issue_id, i, s)',
     'app_public.issue_relations r join app_public.issues i on i.id = r.to_issue_id left join app_public.statuses s on s.id = i.status_id'],
    ['issue_lean_json(i, s, p, a)',
     'app_public.issues i left join app_public.statuses s on s.id = i.status_id left join app_public.projects p on p.id = i.project_id left join app_public.agents a on a.id = i.assigned_agent_id'],
    ['comment_shape(c, u, a)',
     'app_public.comments c left join app_public.users u on u.id = c.author_user_id left join app_public.agents a on a.id = c.authoring_agent_id'],
    ['event_shape(e, a, u, true)',
     'app_public.activity_events e left join app_public.agents a on a.id = e.actor_agent_id left join app_public.users u on u.id = e.actor_user_id'],
  ])('the row shaper %s is inlined into the list that calls it', async (call, from) => {
    const { rows } = await client.query(`explain (verbose, costs off) select app_hidden.${call} from ${from}`);
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('build_object(');
    expect(plan).not.toContain(call.slice(0, call.indexOf('(')));
  });

  it('the request role cannot touch app_private, and sees nothing without a caller identity', async () => {
    await client.query('begin');
    try {
      await client.query('set local role svc_visitor');
      await expect(client.query('select * from app_private.api_keys')).rejects.toThrow(/permission denied/);
    } finally {
      await client.query('rollback');
    }
    await client.query(`select app_private.create_workspace('A', 'AAA', 'a@example.com')`);
    const { rows: [status] } = await client.query(
      `select s.workspace_id, s.id from app_public.statuses s join app_public.workspaces w on w.id = s.workspace_id where w.key = 'AAA' limit 1`);
    await client.query('begin');
    try {
      await client.query('set local role svc_visitor');
      const { rows } = await client.query('select count(*)::int as n from app_public.statuses');
      expect(rows[0].n).toBe(0);
      await expect(client.query(`insert into app_public.issues (workspace_id, title, status_id) values ($1, 'x', $2)`,
        [status.workspace_id, status.id])).rejects.toThrow(/row-level security/);
    } finally {
      await client.query('rollback');
    }
  });

  it('the request role may not write events or workspaces directly', async () => {
    await client.query('begin');
    try {
      await client.query('set local role svc_visitor');
      await expect(client.query(`insert into app_public.activity_events (workspace_id, kind, subject_type)
        values (gen_random_uuid(), 'X', 'issue')`)).rejects.toThrow(/permission denied/);
    } finally {
      await client.query('rollback');
    }
    await client.query('begin');
    try {
      await client.query('set local role svc_visitor');
      await expect(client.query(`update app_public.workspaces set name = 'x'`)).rejects.toThrow(/permission denied/);
    } finally {
      await client.query('rollback');
    }
  });
});

describe('migrations', () => {
  it('ships nothing uncommitted: migrations/current is empty (run `npm run gm -- commit`)', async () => {
    const fs = await import('node:fs/promises');
    const files = await fs.readdir('migrations/current').catch(() => [] as string[]);
    const pending: string[] = [];
    for (const f of files) {
      const text = await fs.readFile(`migrations/current/${f}`, 'utf8');
      if (text.replace(/--.*$/gm, '').trim()) pending.push(f);
    }
    expect(pending).toEqual([]);
  });
});
