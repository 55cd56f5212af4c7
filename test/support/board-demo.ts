/**
 * Demo data for the web board, made through the tools (REST), used by the browser test and by
 * `npm run docs:screenshots`: two projects, labels, the current sprint, an agent at work on an issue
 * (its run with usage, a status comment with confidence), relations, a link attachment, a poll and a
 * recommendation card. `call(token, tool, input)` returns the tool's output; the agent and its key exist.
 */
export type Call = (token: string, tool: string, input: Record<string, unknown>) => Promise<any>;

export const XSS_DESCRIPTION = [
  '## Steps',
  '',
  '1. Open the **login** page',
  '2. Paste a `long` password',
  '',
  '| length | result |',
  '|---:|---|',
  '| 64 | ok |',
  '| 72 | ~~ok~~ fails |',
  '',
  '<script>window.__pwned = "script"</script>',
  '<img src="x" onerror="window.__pwned = \'onerror\'">',
  '[a link](javascript:window.__pwned=1)',
  '<div>',
  'Markdown after a tag still renders: **after html**',
  '',
  '![diagram](https://example.com/d.png) ![trap](javascript:window.__pwned=2)',
  '[titled](javascript:window.__pwned=3 "a title")',
  '',
  'bcrypt stops at 72 bytes[^1].',
  '',
  '[^1]: Anything after the 72nd byte is ignored.',
].join('\n');

export async function seedBoardDemo(call: Call, owner: string, agentToken: string, agentProfileKey: string) {
  const today = new Date().toISOString().slice(0, 10);
  const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
  const platform = await call(owner, 'projects.create', { name: 'Platform' });
  const docs = await call(owner, 'projects.create', { name: 'Docs' });
  const bug = await call(owner, 'labels.create', { name: 'bug', color: '#c9372c' });
  const ux = await call(owner, 'labels.create', { name: 'ux', color: '#0c66e4' });
  const sprint = await call(owner, 'cycles.create', { name: 'Sprint 1', startsOn: today, endsOn: inDays(13) });
  const statuses: any[] = await call(owner, 'statuses.list', {});
  const status = (category: string) => statuses.find((s) => s.category === category)!.id as string;

  const login = await call(owner, 'issues.create', {
    title: 'Login fails with long passwords', description: XSS_DESCRIPTION, priority: 'URGENT', projectId: platform.id, labelIds: [bug.id],
    expectedOutput: 'Passwords up to **128 bytes** sign in.', verificationChecklist: [{ id: 'regression', label: 'A regression test for 72 bytes' }],
  });
  await call(owner, 'issues.update', { id: login.id, cycleId: sprint.id });
  const search = await call(owner, 'issues.create', { title: 'Search results rank stale issues first', priority: 'HIGH', projectId: platform.id, labelIds: [ux.id], statusId: status('IN_PROGRESS') });
  await call(owner, 'issues.update', { id: search.id, cycleId: sprint.id });
  const guide = await call(owner, 'issues.create', { title: 'Write the getting-started guide', priority: 'MEDIUM', projectId: docs.id, statusId: status('IN_REVIEW') });
  const shipped = await call(owner, 'issues.create', { title: 'Dark mode for the board', priority: 'LOW', projectId: platform.id, labelIds: [ux.id], statusId: status('DONE') });
  await call(owner, 'issues.create', { title: 'Rate limit headers in the REST docs', projectId: docs.id, statusId: status('BACKLOG') });

  // The agent takes the login bug: a run with usage, a status comment with its confidence.
  await call(agentToken, 'agents.heartbeat', { status: 'BUSY' });
  const assigned = await call(owner, 'issues.assign', { id: login.id, profileKey: agentProfileKey });
  await call(agentToken, 'runs.recordUsage', { runId: assigned.currentRun.id, tokensIn: 18_250, tokensOut: 3_410, tokensCached: 9_000, costUsd: 0.1275, currentStep: 'Reproducing with a 72-byte password' });
  await call(agentToken, 'comments.create', { issueId: login.id, body: 'Reproduced: passwords over **72 bytes** are cut by bcrypt. Fix in progress.', confidence: 'HIGH' });
  await call(owner, 'comments.create', { issueId: login.id, body: 'Thanks! Please add a test for 100-character passwords.' });
  await call(owner, 'relations.add', { fromIssueId: login.id, toIssueId: search.id, kind: 'BLOCKS' });
  await call(owner, 'attachments.attachLink', { targetType: 'issue', targetId: login.id, externalUrl: 'https://example.com/incident/42', linkTitle: 'Incident 42' });

  // Decisions for people: a poll from the agent, a recommendation card to close the shipped issue.
  const poll = await call(agentToken, 'actionRequests.create', {
    issueId: login.id, title: 'How long may a password be?', kind: 'FREE_FORM',
    options: [{ key: '72', label: '72 bytes (bcrypt)' }, { key: '256', label: '256 characters (argon2)' }],
  });
  const card = await call(agentToken, 'actionRequests.create', {
    issueId: guide.id, title: 'Mark the guide done? The review passed.', kind: 'TRANSITION', payload: { statusId: status('DONE') },
  });
  return { platform, docs, bug, ux, sprint, login, search, guide, shipped, poll, card, status };
}
