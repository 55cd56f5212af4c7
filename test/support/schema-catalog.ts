/**
 * Reading the schema back out of PostgreSQL's catalog: a fingerprint of every re-creatable object
 * (functions, policies, triggers) and the readable `schema.sql` snapshot. Used by test/db/sql-layout.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { EVENT_AUDIT_TRIGGER_PREFIX } from './event-audit.ts';

export const OUR_SCHEMAS = ['app_public', 'app_hidden', 'app_private', 'app_tools'];
export const SQL_DIR = path.resolve('sql');

/** Every file under sql/, relative to it, sorted. */
export function sqlFiles(dir = SQL_DIR): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.sql')) out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * One line per function, policy and trigger, with everything re-creating it could change: the full
 * definition, grants and comment. Equal fingerprints = the same re-creatable schema.
 */
export async function fingerprint(client: pg.Client | pg.PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ line: string }>(
    `select 'function ' || p.oid::regprocedure::text || ' ' || md5(pg_get_functiondef(p.oid))
            || ' acl=' || coalesce((select string_agg(a::text, ',' order by a::text) from unnest(p.proacl) a), '-')
            || ' comment=' || coalesce(md5(obj_description(p.oid, 'pg_proc')), '-') as line
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = any($1)
     union all
     select 'policy ' || pl.schemaname || '.' || pl.tablename || '.' || pl.policyname || ' ' || pl.permissive || ' '
            || pl.cmd || ' ' || pl.roles::text || ' ' || coalesce(pl.qual, '-') || ' ' || coalesce(pl.with_check, '-')
            || ' comment=' || coalesce(md5(obj_description(pp.oid, 'pg_policy')), '-')
     from pg_policies pl
     join pg_namespace n on n.nspname = pl.schemaname
     join pg_class c on c.relnamespace = n.oid and c.relname = pl.tablename
     join pg_policy pp on pp.polrelid = c.oid and pp.polname = pl.policyname
     where pl.schemaname = any($1)
     union all
     select 'trigger ' || pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text
            || ' comment=' || coalesce(md5(obj_description(t.oid, 'pg_trigger')), '-')
     from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
     where not t.tgisinternal and n.nspname = any($1) and not starts_with(t.tgname, $2)
     order by 1`, [OUR_SCHEMAS, EVENT_AUDIT_TRIGGER_PREFIX]);
  return rows.map((r) => r.line);
}

/** The functions each sql/ file creates, as `schema.name`, read from its `create or replace function` lines. */
export function functionsByFile(): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const file of sqlFiles()) {
    const text = fs.readFileSync(path.join(SQL_DIR, file), 'utf8');
    const names = [...text.matchAll(/^create or replace function ([a-z_]+\.[a-z0-9_]+)\(/gim)].map((m) => m[1]!.toLowerCase());
    map.set(file, names);
  }
  return map;
}

const q = (rows: { [k: string]: unknown }[], key: string) => rows.map((r) => r[key] as string);

/**
 * The readable schema: tables with columns, constraints, indexes, row-level security, policies and grants;
 * types; and one line per function with its grants and the sql/ file that defines it.
 */
export async function schemaSql(client: pg.Client | pg.PoolClient): Promise<string> {
  const out: string[] = [
    '-- The current schema, generated from the database catalog by `npm run db:schema` (do not edit).',
    '-- test/db/sql-layout.test.ts fails when it differs from what the migrations produce. Tables change in',
    '-- migrations/; functions, policies and triggers are defined in sql/ (the file is named on each function).',
    '',
  ];
  // The owner's name depends on the server (postgres, or DATABASE_URL's user): written as current_user.
  const { rows: [{ owner }] } = await client.query('select current_user as owner');
  const fileOf = new Map<string, string>();
  for (const [file, names] of functionsByFile()) for (const n of names) fileOf.set(n, file);

  for (const schema of OUR_SCHEMAS) {
    const { rows: [s] } = await client.query(
      `select obj_description(n.oid, 'pg_namespace') as comment,
              (select coalesce(string_agg(r.rolname || ':' || a.privilege_type, ', ' order by r.rolname, a.privilege_type), '')
               from aclexplode(n.nspacl) a join pg_roles r on r.oid = a.grantee where a.grantee <> n.nspowner) as grants
       from pg_namespace n where n.nspname = $1`, [schema]);
    if (!s) continue;
    out.push(`-- ${'='.repeat(100)}`, `-- schema ${schema}${s.comment ? `: ${s.comment}` : ''}`);
    if (s.grants) out.push(`-- usage: ${s.grants}`);
    out.push('');

    const { rows: types } = await client.query(
      `select t.typname, t.typtype, format_type(t.typbasetype, t.typtypmod) as base,
              (select string_agg(quote_literal(e.enumlabel), ', ' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid) as labels,
              (select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' order by a.attnum)
               from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0) as attrs
       from pg_type t join pg_namespace n on n.oid = t.typnamespace
       where n.nspname = $1 and (t.typtype in ('e', 'd') or (t.typtype = 'c' and (select relkind from pg_class where oid = t.typrelid) = 'c'))
       order by t.typname`, [schema]);
    for (const t of types) {
      if (t.typtype === 'e') out.push(`create type ${schema}.${t.typname} as enum (${t.labels});`);
      else if (t.typtype === 'd') out.push(`create domain ${schema}.${t.typname} as ${t.base};`);
      else out.push(`create type ${schema}.${t.typname} as (${t.attrs});`);
    }
    if (types.length) out.push('');

    const { rows: tables } = await client.query(
      `select c.oid, c.relname, c.relkind, c.relrowsecurity, c.relforcerowsecurity, c.relpersistence,
              obj_description(c.oid, 'pg_class') as comment
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = $1 and c.relkind in ('r', 'p', 'v', 'm') order by c.relname`, [schema]);
    for (const t of tables) {
      const name = `${schema}.${t.relname}`;
      if (t.comment) out.push(...String(t.comment).split('\n').map((l) => `-- ${l}`));
      if (t.relkind === 'v' || t.relkind === 'm') {
        const { rows: [v] } = await client.query('select pg_get_viewdef($1::oid, true) as def', [t.oid]);
        out.push(`create ${t.relkind === 'm' ? 'materialized view' : 'view'} ${name} as\n${v.def}`, '');
        continue;
      }
      const { rows: cols } = await client.query(
        `select a.attname, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull, pg_get_expr(d.adbin, d.adrelid) as def,
                a.attidentity, a.attgenerated, col_description(a.attrelid, a.attnum) as comment
         from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
         where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped order by a.attnum`, [t.oid]);
      const { rows: cons } = await client.query(
        `select conname, pg_get_constraintdef(oid, true) as def from pg_constraint where conrelid = $1 and contype <> 't'
         order by case contype when 'p' then 0 when 'u' then 1 when 'f' then 2 else 3 end, conname`, [t.oid]);
      const lines = cols.map((c) => {
        let l = `  ${c.attname} ${c.type}`;
        if (c.attgenerated === 's') l += ` generated always as (${c.def}) stored`;
        else if (c.def != null) l += ` default ${c.def}`;
        if (c.attidentity) l += ` generated ${c.attidentity === 'a' ? 'always' : 'by default'} as identity`;
        if (c.attnotnull) l += ' not null';
        return c.comment ? `${l} -- ${String(c.comment).replace(/\n/g, ' ')}` : l;
      });
      lines.push(...cons.map((c) => `  constraint ${c.conname} ${c.def}`));
      // A trailing comment must not swallow the separating comma: put commas before the comments.
      const joined = lines.map((l, i) => {
        if (i === lines.length - 1) return l;
        const at = l.indexOf(' -- ');
        return at === -1 ? `${l},` : `${l.slice(0, at)},${l.slice(at)}`;
      });
      out.push(`create ${t.relpersistence === 'u' ? 'unlogged ' : ''}table ${name} (`, ...joined, ');');
      out.push(...q((await client.query(
        `select pg_get_indexdef(i.indexrelid) || ';' as def from pg_index i
         where i.indrelid = $1 and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
         order by 1`, [t.oid])).rows, 'def'));
      if (t.relrowsecurity) out.push(`alter table ${name} enable row level security;`);
      if (t.relforcerowsecurity) out.push(`alter table ${name} force row level security;`);
      const { rows: grants } = await client.query(
        `select r.rolname, a.privilege_type from pg_class c, aclexplode(c.relacl) a join pg_roles r on r.oid = a.grantee
         where c.oid = $1 and a.grantee <> c.relowner order by 1, 2`, [t.oid]);
      for (const g of grants) out.push(`grant ${g.privilege_type.toLowerCase()} on ${name} to ${g.rolname};`);
      const { rows: colGrants } = await client.query(
        `select r.rolname, a.privilege_type, string_agg(att.attname, ', ' order by att.attnum) as cols
         from pg_attribute att, aclexplode(att.attacl) a join pg_roles r on r.oid = a.grantee
         where att.attrelid = $1 and att.attacl is not null group by 1, 2 order by 1, 2`, [t.oid]);
      for (const g of colGrants) out.push(`grant ${g.privilege_type.toLowerCase()} (${g.cols}) on ${name} to ${g.rolname};`);
      const { rows: pols } = await client.query(
        `select policyname, permissive, roles::text[] as roles, cmd, qual, with_check from pg_policies
         where schemaname = $1 and tablename = $2 order by policyname`, [schema, t.relname]);
      for (const p of pols) {
        const roles = (p.roles as string[]).map((r) => (r === owner ? 'current_user' : r)).join(', ');
        let l = `create policy ${p.policyname} on ${name}${p.permissive === 'PERMISSIVE' ? '' : ' as restrictive'} for ${p.cmd.toLowerCase()} to ${roles}`;
        if (p.qual) l += ` using (${p.qual})`;
        if (p.with_check) l += ` with check (${p.with_check})`;
        out.push(`${l};`);
      }
      out.push(...q((await client.query(
        `select pg_get_triggerdef(oid, true) || ';' as def from pg_trigger where tgrelid = $1 and not tgisinternal
           and not starts_with(tgname, $2) order by tgname`,
        [t.oid, EVENT_AUDIT_TRIGGER_PREFIX])).rows, 'def'));
      out.push('');
    }

    const { rows: fns } = await client.query(
      `select p.proname, p.oid::regprocedure::text as sig, pg_get_function_result(p.oid) as result, p.prosecdef, p.provolatile,
              l.lanname,
              (select coalesce(string_agg(r.rolname, ', ' order by r.rolname), '') from aclexplode(p.proacl) a
               join pg_roles r on r.oid = a.grantee where a.grantee <> p.proowner) as grantees
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_language l on l.oid = p.prolang
       where n.nspname = $1 order by p.proname, 2`, [schema]);
    if (fns.length) out.push(`-- functions of ${schema} (definitions in sql/)`);
    for (const f of fns) {
      const traits = [f.lanname, { i: 'immutable', s: 'stable', v: 'volatile' }[f.provolatile as 'i'], f.prosecdef ? 'security definer' : '']
        .filter(Boolean).join(' ');
      out.push(`-- ${f.sig} returns ${f.result}; ${traits}; execute: ${f.grantees || 'owner only'}; ${fileOf.get(`${schema}.${f.proname}`) ?? 'NOT IN sql/'}`);
    }
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
