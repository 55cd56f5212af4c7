/**
 * Issuing and revoking a key write ActivityEvents (API_KEY_CREATED, API_KEY_REVOKED; subject api-key), whatever the
 * path (CLI, GraphQL access.*, accessRevoke). Never a secret in them. They are read by a workspace admin's person key
 * without narrowing and by the key's own person (a narrowed key too, for its person's keys); not by another member or
 * an agent's key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gqlOk } from '../support/graphql.ts';
import { admin, createAgent, createKey, createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;

beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t, 'KEV');
  other = await createWorkspace(t, 'KEO');
  await admin(t, 'add-member', { workspace: ws.key, email: 'kev-member@example.com', role: 'MEMBER', json: true });
});
afterAll(() => t.close());

const keyEvents = async (token: string) =>
  (await ok(t, token, 'events.recent', { kinds: ['API_KEY_CREATED', 'API_KEY_REVOKED'], limit: 200 })).items as Array<{
    kind: string; subjectType: string; subjectId: string; payload: Record<string, unknown> }>;

describe('key events', () => {
  it('every issue and revocation writes one, without the token; admins and the key\'s person read them, no one else', async () => {
    const memberKey = await createKey(t, ws, { user: 'kev-member@example.com' });
    const session = (await gqlOk(t, memberKey.token, 'mutation { accessCreateSession(input: {ttlHours: 2}) { issuedApiKey { rowId rawKey } } }'))
      .accessCreateSession.issuedApiKey;
    await gqlOk(t, memberKey.token, 'mutation($k: UUID!) { accessRevoke(input: {keyId: $k}) { clientMutationId } }', { k: session.rowId });
    await createAgent(t, ws, 'kev-agent');
    const agentKey = await createKey(t, ws, { agent: 'kev-agent' });
    const ownerExtra = await createKey(t, ws);
    await admin(t, 'revoke-key', { id: ownerExtra.id, json: true });

    const seenByOwner = await keyEvents(ws.token);
    const about = (id: string) => seenByOwner.filter((e) => e.subjectId === id).map((e) => e.kind).sort();
    expect(about(session.rowId)).toEqual(['API_KEY_CREATED', 'API_KEY_REVOKED']);
    expect(about(ownerExtra.id)).toEqual(['API_KEY_CREATED', 'API_KEY_REVOKED']);
    expect(about(agentKey.id)).toEqual(['API_KEY_CREATED']);
    const created = seenByOwner.find((e) => e.subjectId === session.rowId && e.kind === 'API_KEY_CREATED')!;
    expect(created).toMatchObject({ subjectType: 'api-key', payload: { keyId: session.rowId, kind: 'SESSION', prefix: expect.any(String), linkedAgentId: null } });
    expect(JSON.stringify(seenByOwner)).not.toContain(session.rawKey);
    expect(JSON.stringify(seenByOwner)).not.toContain(session.rawKey.slice(20));

    // The member reads its own keys' events only; an agent's key reads none; an admin's narrowed key only its person's.
    const seenByMember = await keyEvents(memberKey.token);
    expect(new Set(seenByMember.map((e) => e.payload.userId))).toEqual(new Set([created.payload.userId]));
    expect(seenByMember.map((e) => e.subjectId)).toContain(session.rowId);
    expect(seenByMember.map((e) => e.subjectId)).not.toContain(ownerExtra.id);
    expect(await keyEvents(agentKey.token)).toEqual([]);
    const project = await ok(t, ws.token, 'projects.create', { name: 'Narrow keys' });
    const narrowed = await createKey(t, ws, { projects: [project.id] });
    const seenByNarrowed = (await keyEvents(narrowed.token)).map((e) => e.subjectId);
    expect(seenByNarrowed).toContain(ownerExtra.id);
    expect(seenByNarrowed).not.toContain(session.rowId);
    // Another workspace reads none of them.
    expect((await keyEvents(other.token)).map((e) => e.subjectId)).not.toContain(session.rowId);
  });
});
