/** A person's profile: GraphQL viewerUpdate with their own key, `svc admin update-user` for the operator. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let second: Workspace;
let elsewhere: Workspace;
let mia: { id: string; token: string };
let miaId: string;

const UPDATE = 'mutation($name: String, $tz: String) { viewerUpdate(input: {name: $name, timezone: $tz}) { user { rowId name timezone } } }';

async function userEvents(w: Workspace, userId: string) {
  const r = await ok(t, w.token, 'events.recent', { kinds: ['USER_UPDATED'], limit: 50 });
  return (r.items as Array<{ subjectType: string; subjectId: string; payload: any; actor: any }>).filter((e) => e.subjectId === userId);
}

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  second = await createWorkspace(t);
  elsewhere = await createWorkspace(t);
  await admin(t, 'add-member', { workspace: ws.key, email: 'mia@example.com', role: 'MEMBER', json: true });
  await admin(t, 'add-member', { workspace: second.key, email: 'mia@example.com', role: 'MEMBER', json: true });
  mia = await createKey(t, ws, { user: 'mia@example.com' });
  const { rows } = await t.pools.owner.query(`select id from app_public.users where email = 'mia@example.com'`);
  miaId = rows[0].id;
});
afterAll(() => t.close());

describe('viewerUpdate', () => {
  it('sets the name and time zone; each workspace of the person hears of it, no other', async () => {
    const user = (await gqlOk(t, mia.token, UPDATE, { name: '  Mia Lindqvist ', tz: 'Pacific/Kiritimati' })).viewerUpdate.user;
    expect(user).toEqual({ rowId: miaId, name: 'Mia Lindqvist', timezone: 'Pacific/Kiritimati' });
    for (const w of [ws, second]) {
      const [e] = await userEvents(w, miaId);
      expect(e).toMatchObject({ subjectType: 'user', payload: { userId: miaId, changes: ['name', 'timezone'], name: 'Mia Lindqvist', timezone: 'Pacific/Kiritimati' } });
      expect(e!.actor).toMatchObject({ id: miaId, name: 'Mia Lindqvist', type: 'user' });
    }
    expect(await userEvents(elsewhere, miaId)).toEqual([]);
    // The name is what every surface shows for her work.
    expect((await ok(t, mia.token, 'comments.create', { issueId: (await ok(t, mia.token, 'issues.create', { title: 'x' })).id, body: 'hi' })).author)
      .toMatchObject({ name: 'Mia Lindqvist' });
    // "Today" is counted in her zone (UTC+14: a day ahead of UTC for ten hours of each day).
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(new Date());
    expect((await ok(t, mia.token, 'notes.todayJournal', {})).journalDate).toBe(today);
  });

  it('changes only what is given, and writes no event when nothing changed', async () => {
    await gqlOk(t, mia.token, UPDATE, { tz: 'Europe/Paris' });
    const before = (await userEvents(ws, miaId)).length;
    const same = (await gqlOk(t, mia.token, UPDATE, { tz: 'Europe/Paris' })).viewerUpdate.user;
    expect(same).toMatchObject({ name: 'Mia Lindqvist', timezone: 'Europe/Paris' });
    expect((await gqlOk(t, mia.token, UPDATE, {})).viewerUpdate.user).toMatchObject({ name: 'Mia Lindqvist', timezone: 'Europe/Paris' });
    expect((await userEvents(ws, miaId)).length).toBe(before);
  });

  it('refuses a bad name or zone with a 400 naming the field, and changes nothing', async () => {
    const before = (await userEvents(ws, miaId)).length;
    for (const [vars, field] of [
      [{ tz: 'UTC+3' }, 'timezone'], [{ tz: 'Mars/Olympus' }, 'timezone'], [{ tz: 'x\u0000y' }, 'variables.tz'],
      [{ name: '' }, 'name'], [{ name: 'a\nb' }, 'name'], [{ name: 'x'.repeat(101) }, 'name'], [{ name: 'ok', tz: 'nope' }, 'timezone'],
    ] as const) {
      const e = await gqlError(t, mia.token, UPDATE, vars);
      expect(e, JSON.stringify(vars)).toMatchObject({ status: 400 });
      expect(Object.keys(e.issues ?? {}), JSON.stringify(vars)).toEqual([field]);
    }
    expect((await gqlOk(t, mia.token, 'query { viewer { name timezone } }')).viewer).toEqual({ name: 'Mia Lindqvist', timezone: 'Europe/Paris' });
    expect((await userEvents(ws, miaId)).length).toBe(before);
  });

  it('reads a zone in any case, stored as the database spells it; refuses Factory and a name with nothing visible', async () => {
    expect((await gqlOk(t, mia.token, UPDATE, { tz: 'europe/paris' })).viewerUpdate.user.timezone).toBe('Europe/Paris');
    expect((await gqlOk(t, mia.token, UPDATE, { tz: 'UTC' })).viewerUpdate.user.timezone).toBe('UTC');
    for (const [vars, field] of [[{ tz: 'Factory' }, 'timezone'], [{ tz: 'posix/Europe/Paris' }, 'timezone'], [{ name: '\ufeff\u200b' }, 'name']] as const) {
      expect(Object.keys((await gqlError(t, mia.token, UPDATE, vars)).issues ?? {}), JSON.stringify(vars)).toEqual([field]);
    }
    await gqlOk(t, mia.token, UPDATE, { tz: 'Europe/Paris' });
  });

  it('needs WRITE_USERS: a read-only key of the person reads, and does not rename them', async () => {
    const reader = await createKey(t, ws, { user: 'mia@example.com', scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS'] });
    expect(await gqlError(t, reader.token, UPDATE, { name: 'Renamed by a reader' })).toMatchObject({ status: 403, code: 'scope_required' });
    expect((await gqlOk(t, reader.token, 'query { viewer { name } }')).viewer.name).toBe('Mia Lindqvist');
  });

  it('is the person\'s own key only: an agent\'s key is refused', async () => {
    await createAgent(t, ws, 'helper');
    const agentKey = await createKey(t, ws, { agent: 'helper', user: 'mia@example.com' });
    const e = await gqlError(t, agentKey.token, UPDATE, { name: 'Taken over' });
    expect(e).toMatchObject({ status: 403, code: 'person_key_required' });
    expect((await gqlOk(t, mia.token, 'query { viewer { name } }')).viewer.name).toBe('Mia Lindqvist');
  });
});

describe('svc admin update-user', () => {
  it('sets a person\'s name and zone by email, with the same checks', async () => {
    const r = await admin(t, 'update-user', { email: 'MIA@example.com', name: 'Mia L.', timezone: 'Asia/Tokyo', json: true });
    expect(r.user).toMatchObject({ id: miaId, email: 'mia@example.com', name: 'Mia L.', timezone: 'Asia/Tokyo' });
    const [e] = await userEvents(second, miaId);
    expect(e).toMatchObject({ payload: { changes: ['name', 'timezone'], name: 'Mia L.' }, actor: null });
    await expect(admin(t, 'update-user', { email: 'mia@example.com', timezone: 'Asia/Nowhere', json: true })).rejects.toThrow(/unknown time zone/);
    await expect(admin(t, 'update-user', { email: 'nobody@example.com', name: 'x', json: true })).rejects.toThrow(/no user has the email/);
    await expect(admin(t, 'update-user', { email: 'mia@example.com', json: true })).rejects.toThrow(/--name, --timezone or both/);
  });
});
