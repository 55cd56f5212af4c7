/**
 * Closed sets are GraphQL enums (src/graphql/enums.ts): a text column whose CHECK lists UPPER_SNAKE values is typed by
 * them in its field, its condition and its ordering; a wrong value is refused instead of listing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedSetNames, loadClosedSets } from '../../src/graphql/enums.ts';
import { ok, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { gql, gqlOk } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
let other: Workspace;
beforeAll(async () => ({ t, ws, other } = await startWithWorkspaces({ graphql: true })));
afterAll(() => t.close());

describe('closed sets as GraphQL enums', () => {
  it('fields, conditions and orderings of closed sets are typed by their values; a shared set is one enum', async () => {
    const typeOf = async (type: string, field: string) => {
      const d = await gqlOk(t, ws.token, `{ __type(name: "${type}") { fields { name type { kind name ofType { kind name } } } } }`);
      const f = d.__type.fields.find((x: { name: string }) => x.name === field);
      return f.type.ofType ?? f.type;
    };
    expect(await typeOf('Issue', 'priority')).toMatchObject({ kind: 'ENUM', name: 'Priority' });
    expect(await typeOf('Status', 'category')).toMatchObject({ kind: 'ENUM', name: 'StatusCategory' });
    expect(await typeOf('Agent', 'status')).toMatchObject({ kind: 'ENUM', name: 'AgentStatus' });
    expect(await typeOf('AgentRun', 'status')).toMatchObject({ kind: 'ENUM', name: 'AgentRunStatus' });
    const priority = await gqlOk(t, ws.token, '{ __type(name: "Priority") { enumValues { name } } }');
    expect(priority.__type.enumValues.map((v: { name: string }) => v.name).sort()).toEqual(['HIGH', 'LOW', 'MEDIUM', 'NONE', 'URGENT']);
    // Lower-case sets stay text (an enum would answer ISSUE where REST answers issue).
    expect(await typeOf('Attachment', 'targetType')).toMatchObject({ kind: 'SCALAR', name: 'String' });
  });

  it('filters by an enum value, and refuses a value outside the set (it listed nothing)', async () => {
    const urgent = await ok(t, ws.token, 'issues.create', { title: 'on fire', priority: 'URGENT' });
    await ok(t, ws.token, 'issues.create', { title: 'calm', priority: 'LOW' });
    await ok(t, other.token, 'issues.create', { title: 'elsewhere, on fire', priority: 'URGENT' });
    const d = await gqlOk(t, ws.token, '{ issues(condition: {priority: URGENT, deletedAt: null}) { nodes { rowId priority } } }');
    expect(d.issues.nodes).toEqual([{ rowId: urgent.id, priority: 'URGENT' }]);
    const byVariable = await gqlOk(t, ws.token, 'query($p: Priority) { issues(condition: {priority: $p}) { totalCount } }', { p: 'URGENT' });
    expect(byVariable.issues.totalCount).toBe(1);
    for (const [query, variables] of [
      ['{ issues(condition: {priority: high}) { totalCount } }', undefined],
      ['{ issues(condition: {priority: "HIGH"}) { totalCount } }', undefined],
      ['query($p: Priority) { issues(condition: {priority: $p}) { totalCount } }', { p: 'high' }],
    ] as const) {
      const r = await gql(t, ws.token, query, variables);
      expect(r.errors?.length, query).toBeGreaterThan(0);
      expect(r.data?.issues ?? null).toBeNull();
    }
    // Ordering by such a column is still offered.
    expect((await gqlOk(t, ws.token, '{ issues(orderBy: PRIORITY_ASC, first: 1) { totalCount } }')).issues.totalCount).toBeGreaterThan(0);
  });

  it('names: a set shared by several tables takes the column\'s name, any other its table\'s', async () => {
    const names = closedSetNames(await loadClosedSets(t.pools.api));
    expect(names.get('issues.priority')).toBe('Priority');
    expect(names.get('statuses.category')).toBe('StatusCategory');
    expect(names.get('agent_runs.status')).toBe('AgentRunStatus');
    expect([...names.keys()].some((k) => k.startsWith('attachments.target_type'))).toBe(false);
  });
});
