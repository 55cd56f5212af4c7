/**
 * The stream sequencer (app_private.sequence_events, run by every Notifier): committed events get their
 * positions moments after commit, svc_events is sent for each, and a failing sequencer is reported once and
 * picks up the backlog when it recovers.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Notifier } from '../../src/events/notifier.ts';
import { startDbProxy } from '../support/db-proxy.ts';
import { createTestDatabase } from '../support/harness.ts';
import { until } from '../support/until.ts';

let url: string;
let db: pg.Client;
let workspaceId: string;

beforeAll(async () => {
  url = await createTestDatabase();
  db = new pg.Client({ connectionString: url });
  await db.connect();
  workspaceId = (await db.query(`insert into app_public.workspaces (name, key, slug) values ('Seq', 'SEQ', 'seq') returning id`)).rows[0].id;
});
afterAll(() => db.end());

const recordEvent = async () =>
  (await db.query(`select app_private.record_event($1, 'AGENT_UPDATED', 'agent', null, '{}') as id`, [workspaceId])).rows[0].id as string;
const positionOf = async (id: string) =>
  (await db.query('select stream_pos from app_public.activity_events where id = $1', [id])).rows[0].stream_pos as number | null;

describe('the stream sequencer', () => {
  it('positions committed events after commit, in order, and notifies each', async () => {
    const first = await recordEvent();
    expect(await positionOf(first)).toBeNull(); // no Notifier runs yet: the writer took no position
    const notifier = new Notifier(url);
    const notified: Array<{ id: string; pos: number; workspaceId: string }> = [];
    notifier.on('svc_events', (payload: string) => notified.push(JSON.parse(payload)));
    await notifier.start();
    try {
      const second = await recordEvent();
      const seen = await until(async () => notified.map((n) => n.id), (ids) => ids.includes(second));
      expect(seen).toEqual([first, second]);
      expect(notified[0]!.pos).toBeLessThan(notified[1]!.pos);
      expect(notified[1]).toMatchObject({ workspaceId, pos: await positionOf(second) });
    } finally {
      await notifier.close();
    }
  });

  it('a backlog of thousands is positioned a batch at a time, one position per event, in the events\' order', async () => {
    // Planned for the empty backlog the statistics show, one UPDATE … FROM (subquery with nextval) re-ran its batch
    // for every unsequenced row: 20,000 events drained 1,000 per 10 s and burned 1,000 positions per event.
    // Statistics taken with no backlog (as autovacuum's usually are), then a burst.
    await db.query(`select app_private.record_event($1, 'AGENT_UPDATED', 'agent', null, '{}') from generate_series(1, 2000)`, [workspaceId]);
    while ((await db.query('select app_private.sequence_events(1000) as n')).rows[0].n > 0);
    await db.query('analyze app_public.activity_events');
    await db.query(`select app_private.record_event($1, 'AGENT_UPDATED', 'agent', null, '{}') from generate_series(1, 5000)`, [workspaceId]);
    const before = Number((await db.query(`select last_value from app_private.activity_event_stream_pos`)).rows[0].last_value);
    expect((await db.query('select app_private.sequence_events(1000) as n')).rows[0].n).toBe(1000);
    const after = Number((await db.query(`select last_value from app_private.activity_event_stream_pos`)).rows[0].last_value);
    expect(after - before).toBe(1000);
    const { rows } = await db.query(`select stream_pos from app_public.activity_events where stream_pos > $1 order by seq`, [before]);
    expect(rows.map((r) => Number(r.stream_pos))).toEqual(Array.from({ length: 1000 }, (_, i) => before + 1 + i));
    while ((await db.query('select app_private.sequence_events(1000) as n')).rows[0].n > 0);
    expect((await db.query('select count(*)::int as n from app_public.activity_events where stream_pos is null')).rows[0].n).toBe(0);
  });

  it('reports a failing sequencer once, and sequences the backlog when it recovers', async () => {
    const errors: Error[] = [];
    const notifier = new Notifier(url, (err) => errors.push(err));
    await db.query('alter function app_private.sequence_events(integer) rename to sequence_events_off');
    try {
      await notifier.start();
      const waiting = await recordEvent();
      await until(async () => errors.length, (n) => n > 0);
      await new Promise((r) => setTimeout(r, 200)); // several retries
      expect(errors).toHaveLength(1);
      expect(errors[0]!.message).toMatch(/sequence_events/);
      expect(await positionOf(waiting)).toBeNull();
      await db.query('alter function app_private.sequence_events_off(integer) rename to sequence_events');
      expect(await until(() => positionOf(waiting), (p) => p !== null)).not.toBeNull();
    } finally {
      await db.query('alter function if exists app_private.sequence_events_off(integer) rename to sequence_events').catch(() => {});
      await notifier.close();
    }
  });

  it('listens again after the database was gone for longer than a retry: the tries go on until one connects', async () => {
    // A restart, as the proxy plays it: every connection dropped, new ones refused while several retries fail.
    const proxy = await startDbProxy(url);
    const notifier = new Notifier(proxy.url);
    let connected = 0;
    notifier.on('connected', () => connected++);
    const notified: string[] = [];
    notifier.on('svc_events', (payload: string) => notified.push(JSON.parse(payload).id));
    await notifier.start();
    try {
      proxy.cut();
      await new Promise((r) => setTimeout(r, 1200)); // the 250 ms and 500 ms tries fail
      proxy.restore();
      await until(async () => connected, (n) => n >= 2, 8000);
      const after = await recordEvent();
      expect(await until(async () => notified, (ids) => ids.includes(after))).toContain(after);
    } finally {
      await notifier.close();
      await proxy.close();
    }
  });
});
