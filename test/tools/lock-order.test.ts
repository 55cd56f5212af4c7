/**
 * Lock order of the workflow and label writes against issue writes (review of the catalog's completion).
 * Each case holds, on a raw owner connection, what a concurrent issue write holds (the issue's row lock),
 * starts the tool, and then makes that "issue write" take the lock it would take next. Before the fix the
 * two waited for each other: PostgreSQL broke the deadlock after deadlock_timeout (1 s) by aborting one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, rest, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;

beforeAll(async () => ({ t, ws } = await startWithWorkspaces()));
afterAll(() => t.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `hold` in an owner transaction, the tool call while it is held, then `next` in the same transaction. */
async function interleave(hold: string, holdArgs: unknown[], call: () => Promise<{ status: number }>, next: string, nextArgs: unknown[]) {
  const client = await t.pools.owner.connect();
  try {
    await client.query('begin');
    await client.query(hold, holdArgs);
    const started = Date.now();
    const pending = call();
    await sleep(150); // the tool is now waiting for the issue's row
    const nextOutcome = await client.query(next, nextArgs).then(() => 'ok', (err: Error) => err.message);
    await client.query(nextOutcome === 'ok' ? 'commit' : 'rollback');
    const answer = await pending;
    return { nextOutcome, status: answer.status, ms: Date.now() - started };
  } finally {
    client.release();
  }
}

describe('lock order', () => {
  it('statuses.delete {moveIssuesTo} does not deadlock with an issue moving to another status', async () => {
    const statuses = (await ok(t, ws.token, 'statuses.list', {})).items ?? (await ok(t, ws.token, 'statuses.list', {}));
    const inProgress = statuses.find((s: any) => s.category === 'IN_PROGRESS' || s.name === 'In Progress');
    const backlog = statuses.find((s: any) => s.name === 'Backlog');
    const doomed = await ok(t, ws.token, 'statuses.create', { name: 'Doomed', category: backlog.category });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'In the doomed status', statusId: doomed.id });
    const r = await interleave(
      'select 1 from app_public.issues where id = $1 for update', [issue.id],
      () => rest(t, ws.token, 'statuses.delete', { id: doomed.id, moveIssuesTo: backlog.id }),
      'update app_public.issues set status_id = $2 where id = $1', [issue.id, inProgress.id],
    );
    expect(r).toMatchObject({ nextOutcome: 'ok', status: 200 });
    expect(r.ms).toBeLessThan(900);
  });

  it('labels.merge does not deadlock with the issue being labelled with the label it merges into', async () => {
    const from = await ok(t, ws.token, 'labels.create', { name: 'merge-from' });
    const into = await ok(t, ws.token, 'labels.create', { name: 'merge-into' });
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Labelled', labelIds: [from.id] });
    const r = await interleave(
      'select 1 from app_public.issues where id = $1 for update', [issue.id],
      () => rest(t, ws.token, 'labels.merge', { fromId: from.id, intoId: into.id }),
      'insert into app_public.issue_labels (workspace_id, issue_id, label_id) values ($1, $2, $3)', [ws.id, issue.id, into.id],
    );
    expect(r).toMatchObject({ nextOutcome: 'ok', status: 200 });
    expect(r.ms).toBeLessThan(900);
    expect((await ok(t, ws.token, 'issues.get', { id: issue.id })).labelIds).toEqual([into.id]);
  });

  it('of two concurrent issues.delete by key, the second (it waited for the row) is 404 and writes nothing', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Deleted twice at once' });
    const client = await t.pools.owner.connect();
    try {
      await client.query('begin');
      await client.query('select 1 from app_public.issues where id = $1 for update', [issue.id]);
      const calls = [rest(t, ws.token, 'issues.delete', { id: issue.key }), rest(t, ws.token, 'issues.delete', { id: issue.key })];
      await sleep(150);
      await client.query('commit');
      expect((await Promise.all(calls)).map((r) => r.status).sort()).toEqual([200, 404]);
    } finally {
      client.release();
    }
    const recent = await ok(t, ws.token, 'events.recent', { limit: 50 });
    expect(recent.items.filter((e: any) => e.kind === 'ISSUE_DELETED' && e.subjectId === issue.id)).toHaveLength(1);
  });
});
