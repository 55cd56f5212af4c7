/**
 * A value a table's CHECK refuses is a 400 saying what would pass (it said only "maxConcurrent is not an allowed
 * value"): the simple forms of CHECK are worded from the catalog once (src/errors.ts loadCheckRules).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckRules, wordCheck } from '../../src/errors.ts';
import { createAgent, createWorkspace, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlError } from '../support/graphql.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
  await loadCheckRules(t.pools.owner);
});
afterAll(() => t.close());

describe('CHECK constraints in words', () => {
  it('words bounds, lengths and lists as pg_get_constraintdef prints them; leaves other forms alone', () => {
    expect(wordCheck('CHECK ((max_concurrent >= 0))')).toBe('must be 0 or more');
    expect(wordCheck('CHECK (((cycle_length_days >= 1) AND (cycle_length_days <= 365)))')).toBe('must be from 1 to 365');
    expect(wordCheck('CHECK (((length(name) >= 1) AND (length(name) <= 200)))')).toBe('must be 1 to 200 characters');
    expect(wordCheck('CHECK ((length(description) <= 500))')).toBe('must be at most 500 characters');
    expect(wordCheck("CHECK ((auto_dispatch_mode = ANY (ARRAY['ROUND_ROBIN'::text, 'MANUAL_ONLY'::text])))")).toBe('must be one of ROUND_ROBIN, MANUAL_ONLY');
    expect(wordCheck("CHECK ((color ~ '^#[0-9a-f]{6}$'::text))")).toBeUndefined();
    expect(wordCheck('CHECK ((from_issue_id <> to_issue_id))')).toBeUndefined();
  });

  it('a refused value says what would pass, over GraphQL as over the tools', async () => {
    const agent = await createAgent(t, ws, 'bounded');
    const e = await gqlError(t, ws.token, `mutation { agentsUpdate(input: {agentId: "${agent.id}", maxConcurrent: -5}) { agent { rowId } } }`);
    expect(e).toMatchObject({ code: 'invalid_input', issues: { maxConcurrent: 'maxConcurrent must be 0 or more' } });
  });
});
