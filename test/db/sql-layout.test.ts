/**
 * sql/ is the current source of every function, policy and trigger (migrations --! include it). These
 * checks keep that true: re-applying sql/ changes nothing, every function has exactly one file, every
 * catalog tool has its SQL function (and the reverse), and schema.sql is what the migrations produce.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/catalog.ts';
import { OUR_SCHEMAS, SQL_DIR, fingerprint, functionsByFile, schemaSql, sqlFiles } from '../support/schema-catalog.ts';
import { createTestDatabase } from '../support/harness.ts';

const SNAPSHOT = path.resolve('schema.sql');
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: await createTestDatabase() });
  await client.connect();
});
afterAll(() => client.end());

describe('sql/ layout', () => {
  it('re-applying every sql/ file to a migrated database changes nothing', async () => {
    const before = await fingerprint(client);
    await client.query('begin');
    try {
      for (const file of sqlFiles()) {
        try {
          await client.query(fs.readFileSync(path.join(SQL_DIR, file), 'utf8'));
        } catch (err) {
          throw new Error(`sql/${file}: ${(err as Error).message}`);
        }
      }
      const after = await fingerprint(client);
      const changed = after.filter((l) => !before.includes(l));
      const lost = before.filter((l) => !after.includes(l));
      expect({ changed, lost }).toEqual({ changed: [], lost: [] });
    } finally {
      await client.query('rollback');
    }
  });

  it('every function of our schemas is created in exactly one sql/ file', async () => {
    const { rows } = await client.query<{ name: string }>(
      `select n.nspname || '.' || p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname = any($1)`, [OUR_SCHEMAS]);
    const filesOf = new Map<string, string[]>();
    for (const [file, names] of functionsByFile()) {
      for (const n of names) filesOf.set(n, [...(filesOf.get(n) ?? []), file]);
    }
    const dbNames = new Set(rows.map((r) => r.name));
    expect(rows.map((r) => r.name).filter((n) => !filesOf.has(n)), 'functions with no file in sql/').toEqual([]);
    expect([...filesOf].filter(([, files]) => new Set(files).size > 1), 'functions defined in several files').toEqual([]);
    expect([...filesOf.keys()].filter((n) => !dbNames.has(n)), 'sql/ defines functions the migrations do not create').toEqual([]);
    // As many overloads as sql/ creates: a signature changed in sql/ leaves the old one behind unless a migration
    // drops it (the old one then still answers every caller that passes the old arguments).
    const overloads = new Map<string, number>();
    for (const r of rows) overloads.set(r.name, (overloads.get(r.name) ?? 0) + 1);
    expect([...overloads].filter(([n, count]) => count !== (filesOf.get(n)?.length ?? 0)).map(([n, count]) => `${n}: ${count} in the database`),
      'overloads the migrations left behind').toEqual([]);
  });

  it('a tool with a run hook declares whether it has an SQL function (and then calls it)', () => {
    for (const t of TOOLS.filter((x) => x.run)) {
      expect(t.hasSql, `${t.name}: run hooks of tools with sql: true call ctx.sql`).toBe(t.sql === true);
      if (t.sql) expect(t.run!.toString(), `${t.name}: declared sql: true but its run hook never calls ctx.sql`).toMatch(/\bsql\(/);
    }
  });

  it('every catalog tool has its SQL function in sql/<namespace>/tools/<tool>.sql, and every app_tools function a catalog entry', async () => {
    const { rows } = await client.query<{ name: string; args: string; result: string }>(
      `select p.proname as name, pg_get_function_identity_arguments(p.oid) as args, pg_get_function_result(p.oid) as result
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'app_tools'`);
    const inDb = new Map(rows.map((r) => [`app_tools.${r.name}`, r]));
    const sqlTools = TOOLS.filter((t) => t.hasSql);
    for (const t of sqlTools) {
      const fn = inDb.get(t.sqlFunction);
      expect(fn, `${t.name}: ${t.sqlFunction} does not exist`).toBeDefined();
      // jsonb out, or json for outputs built as text (issues.list pages: twice as fast to build; docs/performance.md).
      expect(`${fn!.args} -> ${fn!.result}`, `${t.name}: signature of ${t.sqlFunction}`).toMatch(/^args jsonb -> jsonb?$/);
      expect(functionsByFile().get(t.sqlFile), `${t.name} is defined in sql/${t.sqlFile}`).toEqual([t.sqlFunction]);
    }
    const declared = new Set(sqlTools.map((t) => t.sqlFunction));
    expect([...inDb.keys()].filter((n) => !declared.has(n)), 'app_tools functions without a catalog entry').toEqual([]);
    const toolFiles = sqlFiles().filter((f) => f.includes('/tools/'));
    expect(toolFiles.filter((f) => !sqlTools.some((t) => f === t.sqlFile)), 'sql/*/tools files without a tool').toEqual([]);
  });

  it('the comment on a tool function is its catalog description', async () => {
    const { rows } = await client.query<{ name: string; comment: string | null }>(
      `select 'app_tools.' || p.proname as name, obj_description(p.oid, 'pg_proc') as comment
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'app_tools'`);
    const comments = new Map(rows.map((r) => [r.name, r.comment]));
    const mismatched = TOOLS.filter((t) => t.hasSql && comments.get(t.sqlFunction) !== `${t.name}: ${t.description}`)
      .map((t) => `${t.name} (run \`npm run sql:comments\`, then include the tool files in migrations/current/)`);
    expect(mismatched).toEqual([]);
  });

  it('matches the committed schema.sql (regenerate with `npm run db:schema`)', async () => {
    const current = await schemaSql(client);
    if (process.env.SVC_UPDATE_SCHEMA_SQL === '1') fs.writeFileSync(SNAPSHOT, current);
    expect(current).toBe(fs.readFileSync(SNAPSHOT, 'utf8'));
  });
});
