/**
 * Upgrading an installation that holds data (upgrade probe, twenty-eighth session): a database migrated by an older
 * release (the committed migrations up to OLD), with rows written by that release's own functions, taken to this
 * release. What an upgrade must not do: move what it does not change (updatedAt), leave a rule of the new release
 * unapplied to old rows (a plugin key's issuer), or happen by the way (a read-only `svc admin` command).
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { applyMigrations, migrationsFolder, requireServerVersion } from '../../src/db/migrate.ts';
import { svc } from '../cli/support.ts';

/** The older release: before 000170 (the queued_at backfill) and 000205 (a plugin key's issuer). */
const OLD = 169;

let url: string;
let db: pg.Client;
let oldFolder: string;
const dbName = `svc_up_${crypto.randomBytes(6).toString('hex')}`;

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: inject('adminUrl') });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  const u = new URL(inject('adminUrl'));
  u.pathname = `/${dbName}`;
  url = u.toString();
  // The older release's migrations: the first OLD committed files.
  oldFolder = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-upgrade-'));
  await fs.mkdir(path.join(oldFolder, 'committed'));
  const files = (await fs.readdir(path.join(migrationsFolder, 'committed'))).filter((f) => f.endsWith('.sql')).sort().slice(0, OLD);
  for (const f of files) await fs.copyFile(path.join(migrationsFolder, 'committed', f), path.join(oldFolder, 'committed', f));
  await applyMigrations(url, { migrationsFolder: oldFolder });
  db = new pg.Client({ connectionString: url });
  await db.connect();
}, 300_000);

afterAll(async () => {
  await db?.end();
  await fs.rm(oldFolder, { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: inject('adminUrl') });
  await admin.connect();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
});

/** Runs `sql` as a key of the workspace reached the older release's functions (its request settings). */
async function asCaller<T>(ctx: { workspaceId: string; userId: string; keyId: string }, sql: string, values: unknown[]): Promise<T> {
  await db.query('begin');
  try {
    await db.query(`select set_config('svc.workspace_id', $1, true), set_config('svc.user_id', $2, true),
      set_config('svc.key_id', $3, true), set_config('svc.agent_id', '', true), set_config('svc.scopes', '{FULL}', true),
      set_config('svc.project_ids', '{}', true), set_config('svc.label_ids', '{}', true), set_config('svc.initiative_ids', '{}', true)`,
    [ctx.workspaceId, ctx.userId, ctx.keyId]);
    const { rows } = await db.query(sql, values);
    await db.query('commit');
    return rows[0].r as T;
  } catch (err) {
    await db.query('rollback');
    throw err;
  }
}

it('an older release\'s database with data: svc admin refuses to upgrade it by the way; the upgrade keeps updatedAt and gives old plugin keys their issuer', async () => {
  // The older release's data, written by its own functions.
  const created = (await db.query(`select app_private.create_workspace('Upgraded', 'UPG', 'owner@upgrade.test') as r`)).rows[0].r;
  const owner = { workspaceId: created.workspace.id as string };
  const adminUser = (await db.query(`select app_private.add_member($1, 'admin@upgrade.test', 'ADMIN') as r`, [owner.workspaceId])).rows[0].r;
  const status = (await db.query('select id from app_public.statuses where workspace_id = $1 order by position limit 1', [owner.workspaceId])).rows[0].id;
  const queued = (await db.query(`insert into app_public.issues (workspace_id, title, status_id, queued) values ($1, 'Waits for an agent', $2, true)
    returning id, updated_at`, [owner.workspaceId, status])).rows[0];
  // A plugin key the admin issued (the older release kept no issuer).
  const adminKey = (await db.query(`select to_jsonb(app_private.issue_api_key($1, $2, 'PERSONAL', null, '{FULL}', null, null, null, null, null)) as r`,
    [owner.workspaceId, adminUser.user.id])).rows[0].r;
  const asAdmin = { workspaceId: owner.workspaceId, userId: adminUser.user.id, keyId: adminKey.id };
  const plugin = await asCaller<{ id: string }>(asAdmin, `select to_jsonb(p) as r from app_public.plugins_create('Old plugin', '{READ_ISSUES}') p`, []);
  const pluginKey = await asCaller<{ id: string }>(asAdmin, `select to_jsonb(k) as r from app_public.plugin_issue_api_key($1, '{READ_ISSUES}') k`, [plugin.id]);

  // A read-only admin command of this release does not migrate the older database (it did, in silence).
  const listed = await svc(['admin', 'list-workspaces', '--json'], { DATABASE_URL: url });
  expect(listed.code).toBe(1);
  expect(listed.stderr).toMatch(new RegExp(`migrated by an older release \\(${OLD} of this release's \\d+ migrations\\).*svc migrate`));
  expect((await db.query('select count(*)::int as n from graphile_migrate.migrations')).rows[0].n).toBe(OLD);

  // Not under a server of the older release still running on it (its connections name themselves svc-api, ...).
  const oldServer = new pg.Client({ connectionString: url, application_name: 'svc-api' });
  await oldServer.connect();
  try {
    const refused = await svc(['migrate'], { DATABASE_URL: url });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/another svc server is using this database \(1 connection, the oldest.*stop it before this release upgrades/);
    expect((await db.query('select count(*)::int as n from graphile_migrate.migrations')).rows[0].n).toBe(OLD);
  } finally {
    await oldServer.end();
  }

  // The upgrade.
  await applyMigrations(url, { includeCurrent: true });
  const after = (await db.query('select updated_at, queued_at from app_public.issues where id = $1', [queued.id])).rows[0];
  expect(after.queued_at).not.toBeNull();
  expect(after.updated_at.toISOString()).toBe(queued.updated_at.toISOString());
  const key = (await db.query('select issued_by_user_id from app_private.api_keys where id = $1', [pluginKey.id])).rows[0];
  expect(key.issued_by_user_id).toBe(adminUser.user.id);
  // And now the admin commands run.
  expect((await svc(['admin', 'list-workspaces', '--json'], { DATABASE_URL: url })).code).toBe(0);
}, 300_000);

it('a server older than the migrations need is refused before anything is applied, naming both versions', async () => {
  // Debian 12's PostgreSQL 15 stopped at the 64th migration with 'syntax error at or near "expression"' (an outside
  // probe). The check is the one migrate, start and admin make; here with a minimum above the server's own.
  const client = new pg.Client({ connectionString: inject('adminUrl') });
  await client.connect();
  try {
    await expect(requireServerVersion(client, { num: 990000, name: '99' })).rejects.toThrow(
      /^this release needs PostgreSQL 99 or newer; the server at DATABASE_URL is PostgreSQL 17\.\d+ \(leave DATABASE_URL unset for the embedded PostgreSQL 17\)$/);
    await expect(requireServerVersion(client)).resolves.toBeUndefined();
  } finally {
    await client.end();
  }
});
