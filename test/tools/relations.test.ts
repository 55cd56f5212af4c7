import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, ok, rest, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { expect400 } from '../support/expect.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => ({ t, ws, other } = await startWithWorkspaces()));
afterAll(() => t.close());

const issue = (w: Workspace, title: string, extra: object = {}) => ok(t, w.token, 'issues.create', { title, ...extra });
const latestIssueEvent = async (w: Workspace, issueId: string) =>
  (await ok(t, w.token, 'events.recent', { subjectType: 'issue', subjectId: issueId, limit: 1 })).items[0];

describe('relations', () => {
  it('an issue holds at most 500 links (its lists return them all at once): 409 too_many_relations naming the side', async () => {
    const hub = await issue(ws, 'Hub');
    const spokes: string[] = [];
    for (let i = 0; i < 10; i++) {
      const made = await ok(t, ws.token, 'issues.createMany', { items: Array.from({ length: 50 }, (_, j) => ({ title: `spoke ${i}-${j}` })) });
      spokes.push(...made.items.map((x: { id: string }) => x.id));
    }
    await t.pools.owner.query(`insert into app_public.issue_relations (workspace_id, from_issue_id, to_issue_id, kind)
                               select $1, $2, s, 'RELATES_TO' from unnest($3::uuid[]) s`, [ws.id, hub.id, spokes]);
    const extra = await issue(ws, 'One too many');
    const refused = await rest(t, ws.token, 'relations.add', { fromIssueId: extra.id, toIssueId: hub.key, kind: 'BLOCKS' });
    expect([refused.status, refused.body.error, refused.body.field]).toEqual([409, 'too_many_relations', 'toIssueId']);
    expect(refused.body.message).toContain(`${hub.key} already has 500 links`);
    const fromHub = await rest(t, ws.token, 'relations.add', { fromIssueId: hub.id, toIssueId: extra.id, kind: 'RELATES_TO' });
    expect([fromHub.status, fromHub.body.field]).toEqual([409, 'fromIssueId']);
    // One that exists already comes back as before; one link fewer and there is room again.
    expect((await ok(t, ws.token, 'relations.add', { fromIssueId: hub.id, toIssueId: spokes[0], kind: 'RELATES_TO' })).created).toBe(false);
    await t.pools.owner.query('delete from app_public.issue_relations where from_issue_id = $1 and to_issue_id = $2', [hub.id, spokes[0]]);
    expect((await ok(t, ws.token, 'relations.add', { fromIssueId: extra.id, toIssueId: hub.id, kind: 'BLOCKS' })).created).toBe(true);
    // At the cap, concurrent adds take turns: none passes it (40 at once left an issue at 502).
    await t.pools.owner.query('delete from app_public.issue_relations where from_issue_id = $1 and to_issue_id = any($2::uuid[])', [hub.id, spokes.slice(1, 6)]);
    const racers = (await ok(t, ws.token, 'issues.createMany', { items: Array.from({ length: 20 }, (_, j) => ({ title: `racer ${j}` })) })).items;
    const answers = await Promise.all(racers.map((r: { id: string }) => rest(t, ws.token, 'relations.add', { fromIssueId: hub.id, toIssueId: r.id, kind: 'RELATES_TO' })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.error === 'too_many_relations')).toBe(true);
    const { rows: [n] } = await t.pools.owner.query('select count(*)::int as n from app_public.issue_relations where from_issue_id = $1 or to_issue_id = $1', [hub.id]);
    expect(n.n).toBe(500);
  });

  it('BLOCKS from A to B is seen from B as BLOCKED_BY; both issues get ISSUE_UPDATED', async () => {
    const a = await issue(ws, 'A');
    const b = await issue(ws, 'B');
    const rel = await ok(t, ws.token, 'relations.add', { fromIssueId: a.key, toIssueId: b.id, kind: 'BLOCKS' });
    expect(rel).toMatchObject({ kind: 'BLOCKS', direction: 'outbound', fromIssueId: a.id, toIssueId: b.id, created: true,
      issue: { id: b.id, key: b.key, title: 'B' } });
    const fromA = await ok(t, ws.token, 'relations.listForIssue', { issueId: a.id });
    expect(fromA).toEqual([expect.objectContaining({ id: rel.id, kind: 'BLOCKS', direction: 'outbound', issue: expect.objectContaining({ id: b.id }) })]);
    const fromB = await ok(t, ws.token, 'relations.listForIssue', { issueId: b.key });
    expect(fromB).toEqual([expect.objectContaining({ id: rel.id, kind: 'BLOCKED_BY', direction: 'inbound', issue: expect.objectContaining({ id: a.id }) })]);
    // Same rows as issues.get include.relations.
    const got = await ok(t, ws.token, 'issues.get', { id: b.id, include: { relations: true } });
    expect(got.relations.map((r: any) => [r.id, r.kind, r.direction, r.fromIssueId, r.toIssueId]))
      .toEqual(fromB.map((r: any) => [r.id, r.kind, r.direction, r.fromIssueId, r.toIssueId]));
    // Each issue's event names the link and its kind as that issue sees it.
    for (const [id, kind] of [[a.id, 'BLOCKS'], [b.id, 'BLOCKED_BY']]) {
      expect(await latestIssueEvent(ws, id!)).toMatchObject({ kind: 'ISSUE_UPDATED',
        payload: { changes: ['relations'], relationId: rel.id, relationKind: kind, relationChange: 'added' } });
    }
  });

  it('BLOCKED_BY A→B is stored as B BLOCKS A; re-adding any form of the same fact is idempotent', async () => {
    const a = await issue(ws, 'waiting');
    const b = await issue(ws, 'blocker');
    const rel = await ok(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'BLOCKED_BY' });
    // Read as a sentence, as asked: a BLOCKED_BY b (stored b BLOCKS a, so inbound from a).
    expect(rel).toMatchObject({ kind: 'BLOCKED_BY', direction: 'inbound', fromIssueId: a.id, toIssueId: b.id, created: true, issue: { id: b.id } });
    const fromA = await ok(t, ws.token, 'relations.listForIssue', { issueId: a.id });
    expect(fromA).toEqual([expect.objectContaining({ id: rel.id, kind: 'BLOCKED_BY', fromIssueId: a.id, toIssueId: b.id })]);
    const fromB = await ok(t, ws.token, 'relations.listForIssue', { issueId: b.id });
    expect(fromB).toEqual([expect.objectContaining({ id: rel.id, kind: 'BLOCKS', direction: 'outbound', fromIssueId: b.id, toIssueId: a.id })]);
    const before = (await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id;
    const same = await ok(t, ws.token, 'relations.add', { fromIssueId: b.id, toIssueId: a.id, kind: 'BLOCKS' });
    expect(same).toMatchObject({ id: rel.id, created: false, kind: 'BLOCKS' });
    const again = await ok(t, ws.token, 'relations.add', { fromIssueId: a.key, toIssueId: b.key, kind: 'BLOCKED_BY' });
    expect(again).toMatchObject({ id: rel.id, created: false });
    expect((await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id).toBe(before);
    // The reverse (A BLOCKS B) would be a deadlock: 409.
    const reverse = await rest(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'BLOCKS' });
    expect(reverse.status).toBe(409);
    expect(reverse.body.error).toBe('reverse_relation_exists');
  });

  it('a link that would close a longer cycle of BLOCKS or DUPLICATES is 409 relation_cycle; deleted issues break a chain', async () => {
    for (const kind of ['BLOCKS', 'DUPLICATES']) {
      const [a, b, c] = [await issue(ws, `${kind} a`), await issue(ws, `${kind} b`), await issue(ws, `${kind} c`)];
      await ok(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind });
      await ok(t, ws.token, 'relations.add', { fromIssueId: b.id, toIssueId: c.id, kind });
      const closing = await rest(t, ws.token, 'relations.add', { fromIssueId: c.id, toIssueId: a.id, kind });
      expect(closing.status).toBe(409);
      expect(closing.body).toMatchObject({ error: 'relation_cycle', message: expect.stringContaining(`${c.key} ${kind} ${a.key} would close a cycle`) });
      expect((await ok(t, ws.token, 'relations.listForIssue', { issueId: c.id })).map((r: any) => r.issue.id)).toEqual([b.id]);
      if (kind === 'BLOCKS') {
        // The same link written the other way round (A BLOCKED_BY C) is the same cycle.
        expect((await rest(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: c.id, kind: 'BLOCKED_BY' })).body.error).toBe('relation_cycle');
        // RELATES_TO is undirected and never a cycle.
        await ok(t, ws.token, 'relations.add', { fromIssueId: c.id, toIssueId: a.id, kind: 'RELATES_TO' });
      }
      await ok(t, ws.token, 'issues.delete', { id: b.id });
      expect(await ok(t, ws.token, 'relations.add', { fromIssueId: c.id, toIssueId: a.id, kind })).toMatchObject({ created: true });
    }
  });

  it('a cycle through an issue a narrowed key cannot see is still a cycle; concurrent links cannot close one between them', async () => {
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [ws.id, 'Cycle P']);
    const a = await issue(ws, 'cycle a', { projectId: rows[0].id });
    const c = await issue(ws, 'cycle c', { projectId: rows[0].id });
    const hidden = await issue(ws, 'cycle hidden');
    await ok(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: hidden.id, kind: 'BLOCKS' });
    await ok(t, ws.token, 'relations.add', { fromIssueId: hidden.id, toIssueId: c.id, kind: 'BLOCKS' });
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [rows[0].id] });
    const closing = await rest(t, key.token, 'relations.add', { fromIssueId: c.id, toIssueId: a.id, kind: 'BLOCKS' });
    expect([closing.status, closing.body.error]).toEqual([409, 'relation_cycle']);
    expect(closing.body.message).not.toContain(hidden.key);

    // Three links of a triangle at once: at most two are stored (the third would close it), whatever the order.
    for (let round = 0; round < 3; round++) {
      const [x, y, z] = [await issue(ws, `tri x${round}`), await issue(ws, `tri y${round}`), await issue(ws, `tri z${round}`)];
      const results = await Promise.all([[x, y], [y, z], [z, x]].map(([from, to]) =>
        rest(t, ws.token, 'relations.add', { fromIssueId: from!.id, toIssueId: to!.id, kind: 'BLOCKS' })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 409]);
      const { rows: stored } = await t.pools.owner.query(
        'select count(*)::int as n from app_public.issue_relations where from_issue_id = any($1)', [[x.id, y.id, z.id]]);
      expect(stored[0].n).toBe(2);
    }
  });

  it('concurrent reverse links: exactly one of A BLOCKS B and B BLOCKS A (and of DUPLICATES) is stored', async () => {
    for (const kind of ['BLOCKS', 'DUPLICATES']) {
      for (let round = 0; round < 3; round++) {
        const a = await issue(ws, `race ${kind} a${round}`);
        const b = await issue(ws, `race ${kind} b${round}`);
        const [one, two] = await Promise.all([
          rest(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind }),
          rest(t, ws.token, 'relations.add', { fromIssueId: b.id, toIssueId: a.id, kind }),
        ]);
        expect([one.status, two.status].sort()).toEqual([200, 409]);
        expect(await ok(t, ws.token, 'relations.listForIssue', { issueId: a.id })).toHaveLength(1);
      }
    }
  });

  it('a relation to a deleted issue is neither listed nor removable (404)', async () => {
    const a = await issue(ws, 'keeps');
    const b = await issue(ws, 'goes');
    const rel = await ok(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'RELATES_TO' });
    await ok(t, ws.token, 'issues.delete', { id: b.id });
    expect(await ok(t, ws.token, 'relations.listForIssue', { issueId: a.id })).toEqual([]);
    expect((await rest(t, ws.token, 'relations.remove', { id: rel.id })).status).toBe(404);
  });

  it('RELATES_TO is symmetric and stored once; DUPLICATES keeps its direction; kind filter', async () => {
    const a = await issue(ws, 'r1');
    const b = await issue(ws, 'r2');
    const c = await issue(ws, 'dup');
    const rel = await ok(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'RELATES_TO' });
    // The same fact asked the other way: the existing row, read as asked (b RELATES_TO a).
    expect(await ok(t, ws.token, 'relations.add', { fromIssueId: b.id, toIssueId: a.id, kind: 'RELATES_TO' }))
      .toMatchObject({ id: rel.id, created: false, fromIssueId: b.id, toIssueId: a.id });
    expect((await ok(t, ws.token, 'relations.listForIssue', { issueId: b.id }))[0]).toMatchObject({ kind: 'RELATES_TO', direction: 'inbound', fromIssueId: b.id, toIssueId: a.id });
    const dup = await ok(t, ws.token, 'relations.add', { fromIssueId: c.id, toIssueId: a.id, kind: 'DUPLICATES' });
    const fromA = await ok(t, ws.token, 'relations.listForIssue', { issueId: a.id });
    expect(fromA.map((r: any) => [r.kind, r.direction, r.issue.id])).toEqual([['RELATES_TO', 'outbound', b.id], ['DUPLICATES', 'inbound', c.id]]);
    expect((await ok(t, ws.token, 'relations.listForIssue', { issueId: a.id, kind: 'DUPLICATES' })).map((r: any) => r.id)).toEqual([dup.id]);
  });

  it('remove deletes by id (ISSUE_UPDATED on both), then 404', async () => {
    const a = await issue(ws, 'rm1');
    const b = await issue(ws, 'rm2');
    const rel = await ok(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'RELATES_TO' });
    const removed = await ok(t, ws.token, 'relations.remove', { id: rel.id });
    expect(removed).toMatchObject({ id: rel.id, removed: true, kind: 'RELATES_TO', fromIssueId: a.id, toIssueId: b.id });
    expect(await ok(t, ws.token, 'relations.listForIssue', { issueId: a.id })).toEqual([]);
    for (const id of [a.id, b.id]) {
      const evs = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: id })).items;
      expect(evs.map((e: { kind: string }) => e.kind)).toEqual(['ISSUE_UPDATED', 'ISSUE_UPDATED', 'ISSUE_CREATED']);
      expect(evs[0].payload).toMatchObject({ changes: ['relations'], relationId: rel.id, relationKind: 'RELATES_TO', relationChange: 'removed' });
    }
    const gone = await rest(t, ws.token, 'relations.remove', { id: rel.id });
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe('Relation not found');
  });

  it('hides relations to deleted issues', async () => {
    const a = await issue(ws, 'keeps');
    const b = await issue(ws, 'will be deleted');
    await ok(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'BLOCKS' });
    await ok(t, ws.token, 'issues.delete', { id: b.id });
    expect(await ok(t, ws.token, 'relations.listForIssue', { issueId: a.id })).toEqual([]);
    // The same list everywhere an issue's relations are shown (they named the deleted issue's key and title).
    expect((await ok(t, ws.token, 'issues.get', { id: a.id, include: { relations: true } })).relations).toEqual([]);
    expect((await ok(t, ws.token, 'agent.context.bundle', { issueId: a.id })).relations).toEqual([]);
    expect((await rest(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'RELATES_TO' })).status).toBe(404);
  });

  it('rejects bad input with 400: self-links, unknown kinds, missing fields', async () => {
    const a = await issue(ws, 'self');
    const before = (await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id;
    expect400(await rest(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: a.key, kind: 'BLOCKS' }), 'toIssueId');
    expect400(await rest(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: a.id, kind: 'PARENT_OF' }), 'kind');
    expect400(await rest(t, ws.token, 'relations.add', { fromIssueId: a.id, kind: 'BLOCKS' }), 'toIssueId');
    expect400(await rest(t, ws.token, 'relations.remove', { id: 'abc' }), 'id');
    expect400(await rest(t, ws.token, 'relations.listForIssue', {}), 'issueId');
    expect400(await rest(t, ws.token, 'relations.listForIssue', { issueId: a.id, kind: 'X' }), 'kind');
    const missing = await rest(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: `${ws.key}-99999`, kind: 'BLOCKS' });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Issue not found');
    expect((await ok(t, ws.token, 'events.recent', { limit: 1 })).items[0].id).toBe(before);
  });

  it('another workspace: 404 for its issues and relations, nothing changed', async () => {
    const a = await issue(ws, 'home a');
    const b = await issue(ws, 'home b');
    const x = await issue(other, 'away');
    const rel = await ok(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'BLOCKS' });
    expect((await rest(t, ws.token, 'relations.add', { fromIssueId: a.id, toIssueId: x.id, kind: 'BLOCKS' })).status).toBe(404);
    expect((await rest(t, other.token, 'relations.add', { fromIssueId: x.id, toIssueId: a.id, kind: 'BLOCKS' })).status).toBe(404);
    expect((await rest(t, other.token, 'relations.remove', { id: rel.id })).status).toBe(404);
    expect((await rest(t, other.token, 'relations.listForIssue', { issueId: a.id })).status).toBe(404);
    expect(await ok(t, ws.token, 'relations.listForIssue', { issueId: a.id })).toHaveLength(1);
  });

  it('a narrowed key needs both ends visible: 404 otherwise, and hidden links are left out of lists', async () => {
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [ws.id, 'Rel P']);
    const projectId = rows[0].id;
    const inside = await issue(ws, 'inside', { projectId });
    const inside2 = await issue(ws, 'inside 2', { projectId });
    const outside = await issue(ws, 'outside');
    const hiddenRel = await ok(t, ws.token, 'relations.add', { fromIssueId: outside.id, toIssueId: inside.id, kind: 'BLOCKS' });
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectId] });
    expect(await ok(t, key.token, 'relations.listForIssue', { issueId: inside.id })).toEqual([]);
    expect((await rest(t, key.token, 'relations.add', { fromIssueId: inside.id, toIssueId: outside.id, kind: 'RELATES_TO' })).status).toBe(404);
    expect((await rest(t, key.token, 'relations.remove', { id: hiddenRel.id })).status).toBe(404);
    const visible = await ok(t, key.token, 'relations.add', { fromIssueId: inside.id, toIssueId: inside2.key, kind: 'RELATES_TO' });
    expect((await ok(t, key.token, 'relations.listForIssue', { issueId: inside.id })).map((r: any) => r.id)).toEqual([visible.id]);
    expect((await ok(t, key.token, 'issues.get', { id: inside.id, include: { relations: true } })).relations.map((r: any) => r.id)).toEqual([visible.id]);
    expect((await ok(t, ws.token, 'relations.listForIssue', { issueId: inside.id })).map((r: any) => r.id)).toEqual([hiddenRel.id, visible.id]);
  });
});
