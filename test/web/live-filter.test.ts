/**
 * Which stream events read an issue's page again (src/web/client/api.ts aboutIssue): its own, and the workspace's
 * (names it shows), not another issue's. An idle issue tab re-read on every event of the workspace, two requests each,
 * and beside a board ran the key into its rate limit while an agent worked (an outside probe at 8,000 issues).
 */
import { describe, expect, it } from 'vitest';
import { aboutIssue } from '../../src/web/client/api.ts';

const ID = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';

describe('aboutIssue', () => {
  const wants = aboutIssue(() => ID);
  it('takes events about the issue: its own, its comments, runs and requests, relations to it', () => {
    expect(wants('ISSUE_UPDATED', { kind: 'ISSUE_UPDATED', subjectType: 'issue', subjectId: ID })).toBe(true);
    expect(wants('AGENT_RUN_UPDATED', { kind: 'AGENT_RUN_UPDATED', subjectType: 'issue', subjectId: ID })).toBe(true);
    expect(wants('COMMENT_CREATED', { kind: 'COMMENT_CREATED', subjectType: 'comment', subjectId: OTHER, payload: { issueId: ID } })).toBe(true);
    expect(wants('ISSUE_UPDATED', { kind: 'ISSUE_UPDATED', subjectType: 'issue', subjectId: OTHER, payload: { toIssueId: ID } })).toBe(true);
    expect(wants('ISSUE_UPDATED', { kind: 'ISSUE_UPDATED', subjectType: 'action-request', subjectId: OTHER, payload: { issueId: ID } })).toBe(true);
  });
  it('leaves another issue\'s news', () => {
    expect(wants('ISSUE_UPDATED', { kind: 'ISSUE_UPDATED', subjectType: 'issue', subjectId: OTHER })).toBe(false);
    expect(wants('COMMENT_CREATED', { kind: 'COMMENT_CREATED', subjectType: 'comment', subjectId: OTHER, payload: { issueId: OTHER } })).toBe(false);
    expect(wants('AGENT_RUN_UPDATED', { kind: 'AGENT_RUN_UPDATED', subjectType: 'issue', subjectId: OTHER })).toBe(false);
  });
  it('takes the workspace\'s own events, an event it cannot read, and any before the issue is known', () => {
    expect(wants('LABEL_UPDATED', { kind: 'LABEL_UPDATED', subjectType: 'label', subjectId: OTHER })).toBe(true);
    expect(wants('AGENT_STATUS_CHANGED', { kind: 'AGENT_STATUS_CHANGED', subjectType: 'agent', subjectId: OTHER })).toBe(true);
    expect(wants('ISSUE_UPDATED', undefined)).toBe(true);
    expect(aboutIssue(() => undefined)('ISSUE_UPDATED', { kind: 'ISSUE_UPDATED', subjectType: 'issue', subjectId: OTHER })).toBe(true);
  });
});
