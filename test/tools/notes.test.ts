import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, allPages, createKey, createWorkspace, ok, rest, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let mateToken: string;
let mateEmail: string;

const todayIn = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date());

beforeAll(async () => {
  ({ t, ws, other } = await startWithWorkspaces());
  mateEmail = `mate-${ws.key.toLowerCase()}@example.com`;
  await admin(t, 'add-member', { workspace: ws.key, email: mateEmail, role: 'MEMBER', json: true });
  mateToken = (await createKey(t, ws, { user: mateEmail, scopes: ['READ_ISSUES', 'WRITE_ISSUES'] })).token;
});
afterAll(() => t.close());

describe('notes', () => {
  it('create, update, archive, list: own notes, no events', async () => {
    const before = (await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id;
    const n = await ok(t, ws.token, 'notes.create', { title: 'Ideas', body: '- ship it' });
    expect(n).toMatchObject({ title: 'Ideas', body: '- ship it', pinned: false, kind: 'NOTE', journalDate: null, archived: false });
    const u = await ok(t, ws.token, 'notes.update', { id: n.id, title: null, pinned: true });
    expect(u).toMatchObject({ title: null, body: '- ship it', pinned: true });
    expect((await ok(t, ws.token, 'notes.update', { id: n.id, pinned: true })).updatedAt).toBe(u.updatedAt);
    const second = await ok(t, ws.token, 'notes.create', { body: 'second' });
    const listed = await ok(t, ws.token, 'notes.list', {});
    expect(listed.items.map((x: { id: string }) => x.id)).toEqual([second.id, n.id]);
    expect((await ok(t, ws.token, 'notes.list', { pinned: true })).items.map((x: { id: string }) => x.id)).toEqual([n.id]);

    const a = await ok(t, ws.token, 'notes.archive', { id: n.id });
    expect(a).toMatchObject({ archived: true, archivedAt: expect.any(String) });
    expect((await ok(t, ws.token, 'notes.archive', { id: n.id })).archivedAt).toBe(a.archivedAt);
    expect((await ok(t, ws.token, 'notes.list', {})).items.map((x: { id: string }) => x.id)).toEqual([second.id]);
    expect((await ok(t, ws.token, 'notes.list', { archived: true })).items.map((x: { id: string }) => x.id)).toEqual([n.id]);
    const locked = await rest(t, ws.token, 'notes.update', { id: n.id, body: 'late edit' });
    expect(locked.status).toBe(409);
    expect(locked.body.error).toBe('note_archived');
    expect((await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id).toBe(before);
  });

  it('pages notes with a cursor', async () => {
    const w = await createWorkspace(t);
    for (let i = 0; i < 5; i++) await ok(t, w.token, 'notes.create', { body: `n${i}` });
    const bodies: string[] = (await allPages(t, w.token, 'notes.list', {}, 2)).map((x: { body: string }) => x.body);
    expect(bodies).toEqual(['n4', 'n3', 'n2', 'n1', 'n0']);
  });

  it('another user\'s note is 404 "Note not found", and never listed', async () => {
    const mine = await ok(t, ws.token, 'notes.create', { body: 'private' });
    for (const [tool, input] of [['notes.update', { id: mine.id, body: 'x' }], ['notes.archive', { id: mine.id }]] as const) {
      const r = await rest(t, mateToken, tool, input);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ error: 'not_found', message: 'Note not found' });
    }
    expect((await ok(t, mateToken, 'notes.list', { limit: 200 })).items).toEqual([]);
    expect((await ok(t, mateToken, 'notes.list', { archived: true })).items).toEqual([]);
    expect((await rest(t, ws.token, 'notes.update', { id: crypto.randomUUID(), body: 'x' })).body.message).toBe('Note not found');
    const still = (await ok(t, ws.token, 'notes.list', { limit: 200 })).items.find((x: { id: string }) => x.id === mine.id);
    expect(still).toMatchObject({ body: 'private', archived: false });
  });

  it('another workspace: the same user\'s notes there are separate; ids from here are 404', async () => {
    const mine = await ok(t, ws.token, 'notes.create', { body: 'ws only' });
    expect((await rest(t, other.token, 'notes.archive', { id: mine.id })).status).toBe(404);
    expect((await ok(t, other.token, 'notes.list', {})).items.map((x: { id: string }) => x.id)).not.toContain(mine.id);
  });

  it('rejects bad input with 400', async () => {
    expect400(await rest(t, ws.token, 'notes.create', {}), 'body');
    expect400(await rest(t, ws.token, 'notes.create', { body: 'x', kind: 'DIARY' }), 'kind');
    expect400(await rest(t, ws.token, 'notes.create', { body: 'x', journalDate: '2024-02-31' }), 'journalDate');
    expect400(await rest(t, ws.token, 'notes.create', { body: 'x', journalDate: '2024-02-01' }), 'journalDate');
    expect400(await rest(t, ws.token, 'notes.create', { body: 'x'.repeat(200_001) }), 'body');
    expect400(await rest(t, ws.token, 'notes.update', { id: 'x' }), 'id');
    expect400(await rest(t, ws.token, 'notes.archive', {}), 'id');
    expect400(await rest(t, ws.token, 'notes.list', { limit: 500 }), 'limit');
    expect400(await rest(t, ws.token, 'notes.todayJournal', { timezone: 'Mars/Olympus' }), 'timezone');
    for (const zone of ['UTC+14', 'foo+3', '+05:00']) expect400(await rest(t, ws.token, 'notes.todayJournal', { timezone: zone }), 'timezone');
    expect400(await rest(t, ws.token, 'notes.listJournal', { from: '2024-03-01', to: '2024-02-01' }), 'from');
    expect400(await rest(t, ws.token, 'notes.listJournal', { from: 'yesterday' }), 'from');
  });
});

describe('journal', () => {
  it('todayJournal gets or creates today\'s entry in the given or the user\'s time zone, idempotently', async () => {
    const w = await createWorkspace(t);
    const utc = await ok(t, w.token, 'notes.todayJournal', {});
    expect(utc).toMatchObject({ kind: 'JOURNAL', journalDate: todayIn('UTC'), body: '', created: true });
    const again = await ok(t, w.token, 'notes.todayJournal', {});
    expect(again).toMatchObject({ id: utc.id, created: false });

    // UTC+14 and UTC-12: at any moment at least one of them is on another date than UTC.
    for (const tz of ['Pacific/Kiritimati', 'Etc/GMT+12']) {
      const j = await ok(t, w.token, 'notes.todayJournal', { timezone: tz });
      expect(j.journalDate).toBe(todayIn(tz));
      if (j.journalDate === utc.journalDate) expect(j.id).toBe(utc.id);
      else expect(j.id).not.toBe(utc.id);
    }
    await t.pools.owner.query(`update app_public.users set timezone = 'Pacific/Kiritimati' where lower(email) = lower($1)`, [w.ownerEmail]);
    expect((await ok(t, w.token, 'notes.todayJournal', {})).journalDate).toBe(todayIn('Pacific/Kiritimati'));

    const dup = await rest(t, w.token, 'notes.create', { body: 'twice', kind: 'JOURNAL', journalDate: utc.journalDate });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('journal_exists');
    // A journal entry is a note: it can be edited like one.
    expect((await ok(t, w.token, 'notes.update', { id: utc.id, body: 'Standup: done X' })).body).toBe('Standup: done X');
    expect((await ok(t, w.token, 'notes.list', {})).items).toEqual([]); // NOTE kind by default
    expect((await ok(t, w.token, 'notes.list', { kind: 'JOURNAL' })).items.length).toBeGreaterThanOrEqual(2);
    const evs = (await ok(t, w.token, 'events.recent', { limit: 200 })).items.map((e: { kind: string }) => e.kind);
    // Notes write no events; what is there is the workspace's setting up (members, the test's keys).
    expect(evs.filter((k: string) => !k.startsWith('MEMBERSHIP') && !k.startsWith('API_KEY'))).toEqual([]);
  });

  it('listJournal: newest day first, from/to inclusive, limit default 30, paged; archived entries left out', async () => {
    const w = await createWorkspace(t);
    const days = Array.from({ length: 35 }, (_, i) => `2024-01-${String(i + 1).padStart(2, '0')}`).slice(0, 31);
    for (const d of days) await ok(t, w.token, 'notes.create', { body: d, kind: 'JOURNAL', journalDate: d });
    await ok(t, w.token, 'notes.create', { body: 'not a journal' });
    const first = await ok(t, w.token, 'notes.listJournal', {});
    expect(first.items).toHaveLength(30);
    expect(first.items[0].journalDate).toBe('2024-01-31');
    const rest2 = await ok(t, w.token, 'notes.listJournal', { cursor: first.nextCursor });
    expect(rest2.items.map((n: { journalDate: string }) => n.journalDate)).toEqual(['2024-01-01']);
    expect(rest2.nextCursor).toBeNull();
    const range = await ok(t, w.token, 'notes.listJournal', { from: '2024-01-10', to: '2024-01-12' });
    expect(range.items.map((n: { journalDate: string }) => n.journalDate)).toEqual(['2024-01-12', '2024-01-11', '2024-01-10']);
    await ok(t, w.token, 'notes.archive', { id: range.items[1].id });
    expect((await ok(t, w.token, 'notes.listJournal', { from: '2024-01-10', to: '2024-01-12', limit: 5 })).items).toHaveLength(2);
    expect((await ok(t, mateToken, 'notes.listJournal', {})).items).toEqual([]);
  });
});
