/**
 * Write tools decide on the current row (an outside probe raced calls). Each case holds, in an owner transaction,
 * the row a concurrent call would hold (often with that call's change made in it), starts the tool, commits, and
 * checks the tool's answer. Before the finders locked (project_for_write, initiative_for_write,
 * find_label_for_write, note_for_write, crew_for_write, agent_for_write), the tool had read the row before the
 * commit and wrote values computed from that read over the committed change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createKey, ok, rest, startWithWorkspaces, subjectEvents, type CallResult, type TestApp, type Workspace } from '../support/harness.ts';
import { gql } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;

beforeAll(async () => ({ t, ws } = await startWithWorkspaces({ graphql: true })));
afterAll(() => t.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `statements` in an owner transaction and, while it is open, starts each call in turn (a pause after each, so
 * they queue for the row in that order); commits, then returns the calls' answers.
 */
async function whileHeld<T>(statements: Array<[string, unknown[]]>, calls: Array<() => Promise<T>>): Promise<T[]> {
  const client = await t.pools.owner.connect();
  try {
    await client.query('begin');
    for (const [sql, args] of statements) await client.query(sql, args);
    const pending: Array<Promise<T>> = [];
    for (const call of calls) {
      pending.push(call());
      await sleep(150); // the call now waits for the held row
    }
    await client.query('commit');
    return await Promise.all(pending);
  } catch (err) {
    await client.query('rollback');
    throw err;
  } finally {
    client.release();
  }
}

const lockRow = (table: string, id: string): [string, unknown[]] => [`select 1 from app_public.${table} where id = $1 for update`, [id]];

describe('initiatives and projects', () => {
  it('initiatives.unlinkProject {initiativeId: I1} does not undo a concurrent link to I2: 409 not_linked', async () => {
    const i1 = await ok(t, ws.token, 'initiatives.create', { name: 'Unlink I1' });
    const i2 = await ok(t, ws.token, 'initiatives.create', { name: 'Unlink I2' });
    const p = await ok(t, ws.token, 'projects.create', { name: 'Unlink race', initiativeId: i1.id });
    const [r] = await whileHeld<CallResult>(
      [['update app_public.projects set initiative_id = $2 where id = $1', [p.id, i2.id]]],
      [() => rest(t, ws.token, 'initiatives.unlinkProject', { projectId: p.id, initiativeId: i1.id })]);
    expect(r!.status).toBe(409);
    expect(r!.body.error).toBe('not_linked');
    expect((await ok(t, ws.token, 'projects.get', { id: p.id })).initiativeId).toBe(i2.id);
  });

  it('an initiative-narrowed key cannot detach a project moved meanwhile into an initiative it cannot see: 403 narrowing', async () => {
    const mine = await ok(t, ws.token, 'initiatives.create', { name: 'Narrowed mine' });
    const hidden = await ok(t, ws.token, 'initiatives.create', { name: 'Narrowed hidden' });
    const p = await ok(t, ws.token, 'projects.create', { name: 'Narrowed race', initiativeId: mine.id });
    const narrowed = await createKey(t, ws, { initiatives: [mine.id] });
    const [r] = await whileHeld<CallResult>(
      [['update app_public.projects set initiative_id = $2 where id = $1', [p.id, hidden.id]]],
      [() => rest(t, narrowed.token, 'projects.update', { id: p.id, initiativeId: null })]);
    expect(r!.status).toBe(403);
    expect(r!.body.error).toBe('narrowing');
    expect((await ok(t, ws.token, 'projects.get', { id: p.id })).initiativeId).toBe(hidden.id);
  });

  it('a rename-only projects.update keeps a concurrent link, and its event names only the name', async () => {
    const i2 = await ok(t, ws.token, 'initiatives.create', { name: 'Rename I2' });
    const p = await ok(t, ws.token, 'projects.create', { name: 'Rename race' });
    const [r] = await whileHeld<CallResult>(
      [['update app_public.projects set initiative_id = $2 where id = $1', [p.id, i2.id]]],
      [() => rest(t, ws.token, 'projects.update', { id: p.id, name: 'Renamed' })]);
    expect(r!.status).toBe(200);
    expect(r!.body).toMatchObject({ name: 'Renamed', initiativeId: i2.id });
    expect(await ok(t, ws.token, 'projects.get', { id: p.id })).toMatchObject({ name: 'Renamed', initiativeId: i2.id });
    const updates = (await subjectEvents(t, ws.token, 'project', p.id)).filter((e) => e.kind === 'PROJECT_UPDATED');
    expect(updates.map((e) => e.payload.changes)).toEqual([['initiativeId'], ['name']]);
  });

  it.each([
    ['initiatives.archive', 'initiatives', 'initiative', 'INITIATIVE_UPDATED'],
    ['projects.archive', 'projects', 'project', 'PROJECT_UPDATED'],
  ])('three %s at once write one event and answer one archivedAt', async (tool, table, subjectType, kind) => {
    const created = await ok(t, ws.token, `${table}.create`, { name: `Archived thrice ${table}` });
    const answers = await whileHeld<CallResult>([lockRow(table, created.id)],
      [1, 2, 3].map(() => () => rest(t, ws.token, tool, { id: created.id })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.archivedAt)).size).toBe(1);
    expect((await subjectEvents(t, ws.token, subjectType, created.id)).filter((e) => e.kind === kind)).toHaveLength(1);
  });
});

describe('labels', () => {
  it('labels.update of a label deleted while it waited is 404, not 200 with an empty label', async () => {
    const label = await ok(t, ws.token, 'labels.create', { name: 'Deleted under an update' });
    const [r] = await whileHeld<CallResult>(
      [['delete from app_public.labels where id = $1', [label.id]]],
      [() => rest(t, ws.token, 'labels.update', { id: label.id, name: 'Too late' })]);
    expect(r!.status).toBe(404);
    expect(r!.body).toMatchObject({ error: 'not_found', field: 'id' });
  });

  it('labels.delete queued behind labels.merge of the same label is 404: one LABEL_DELETED', async () => {
    const into = await ok(t, ws.token, 'labels.create', { name: 'Merge target' });
    const from = await ok(t, ws.token, 'labels.create', { name: 'Merged away' });
    const [merged, deleted] = await whileHeld<CallResult>([lockRow('labels', from.id)], [
      () => rest(t, ws.token, 'labels.merge', { fromId: from.id, intoId: into.id }),
      () => rest(t, ws.token, 'labels.delete', { id: from.id }),
    ]);
    expect(merged!.status).toBe(200);
    expect(deleted!.status).toBe(404);
    expect((await subjectEvents(t, ws.token, 'label', from.id)).filter((e) => e.kind === 'LABEL_DELETED')).toHaveLength(1);
  });

  it('two labels renamed to one name at once: the loser gets 409 label_exists naming the field', async () => {
    const a = await ok(t, ws.token, 'labels.create', { name: 'Rename A' });
    const b = await ok(t, ws.token, 'labels.create', { name: 'Rename B' });
    const [r] = await whileHeld<CallResult>(
      [['update app_public.labels set name = $2 where id = $1', [a.id, 'Same name']]],
      [() => rest(t, ws.token, 'labels.update', { id: b.id, name: 'same NAME' })]);
    expect(r!.status).toBe(409);
    expect(r!.body).toMatchObject({ error: 'label_exists', field: 'name' });
  });
});

describe('notes', () => {
  it('notes.update {title} and {body} at once keep both fields', async () => {
    const n = await ok(t, ws.token, 'notes.create', { title: 'T0', body: 'B0' });
    const answers = await whileHeld<CallResult>([lockRow('notes', n.id)], [
      () => rest(t, ws.token, 'notes.update', { id: n.id, title: 'T1' }),
      () => rest(t, ws.token, 'notes.update', { id: n.id, body: 'B1' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(await ok(t, ws.token, 'notes.get', { id: n.id })).toMatchObject({ title: 'T1', body: 'B1' });
  });

  it('notes.update waiting on a concurrent archive is 409 note_archived and edits nothing', async () => {
    const n = await ok(t, ws.token, 'notes.create', { body: 'Before' });
    const [r] = await whileHeld<CallResult>(
      [['update app_public.notes set archived_at = now() where id = $1', [n.id]]],
      [() => rest(t, ws.token, 'notes.update', { id: n.id, body: 'Edited while archived' })]);
    expect(r!.status).toBe(409);
    expect(r!.body.error).toBe('note_archived');
    expect(await ok(t, ws.token, 'notes.get', { id: n.id })).toMatchObject({ body: 'Before', archived: true });
  });

  it('three notes.archive at once answer one archivedAt', async () => {
    const n = await ok(t, ws.token, 'notes.create', { body: 'Archived thrice' });
    const answers = await whileHeld<CallResult>([lockRow('notes', n.id)],
      [1, 2, 3].map(() => () => rest(t, ws.token, 'notes.archive', { id: n.id })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.archivedAt)).size).toBe(1);
  });

  it('a JOURNAL note for a day taken by a concurrent create is 409 journal_exists', async () => {
    const { rows } = await t.pools.owner.query('select id from app_public.users where email = $1', [ws.ownerEmail]);
    const [r] = await whileHeld<CallResult>(
      [['insert into app_public.notes (workspace_id, user_id, body, kind, journal_date) values ($1, $2, $3, $4, $5)',
        [ws.id, rows[0].id, 'first', 'JOURNAL', '2031-02-03']]],
      [() => rest(t, ws.token, 'notes.create', { kind: 'JOURNAL', journalDate: '2031-02-03', body: 'second' })]);
    expect(r!.status).toBe(409);
    expect(r!.body.error).toBe('journal_exists');
  });
});

describe('agents and crews', () => {
  it('three GraphQL agentsArchive at once write one AGENT_DELETED and no AGENT_UPDATED', async () => {
    const agent = await createAgent(t, ws, 'archived-thrice');
    const mutation = 'mutation($id: UUID!) { agentsArchive(input: {agentId: $id}) { agent { archivedAt } } }';
    const answers = await whileHeld([lockRow('agents', agent.id)],
      [1, 2, 3].map(() => () => gql(t, ws.token, mutation, { id: agent.id })));
    expect(answers.map((a) => a.errors)).toEqual([undefined, undefined, undefined]);
    expect(new Set(answers.map((a) => a.data.agentsArchive.agent.archivedAt)).size).toBe(1);
    const events = (await subjectEvents(t, ws.token, 'agent', agent.id)).filter((e) => e.kind === 'AGENT_DELETED' || e.kind === 'AGENT_UPDATED');
    expect(events.map((e) => [e.kind, e.payload.archived])).toEqual([['AGENT_DELETED', true]]);
  });

  it('three agentCrews.archive at once write one CREW_UPDATED and answer one archivedAt', async () => {
    const crew = await ok(t, ws.token, 'agentCrews.create', { name: 'Archived thrice crew' });
    const answers = await whileHeld<CallResult>([lockRow('agent_crews', crew.id)],
      [1, 2, 3].map(() => () => rest(t, ws.token, 'agentCrews.archive', { id: crew.id })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.archivedAt)).size).toBe(1);
    expect((await subjectEvents(t, ws.token, 'crew', crew.id)).filter((e) => e.kind === 'CREW_UPDATED')).toHaveLength(1);
  });

  it('agentCrews.addMember waiting on a concurrent archive is 409 crew_archived', async () => {
    const crew = await ok(t, ws.token, 'agentCrews.create', { name: 'Archived under an add' });
    const agent = await createAgent(t, ws, 'late-member');
    const [r] = await whileHeld<CallResult>(
      [['update app_public.agent_crews set archived_at = now() where id = $1', [crew.id]]],
      [() => rest(t, ws.token, 'agentCrews.addMember', { crewId: crew.id, agentId: agent.id, role: 'WORKER' })]);
    expect(r!.status).toBe(409);
    expect(r!.body.error).toBe('crew_archived');
  });
});
