/**
 * The request roles are the whole server's (docs/decisions.md, "Roles"): on a server several databases share, an
 * outside probe logged in as svc_authenticator (LOGIN, no password) where trust rules allowed it, and the owner of one
 * installation, inheriting svc_visitor's grants with BYPASSRLS, read another installation's tables.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../support/harness.ts';

let db: pg.Client;
beforeAll(async () => {
  db = new pg.Client({ connectionString: await createTestDatabase() });
  await db.connect();
});
afterAll(() => db.end());

it('svc_authenticator cannot log in, and the owner may become svc_visitor without holding its grants', async () => {
  const { rows: [auth] } = await db.query(`select rolcanlogin from pg_roles where rolname = 'svc_authenticator'`);
  expect(auth.rolcanlogin).toBe(false);
  // (A CREATEROLE owner holds a second membership, ADMIN only, from the superuser that let it create roles.)
  const { rows: [membership] } = await db.query(`select bool_or(m.inherit_option) as inherits, bool_or(m.set_option) as sets from pg_auth_members m
    where m.roleid = 'svc_visitor'::regrole and m.member = (select oid from pg_roles where rolname = current_user)`);
  expect(membership).toEqual({ inherits: false, sets: true });
  // What the API does on every connection still works.
  await db.query('begin');
  try {
    await db.query('set local role svc_visitor');
    expect((await db.query('select current_user as u')).rows[0].u).toBe('svc_visitor');
  } finally {
    await db.query('rollback');
  }
});
