/** Webhook management over GraphQL: OWNER/ADMIN with the ADMIN scope, own workspace only, secrets shown once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey, rest, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlError, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
let member: { token: string };

beforeAll(async () => {
  ({ t, ws, other } = await startWithWorkspaces({ graphql: true }));
  await admin(t, 'add-member', { workspace: ws.key, email: 'member@example.com', role: 'MEMBER', json: true });
  member = await createKey(t, ws, { user: 'member@example.com' });
});
afterAll(() => t.close());

const CREATE = `mutation($url: String!, $events: [String]) { webhooksCreate(input: {url: $url, events: $events}) { result } }`;

describe('webhooks over GraphQL', () => {
  it('an owner creates, updates, rotates and deletes; the secret appears only on create and rotate', async () => {
    const created = (await gqlOk(t, ws.token, CREATE, { url: 'https://hooks.example.com/in', events: ['ISSUE_CREATED'] })).webhooksCreate.result;
    expect(created).toMatchObject({ url: 'https://hooks.example.com/in', events: ['ISSUE_CREATED'], secret: expect.stringMatching(/^whsec_/) });
    const listed = await gqlOk(t, ws.token, `{ webhooks { nodes { rowId url } } }`);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    const updated = (await gqlOk(t, ws.token, `mutation($id: UUID!) { webhooksUpdate(input: {webhookId: $id, active: false}) { result } }`, { id: created.id })).webhooksUpdate.result;
    expect(updated).toMatchObject({ id: created.id, active: false });
    expect(updated).not.toHaveProperty('secret');
    const rotated = (await gqlOk(t, ws.token, `mutation($id: UUID!) { webhooksRotateSecret(input: {webhookId: $id}) { result } }`, { id: created.id })).webhooksRotateSecret.result;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    await gqlOk(t, ws.token, `mutation($id: UUID!) { webhooksDelete(input: {webhookId: $id}) { result } }`, { id: created.id });
    expect((await gqlOk(t, ws.token, `{ webhooks { nodes { rowId } } }`)).webhooks.nodes).toEqual([]);
  });

  it('an update that changes nothing writes nothing: updatedAt stays, no WEBHOOK_UPDATED', async () => {
    const made = (await gqlOk(t, ws.token, CREATE, { url: 'https://hooks.example.com/same', events: ['ISSUE_CREATED'] })).webhooksCreate.result;
    const state = async () => (await t.pools.owner.query(
      `select w.updated_at, (select count(*)::int from app_public.activity_events e where e.subject_id = w.id and e.kind = 'WEBHOOK_UPDATED') as n
       from app_public.webhooks w where w.id = $1`, [made.id])).rows[0];
    const before = await state();
    const same = `mutation($id: UUID!) { webhooksUpdate(input: {webhookId: $id, url: "https://hooks.example.com/same", events: ["ISSUE_CREATED"], active: true}) { result } }`;
    expect((await gqlOk(t, ws.token, same, { id: made.id })).webhooksUpdate.result).toMatchObject({ id: made.id, active: true });
    expect(await state()).toEqual(before);
    await gqlOk(t, ws.token, `mutation($id: UUID!) { webhooksUpdate(input: {webhookId: $id, active: false}) { result } }`, { id: made.id });
    expect((await state()).n).toBe(before.n + 1);
  });

  it('events are bounded as webhooks.create bounds them: at most 100 entries', async () => {
    const many = await gql(t, ws.token, CREATE, { url: 'https://hooks.example.com/many', events: Array.from({ length: 5000 }, () => 'ISSUE_CREATED') });
    expect(many.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', issues: { events: 'at most 100 event kinds' } });
    const enough = await gqlOk(t, ws.token, CREATE, { url: 'https://hooks.example.com/enough', events: Array.from({ length: 100 }, () => 'ISSUE_CREATED') });
    expect(enough.webhooksCreate.result.events).toEqual(['ISSUE_CREATED']);
  });

  it('a MEMBER, a key without ADMIN, and another workspace are refused', async () => {
    const created = (await gqlOk(t, ws.token, CREATE, { url: 'https://hooks.example.com/x' })).webhooksCreate.result;
    expect((await gqlError(t, member.token, CREATE, { url: 'https://hooks.example.com/y' })).code).toBe('admin_required');
    const noAdminScope = await createKey(t, ws, { scopes: ['READ_ISSUES', 'READ_PROJECTS', 'READ_COMMENTS', 'READ_USERS', 'WRITE_ISSUES'] });
    const denied = await gqlError(t, noAdminScope.token, CREATE, { url: 'https://hooks.example.com/z' });
    expect(denied).toMatchObject({ code: 'scope_required', scope: 'ADMIN' });
    const foreign = await gqlError(t, other.token, `mutation($id: UUID!) { webhooksRotateSecret(input: {webhookId: $id}) { result } }`, { id: created.id });
    expect(foreign.code).toBe('not_found');
    expect((await gqlOk(t, other.token, `{ webhooks { nodes { rowId } } }`)).webhooks.nodes).toEqual([]);
    expect((await gqlOk(t, member.token, `{ webhooks { nodes { rowId } } }`)).webhooks.nodes).toEqual([]);
  });

  it('an owner\'s narrowed key cannot point a webhook at itself (it would receive every event of the workspace)', async () => {
    const created = (await gqlOk(t, ws.token, CREATE, { url: 'https://hooks.example.com/whole' })).webhooksCreate.result;
    const { rows: [project] } = await t.pools.owner.query(`insert into app_public.projects (workspace_id, name) values ($1, 'Narrow') returning id`, [ws.id]);
    const narrowed = await createKey(t, ws, { projects: [project.id] });
    expect(await gqlError(t, narrowed.token, CREATE, { url: 'https://hooks.example.com/mine' })).toMatchObject({ code: 'narrowing' });
    expect((await gqlError(t, narrowed.token, `mutation($id: UUID!) { webhooksRotateSecret(input: {webhookId: $id}) { result } }`, { id: created.id })).code).toBe('narrowing');
    expect((await gqlError(t, narrowed.token, `mutation($id: UUID!) { webhooksUpdate(input: {webhookId: $id, url: "https://hooks.example.com/mine"}) { result } }`, { id: created.id })).code).toBe('narrowing');
    const listed = await rest(t, narrowed.token, 'webhooks.listDeliveries', {});
    expect([listed.status, listed.body.error]).toEqual([403, 'narrowing']);
  });
});
