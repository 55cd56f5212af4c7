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
