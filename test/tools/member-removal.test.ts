/**
 * A member removed (lifecycle probe): their name stays on their work, and what only they could end ends with them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createAgent, createKey, createWorkspace, ok, rest, startTestApp, subjectEvents, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  other = await createWorkspace(t);
});
afterAll(() => t.close());

describe('removing a member', () => {
  it('keys they mint while being removed do not outlive the removal (session and plugin keys alike)', async () => {
    const email = `minting-${ws.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: ws.key, email, role: 'ADMIN', json: true });
    const leaver = await createKey(t, ws, { user: email });
    const plugin = (await gqlOk(t, leaver.token, `mutation { pluginsCreate(input: {name: "Minting", scopes: [READ_ISSUES]}) { pluginInfo { rowId } } }`)).pluginsCreate.pluginInfo.rowId;
    const { rows: [u] } = await t.pools.owner.query('select id from app_public.users where email = $1', [email]);
    const mint = (i: number) => gql(t, leaver.token, i % 2
      ? 'mutation { accessCreateSession(input: {ttlHours: 1}) { issuedApiKey { rawKey } } }'
      : `mutation($p: UUID!) { pluginIssueApiKey(input: {pluginId: $p, scopes: [READ_ISSUES]}) { issuedApiKey { rawKey } } }`, i % 2 ? undefined : { p: plugin });
    const minted = Array.from({ length: 16 }, (_, i) => new Promise((r) => setTimeout(r, i * 3)).then(() => mint(i)));
    await new Promise((r) => setTimeout(r, 15));
    await gqlOk(t, ws.token, 'mutation($u: UUID!) { membersRemove(input: {userId: $u}) { membership { rowId } } }', { u: u.id });
    const answers = await Promise.all(minted);
    const keys = answers.map((a) => (a.data as any)?.accessCreateSession?.issuedApiKey?.rawKey ?? (a.data as any)?.pluginIssueApiKey?.issuedApiKey?.rawKey).filter(Boolean);
    for (const key of keys) {
      const r = await rest(t, key, 'issues.list', {});
      expect(r.status, 'a key minted around the removal still works').toBe(401);
    }
    const { rows: [live] } = await t.pools.owner.query(
      'select count(*)::int as n from app_private.api_keys where workspace_id = $1 and (user_id = $2 or issued_by_user_id = $2) and revoked_at is null', [ws.id, u.id]);
    expect(live.n).toBe(0);
  });

  it('stops the webhooks they registered, naming why; the others\' go on; every list says who registered each', async () => {
    // A removed member's webhook kept receiving every event, titles and all, and no admin could tell it was theirs.
    const email = `hooks-${ws.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: ws.key, email, role: 'ADMIN', json: true });
    const leaver = await createKey(t, ws, { user: email });
    const theirs = await ok(t, leaver.token, 'webhooks.create', { url: 'https://hooks.example.com/theirs' });
    const ours = await ok(t, ws.token, 'webhooks.create', { url: 'https://hooks.example.com/ours' });
    const operators = await admin(t, 'create-webhook', { workspace: ws.key, url: 'https://hooks.example.com/operator', json: true });
    const { rows: [u] } = await t.pools.owner.query('select id from app_public.users where email = $1', [email]);
    const { rows: [owner] } = await t.pools.owner.query('select id from app_public.users where email = $1', [ws.ownerEmail]);
    expect([theirs.ownerUserId, ours.ownerUserId, operators.webhook.ownerUserId ?? null]).toEqual([u.id, owner.id, null]);

    await gqlOk(t, ws.token, 'mutation($u: UUID!) { membersRemove(input: {userId: $u}) { membership { rowId } } }', { u: u.id });
    const listed = (await ok(t, ws.token, 'webhooks.list', {})).items;
    const byId = (id: string) => listed.find((w: { id: string }) => w.id === id);
    expect(byId(theirs.id)).toMatchObject({ active: false, deactivatedReason: 'its owner left the workspace', ownerUserId: u.id });
    expect(byId(ours.id)).toMatchObject({ active: true, ownerUserId: owner.id });
    expect(byId(operators.webhook.id)).toMatchObject({ active: true, ownerUserId: null });
    const [stopped] = (await ok(t, ws.token, 'events.recent', { subjectType: 'webhook', subjectId: theirs.id, kinds: ['WEBHOOK_UPDATED'] })).items;
    expect(stopped.payload).toMatchObject({ changes: ['active'], deactivatedReason: 'its owner left the workspace' });
    // GraphQL says it too, and an admin may turn it back on.
    const gqlHooks = (await gqlOk(t, ws.token, '{ webhooks { nodes { rowId ownerUserId active } } }')).webhooks.nodes;
    expect(gqlHooks.find((w: { rowId: string }) => w.rowId === theirs.id)).toEqual({ rowId: theirs.id, ownerUserId: u.id, active: false });
    // Turned back on, it is the turner's: it would otherwise send to the departed person's address for good.
    expect(await ok(t, ws.token, 'webhooks.update', { id: theirs.id, active: true })).toMatchObject({ active: true, deactivatedReason: null, ownerUserId: owner.id });
  });

  it('a webhook re-pointed or re-keyed by someone is theirs: it stops when they leave (else the operator\'s, re-pointed, kept sending)', async () => {
    const email = `repoint-${ws.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: ws.key, email, role: 'ADMIN', json: true });
    const leaver = await createKey(t, ws, { user: email });
    const { rows: [u] } = await t.pools.owner.query('select id from app_public.users where email = $1', [email]);
    const operators = (await admin(t, 'create-webhook', { workspace: ws.key, url: 'https://hooks.example.com/ops', json: true })).webhook;
    const owners = await ok(t, ws.token, 'webhooks.create', { url: 'https://hooks.example.com/owner' });
    // Re-pointed by them; re-keyed by them; a description changed by them (not theirs for that).
    expect((await ok(t, leaver.token, 'webhooks.update', { id: operators.id, url: 'https://leaver.example.com/mine' })).ownerUserId).toBe(u.id);
    await ok(t, leaver.token, 'webhooks.rotateSecret', { id: owners.id, keepPreviousHours: 0 });
    const described = await ok(t, ws.token, 'webhooks.create', { url: 'https://hooks.example.com/described' });
    expect((await ok(t, leaver.token, 'webhooks.update', { id: described.id, description: 'note' })).ownerUserId).not.toBe(u.id);
    await gqlOk(t, ws.token, 'mutation($u: UUID!) { membersRemove(input: {userId: $u}) { membership { rowId } } }', { u: u.id });
    const listed = (await ok(t, ws.token, 'webhooks.list', {})).items;
    const state = (id: string) => listed.find((w: { id: string }) => w.id === id);
    expect(state(operators.id)).toMatchObject({ active: false, deactivatedReason: 'its owner left the workspace' });
    expect(state(owners.id)).toMatchObject({ active: false, deactivatedReason: 'its owner left the workspace' });
    expect(state(described.id)).toMatchObject({ active: true });
  });

  it('revokes the plugin keys they issued (those act for no user), not the ones others issued', async () => {
    const email = `plugin-admin-${ws.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: ws.key, email, role: 'ADMIN', json: true });
    const hank = await createKey(t, ws, { user: email });
    const plugin = (await gqlOk(t, hank.token, `mutation { pluginsCreate(input: {name: "Hank's", scopes: [READ_ISSUES, WRITE_ISSUES]}) { pluginInfo { rowId } } }`)).pluginsCreate.pluginInfo.rowId;
    const issue = (by: string) => gqlOk(t, by, `mutation($p: UUID!) { pluginIssueApiKey(input: {pluginId: $p, scopes: [READ_ISSUES, WRITE_ISSUES]}) { issuedApiKey { rowId rawKey } } }`, { p: plugin });
    const hanks = (await issue(hank.token)).pluginIssueApiKey.issuedApiKey;
    const owners = (await issue(ws.token)).pluginIssueApiKey.issuedApiKey;
    expect((await rest(t, hanks.rawKey, 'issues.list', {})).status).toBe(200);
    // The operator sees who issued a plugin's key (it acts for no user).
    const listed = (await admin(t, 'list-keys', { workspace: ws.key, json: true })).items;
    expect(listed.find((k: { id: string }) => k.id === hanks.rowId)).toMatchObject({ userEmail: null, issuedByEmail: email });
    const { rows: [u] } = await t.pools.owner.query('select id from app_public.users where email = $1', [email]);
    await gqlOk(t, ws.token, 'mutation($u: UUID!) { membersRemove(input: {userId: $u}) { membership { rowId } } }', { u: u.id });
    const refused = await rest(t, hanks.rawKey, 'issues.list', {});
    expect([refused.status, refused.body.error]).toEqual([401, 'revoked']);
    expect((await rest(t, owners.rawKey, 'issues.list', {})).status).toBe(200);
    const revoked = await ok(t, ws.token, 'events.recent', { kinds: ['API_KEY_REVOKED'], limit: 20 });
    expect(revoked.items.map((e: { subjectId: string }) => e.subjectId)).toContain(hanks.rowId);
  });

  it('keeps their name on their work, ends their claims, timer and watches, unassigns their requests; a moderator closes their poll', async () => {
    const email = `leaver-${ws.key.toLowerCase()}@example.com`;
    const added = await admin(t, 'add-member', { workspace: ws.key, email, role: 'MEMBER', json: true });
    const userId = added.user.id as string;
    const leaver = (await createKey(t, ws, { user: email })).token;
    const issue = await ok(t, ws.token, 'issues.create', { title: 'Worked on by a leaver' });
    await ok(t, leaver, 'comments.create', { issueId: issue.id, body: 'My last words' });
    await ok(t, leaver, 'issues.claim', { id: issue.id });
    await ok(t, leaver, 'time.start', { issueId: issue.id });
    await ok(t, leaver, 'issues.watch', { issueId: issue.id });
    const assigned = await ok(t, ws.token, 'actionRequests.create', { title: 'For the leaver', issueId: issue.id, assignedUserId: userId });
    const poll = await ok(t, leaver, 'actionRequests.create', { title: 'Which way?', issueId: issue.id, options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    // Another workspace never sees them, member or former member.
    const elsewhere = await gqlOk(t, other.token, 'query($u: UUID!) { user(rowId: $u) { rowId } }', { u: userId });
    expect(elsewhere.user).toBeNull();

    await gqlOk(t, ws.token, 'mutation($u: UUID!) { membersRemove(input: {userId: $u}) { membership { rowId } } }', { u: userId });

    // Their name stays: the comment's author, the events' actor, GraphQL's user.
    const comments = await ok(t, ws.token, 'comments.list', { issueId: issue.id });
    expect(comments.items[0].author).toMatchObject({ id: userId, email });
    const created = (await subjectEvents(t, ws.token, 'issue', issue.id)).find((e: { kind: string; actor?: { id?: string } }) => e.kind === 'ISSUE_UPDATED' && e.actor?.id === userId);
    expect(created).toBeDefined();
    expect((await gqlOk(t, ws.token, 'query($u: UUID!) { user(rowId: $u) { email } }', { u: userId })).user).toEqual({ email });
    // Claim released (with its event), timer stopped, watch dropped.
    const after = await ok(t, ws.token, 'issues.get', { id: issue.id });
    expect(after.claimedById ?? null).toBeNull();
    const claim = await ok(t, ws.token, 'issues.claim', { id: issue.id });
    expect(claim.claimedById).toBeDefined();
    const entries = await t.pools.owner.query('select duration_min from app_public.time_entries where user_id = $1', [userId]);
    expect(entries.rows.map((r) => r.duration_min)).toEqual([expect.any(Number)]);
    const watchers = await t.pools.owner.query('select count(*)::int as n from app_public.issue_watchers where user_id = $1', [userId]);
    expect(watchers.rows[0].n).toBe(0);
    // The request assigned to them goes back to no one, with its event.
    expect((await ok(t, ws.token, 'actionRequests.get', { id: assigned.id })).assignedUserId).toBeNull();
    const requestEvents = await subjectEvents(t, ws.token, 'action-request', assigned.id);
    expect(requestEvents.at(-1)).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['assignedUserId'], reason: 'member_removed' } });
    // Their poll: a moderator may close it now (it was 403 not_requester for everyone).
    expect((await ok(t, ws.token, 'actionRequests.closeVoting', { id: poll.id }))).toBeDefined();
    // Still not a member: a request cannot be assigned to them, nor do their keys work.
    expect((await rest(t, ws.token, 'actionRequests.create', { title: 'x', assignedUserId: userId })).status).toBe(404);
    expect((await rest(t, leaver, 'issues.list', {})).status).toBe(401);
    // And another workspace still does not see them.
    expect((await gqlOk(t, other.token, 'query($u: UUID!) { user(rowId: $u) { rowId } }', { u: userId })).user).toBeNull();
  });

  it("a poll's requester who is still a member keeps it theirs: a moderator is refused (403 not_requester)", async () => {
    const email = `stayer-${ws.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: ws.key, email, role: 'MEMBER', json: true });
    const stayer = (await createKey(t, ws, { user: email })).token;
    const poll = await ok(t, stayer, 'actionRequests.create', { title: 'Mine', options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    const r = await rest(t, ws.token, 'actionRequests.closeVoting', { id: poll.id });
    expect([r.status, r.body.error]).toEqual([403, 'not_requester']);
  });

  it('takes turns with their own writes: a claim being written is ended by the removal, one after it is refused (401)', async () => {
    const email = `racer-${ws.key.toLowerCase()}@example.com`;
    const userId = (await admin(t, 'add-member', { workspace: ws.key, email, role: 'MEMBER', json: true })).user.id as string;
    const racer = (await createKey(t, ws, { user: email })).token;
    const first = await ok(t, ws.token, 'issues.create', { title: 'Claimed as the member is removed' });
    const second = await ok(t, ws.token, 'issues.create', { title: 'Claimed after' });
    // Their claim in flight: it holds the membership (as hold_membership does) and has written the claim, not committed.
    const c = await t.pools.owner.connect();
    await c.query('begin');
    await c.query('select from app_public.memberships where workspace_id = $1 and user_id = $2 for share', [ws.id, userId]);
    await c.query(`update app_public.issues set claimed_by_id = $2, claim_expires_at = now() + interval '4 hours' where id = $1`, [first.id, userId]);
    const removal = gqlOk(t, ws.token, 'mutation($u: UUID!) { membersRemove(input: {userId: $u}) { membership { rowId } } }', { u: userId });
    const waited = await Promise.race([removal.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 300))]);
    expect(waited).toBe(true);
    await c.query('commit');
    c.release();
    await removal;
    expect((await ok(t, ws.token, 'issues.get', { id: first.id })).claimedById ?? null).toBeNull();
    // After the removal, their key's claim is refused as a revoked key's call.
    expect((await rest(t, racer, 'issues.claim', { id: second.id })).status).toBe(401);
    expect((await ok(t, ws.token, 'issues.get', { id: second.id })).claimedById ?? null).toBeNull();
  });

  it("a poll an agent asked is the agent's: archived, a moderator closes it, not the person whose key it used", async () => {
    const email = `agent-owner-${ws.key.toLowerCase()}@example.com`;
    await admin(t, 'add-member', { workspace: ws.key, email, role: 'MEMBER', json: true });
    await createAgent(t, ws, `poller-${ws.key.toLowerCase()}`);
    const agentKey = (await createKey(t, ws, { user: email, agent: `poller-${ws.key.toLowerCase()}` })).token;
    const personal = (await createKey(t, ws, { user: email })).token;
    const poll = await ok(t, agentKey, 'actionRequests.create', { title: 'The agent asks', options: [{ key: 'a', label: 'A' }, { key: 'b', label: 'B' }] });
    await admin(t, 'archive-agent', { workspace: ws.key, agent: `poller-${ws.key.toLowerCase()}`, json: true });
    const byPerson = await rest(t, personal, 'actionRequests.closeVoting', { id: poll.id });
    expect([byPerson.status, byPerson.body.error]).toEqual([403, 'not_requester']);
    expect(await ok(t, ws.token, 'actionRequests.closeVoting', { id: poll.id })).toBeDefined();
  });
});
