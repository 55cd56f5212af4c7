import { useEffect, useState } from 'preact/hooks';
import { gql } from './api.ts';
import { LabelChip } from './board.tsx';
import { may, PRIORITIES, reasonInWords, statusOf, type Meta } from './data.ts';
import { useLive } from './hooks.ts';
import { renderMarkdown } from './markdown.ts';
import { REQUEST_FIELDS, RequestCard, type Request } from './requests.tsx';

/** A file attachment opens at a short-lived signed URL, asked for when it is clicked (it expires in 15 minutes). */
async function download(id: string) {
  const { attachmentsGetDownloadUrl: d } = await gql('query Download($id: String!) { attachmentsGetDownloadUrl(id: $id) }', { id });
  if (d?.url) location.assign(d.url);
}

const ISSUE = `query Issue($key: String!) {
  issues(condition: {key: $key, deletedAt: null}, first: 1) { nodes {
    rowId key title description priority statusId queued assignedAgentId claimedById claimExpiresAt createdAt updatedAt dueDate expectedOutput verificationChecklist artifactRequired
    project { name } cycle { name } parent { key title }
    assignedAgent { name profileKey status } claimedBy { name email }
    createdByUser { name email } createdByAgent { name }
    issueLabels { nodes { label { rowId name color } } }
    comments(orderBy: CREATED_AT_ASC, condition: {deletedAt: null}) { nodes {
      rowId body kind confidence createdAt editedAt authorUser { name email } authoringAgent { name profileKey } } }
    issueRelationsByFromIssueId { nodes { kind toIssue { key title } } }
    issueRelationsByToIssueId { nodes { kind fromIssue { key title } } }
    agentRuns(orderBy: STARTED_AT_DESC, first: 1) { nodes {
      rowId status engagementMode controlState currentStep tokensIn tokensOut tokensCached costUsd startedAt finishedAt completionMeta agent { name } } }
    actionRequests(orderBy: CREATED_AT_DESC, first: 50) { nodes { ${REQUEST_FIELDS} } }
  } }
}`;
// The timeline is the issue's events; a run's usage reports (subject: the run) show in the run's figures instead.
const MORE = `query IssueMore($id: UUID!) {
  attachments(condition: {targetType: "issue", targetId: $id}, orderBy: CREATED_AT_ASC) { nodes { rowId kind filename externalUrl linkTitle mimeType sizeBytes } }
  issueEvents: activityEvents(condition: {subjectId: $id}, orderBy: SEQ_DESC, first: 50) { nodes { seq kind createdAt payload } }
}`;

async function loadIssue(key: string) {
  const d = await gql(ISSUE, { key });
  const issue = d.issues.nodes[0];
  if (!issue) return { issue: undefined };
  const run = issue.agentRuns.nodes[0];
  const more = await gql(MORE, { id: issue.rowId });
  return { issue, run, attachments: more.attachments.nodes, timeline: more.issueEvents.nodes };
}

const who = (u?: { name: string; email: string } | null) => (u ? u.name || u.email : undefined);
/** A stored relation kind in words (BLOCKS, DUPLICATES, RELATES_TO). */
const relationWords = (kind: string) => kind.toLowerCase().replace(/_/g, ' ');

type TimelineEvent = { seq: string; kind: string; createdAt: string; payload?: Record<string, any> | null };
/** One line of the timeline: what changed, from the event's payload, where the kind alone would not say. */
function describeEvent(ev: TimelineEvent, meta: Meta): string {
  const p = ev.payload ?? {};
  const status = (id: unknown) => statusOf(meta, id)?.name ?? 'a status';
  const agent = (id: unknown) => meta.agents.find((a) => a.rowId === id)?.name ?? 'an agent';
  switch (ev.kind) {
    case 'ISSUE_STATUS_CHANGED': return `status ${status(p.from)} → ${status(p.to)}`;
    case 'ISSUE_PRIORITY_CHANGED': return `priority ${p.from} → ${p.to}`;
    case 'ISSUE_UPDATED':
      // A relation alone: which kind was linked or unlinked (the other issue is in the relations list, if visible).
      if (p.relationChange && Array.isArray(p.changes) && p.changes.length === 1) return `${p.relationChange === 'added' ? 'linked' : 'unlinked'}: ${relationWords(p.relationKind)}`;
      return Array.isArray(p.changes) && p.changes.length ? `changed ${p.changes.map(fieldName).join(', ')}` : 'updated';
    case 'AGENT_ASSIGNED': return `assigned to ${agent(p.agentId)}${p.auto ? ' by the dispatcher' : ''}${p.reason ? ` (${reasonInWords(p.reason)})` : ''}`;
    case 'AGENT_RUN_STATUS_CHANGED': {
      // The reason when it says more than the move (a completed run's reason is "completed").
      const to = String(p.to ?? '').toLowerCase();
      return `run ${String(p.from ?? '').toLowerCase() || 'started'} → ${to}${p.reason && p.reason !== to ? ` (${p.reason})` : ''}`;
    }
    default: return KIND_WORDS[ev.kind] ?? ev.kind.replace(/_/g, ' ').toLowerCase();
  }
}
/** The event payload's field names (camelCase, as the API has them) as a person reads them. */
const FIELD_WORDS: Record<string, string> = {
  projectId: 'project', parentId: 'parent', cycleId: 'cycle', dueDate: 'due date', slaMinutes: 'SLA',
  expectedOutput: 'expected output', verificationChecklist: 'checklist', artifactRequired: 'artifact required',
  claimedById: 'claim', queued: 'queue', assignedAgentId: 'agent (unassigned)', labelIds: 'labels',
};
const fieldName = (f: string) => FIELD_WORDS[f] ?? f;
const KIND_WORDS: Record<string, string> = {
  ISSUE_CREATED: 'created', ISSUE_DELETED: 'deleted', ISSUE_RESTORED: 'restored', ISSUE_QUEUED: 'queued for an agent',
  ISSUE_ASSIGNED: 'assigned', ISSUE_STALLED: 'stalled: no progress within the watchdog window',
  ISSUE_SLA_BREACH: 'SLA breached', AGENT_NOACK: 'the agent did not acknowledge in time',
  AGENT_RUN_KICKED: 'run kicked', AGENT_RUN_STALLED: 'run stalled',
};
const when = (t?: string | null) => (t ? new Date(t).toLocaleString() : '');

export function IssuePage({ issueKey, meta }: { issueKey: string; meta: Meta }) {
  const loaded = useLive(() => loadIssue(issueKey), [issueKey]);
  const [body, setBody] = useState('');
  const [error, setError] = useState<string>();
  const d = loaded.data;
  const title = d?.issue?.title;
  useEffect(() => { document.title = `${issueKey}${title ? ` ${title}` : ''} · ${meta.workspace.name}`; }, [issueKey, title, meta.workspace.name]);
  if (loaded.error && !d) return <main class="page"><p class="error" role="alert">{loaded.error}</p></main>;
  if (!d) return <main class="page"><p>Loading…</p></main>;
  if (!d.issue) return <main class="page"><p class="empty">No issue {issueKey} (or this key may not see it).</p></main>;
  const i = d.issue;
  const writable = may(meta, 'WRITE_ISSUES');

  /** One write (a catalog tool as a mutation), then the page read again; the service's refusal is shown as it says it. */
  const write = async (mutation: string, variables: Record<string, unknown>) => {
    try {
      await gql(mutation, { id: i.rowId, ...variables });
      setError(undefined);
      loaded.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const update = (fields: Record<string, unknown>) =>
    write('mutation Update($id: String!, $statusId: String, $priority: String, $queued: Boolean) { issuesUpdate(id: $id, statusId: $statusId, priority: $priority, queued: $queued) }', fields);
  // Agents are assigned (issues.assign opens their run); people claim (issues.claim, for the key's own user).
  const assign = (agentId: string) => write('mutation Assign($id: String!, $agentId: String) { issuesAssign(id: $id, agentId: $agentId) }', { agentId });
  const unassign = () => write('mutation Unassign($id: String!) { issuesUnassign(id: $id) }', {});
  const claimedByMe = Boolean(i.claimedById && i.claimedById === meta.viewerId && (!i.claimExpiresAt || new Date(i.claimExpiresAt) > new Date()));
  const claim = () => write(claimedByMe
    ? 'mutation Release($id: String!) { issuesRelease(id: $id) }'
    : 'mutation Claim($id: String!) { issuesClaim(id: $id) }', {});
  const agents = meta.agents.filter((a) => a.rowId !== i.assignedAgentId);
  const comment = async (e: Event) => {
    e.preventDefault();
    try {
      await gql('mutation Comment($i: String!, $b: String!) { commentsCreate(issueId: $i, body: $b) }', { i: i.rowId, b: body });
      setBody('');
      setError(undefined);
      loaded.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <main class="page issue" data-key={i.key}>
      <p><a href="#/list">← Issues</a></p>
      <h1><span class="key">{i.key}</span> <span id="issue-title">{i.title}</span></h1>
      {error && <p class="error" role="alert">{error}</p>}
      <div class="layout">
        <div class="body">
          <section class="markdown" id="description" dangerouslySetInnerHTML={{ __html: i.description ? renderMarkdown(i.description) : '<p class="empty">No description.</p>' }} />

          {(i.expectedOutput || i.verificationChecklist?.length > 0 || i.artifactRequired) && (
            <section class="contract" id="contract">
              <h2>Done means</h2>
              {i.expectedOutput && <div class="markdown expected" dangerouslySetInnerHTML={{ __html: renderMarkdown(i.expectedOutput) }} />}
              {i.verificationChecklist?.length > 0 && (
                <ul class="checklist">
                  {i.verificationChecklist.map((c: { id: string; label: string; done?: boolean }) => (
                    <li key={c.id} data-id={c.id} class={c.done ? 'done' : ''}>{c.done ? '☑' : '☐'} {c.label}</li>
                  ))}
                </ul>
              )}
              {i.artifactRequired && <p class="hint">An artifact (attachment) is required to complete it.</p>}
            </section>
          )}

          {d.run && (
            <section class="run" id="run">
              <h2>Agent run</h2>
              <dl>
                <dt>Agent</dt><dd>{d.run.agent?.name}</dd>
                <dt>Status</dt><dd>{d.run.status}{d.run.controlState ? ` (${d.run.controlState})` : ''}</dd>
                <dt>Mode</dt><dd class="mode">{d.run.engagementMode}</dd>
                <dt>Step</dt><dd class="step">{d.run.currentStep ?? '—'}</dd>
                <dt>Tokens</dt><dd class="tokens">{Number(d.run.tokensIn) + Number(d.run.tokensOut)} ({d.run.tokensIn} in, {d.run.tokensOut} out, {d.run.tokensCached} cached)</dd>
                <dt>Cost</dt><dd class="cost">${Number(d.run.costUsd).toFixed(4)}</dd>
                <dt>Started</dt><dd>{when(d.run.startedAt)}{d.run.finishedAt ? `, finished ${when(d.run.finishedAt)}` : ''}</dd>
              </dl>
              {d.run.completionMeta?.summary && (
                <div class="summary"><h3>Summary</h3><div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(String(d.run.completionMeta.summary)) }} /></div>
              )}
            </section>
          )}

          <section class="timeline" id="timeline">
            <h2>Timeline</h2>
            <ol>
              {/* ISSUE_ASSIGNED is always followed by AGENT_ASSIGNED, which says who, how and why: one line for both. */}
              {d.timeline!.filter((ev: TimelineEvent) => ev.kind !== 'ISSUE_ASSIGNED').map((ev: TimelineEvent) => (
                <li key={ev.seq} data-kind={ev.kind}><span class="meta">{when(ev.createdAt)}</span> {describeEvent(ev, meta)}</li>
              ))}
            </ol>
          </section>

          <section class="comments" id="comments">
            <h2>Comments</h2>
            {i.comments.nodes.map((c: any) => (
              <article key={c.rowId} class="comment" data-id={c.rowId}>
                <header>
                  <strong>{who(c.authorUser) ?? 'someone'}</strong>
                  {c.authoringAgent && <span class="badge agent">via agent {c.authoringAgent.name}</span>}
                  {/* Spec 2.4: confidence is kept for every comment, shown only for agent-authored ones. */}
                  {c.authoringAgent && c.confidence && <span class={`badge confidence c-${c.confidence}`}>confidence {c.confidence}</span>}
                  {c.kind !== 'COMMENT' && <span class="badge">{c.kind}</span>}
                  <span class="meta"> {when(c.createdAt)}{c.editedAt ? ' (edited)' : ''}</span>
                </header>
                <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(c.body) }} />
              </article>
            ))}
            {may(meta, 'WRITE_COMMENTS')
              ? <form class="new-comment" onSubmit={comment}>
                  <textarea aria-label="Comment" placeholder="Write a comment (markdown)" value={body} onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)} />
                  <button type="submit" disabled={!body.trim()}>Comment</button>
                </form>
              : <p class="hint" id="comment-readonly">This key may not comment (no WRITE_COMMENTS scope).</p>}
          </section>
        </div>

        <aside class="side">
          <label>Status
            <select id="issue-status" value={i.statusId} disabled={!writable} onChange={(e) => update({ statusId: (e.target as HTMLSelectElement).value })}>
              {meta.statuses.map((s) => <option key={s.rowId} value={s.rowId}>{s.name}</option>)}
            </select>
          </label>
          <label>Priority
            <select id="issue-priority" value={i.priority} disabled={!writable} onChange={(e) => update({ priority: (e.target as HTMLSelectElement).value })}>
              {PRIORITIES.map((p) => <option key={p} value={p}>{p}</option>)}
            </select>
          </label>
          {writable && (
            <div class="assign">
              <label>Agent
                <select id="issue-agent" value="" onChange={(e) => {
                  const v = (e.target as HTMLSelectElement).value;
                  if (v === 'none') void unassign(); else if (v) void assign(v);
                }}>
                  <option value="">{i.assignedAgent ? `${i.assignedAgent.name} (assigned)` : 'Assign an agent…'}</option>
                  {agents.map((a) => <option key={a.rowId} value={a.rowId}>{i.assignedAgent ? `Hand to ${a.name}` : a.name}</option>)}
                  {i.assignedAgent && <option value="none">Unassign (ends its run)</option>}
                </select>
              </label>
              {meta.viewerId && <button type="button" id="issue-claim" onClick={() => void claim()}
                title={claimedByMe ? 'Give up your claim' : 'Claim it for yourself (4 hours, renewable)'}>{claimedByMe ? 'Release' : 'Claim'}</button>}
              <label class="check"><input id="issue-queued" type="checkbox" checked={Boolean(i.queued)}
                onChange={(e) => void update({ queued: (e.target as HTMLInputElement).checked })} /> Queued for the dispatcher</label>
            </div>
          )}
          <dl>
            <dt>Assignee</dt>
            <dd id="assignee">{i.assignedAgent ? `Agent: ${i.assignedAgent.name} (${i.assignedAgent.status})` : ''}{i.assignedAgent && i.claimedBy ? ', ' : ''}{who(i.claimedBy) ?? (i.assignedAgent ? '' : 'Nobody')}</dd>
            <dt>Labels</dt>
            <dd id="labels">{i.issueLabels.nodes.length === 0 ? <span class="meta">None</span>
              : i.issueLabels.nodes.map((l: any) => <LabelChip key={l.label.rowId} name={l.label.name} color={l.label.color} />)}</dd>
            {i.project && <><dt>Project</dt><dd>{i.project.name}</dd></>}
            {i.cycle && <><dt>Cycle</dt><dd>{i.cycle.name}</dd></>}
            {i.parent && <><dt>Parent</dt><dd><a href={`#/issue/${i.parent.key}`}>{i.parent.key}</a> {i.parent.title}</dd></>}
            {i.dueDate && <><dt>Due</dt><dd>{i.dueDate}</dd></>}
            <dt>Created</dt><dd>{when(i.createdAt)} by {i.createdByAgent ? `agent ${i.createdByAgent.name}` : who(i.createdByUser)}</dd>
          </dl>
          <h3>Relations</h3>
          <ul id="relations">
            {i.issueRelationsByFromIssueId.nodes.map((r: any) => r.toIssue && <li key={`f${r.toIssue.key}${r.kind}`}>{relationWords(r.kind)} <a href={`#/issue/${r.toIssue.key}`}>{r.toIssue.key}</a> {r.toIssue.title}</li>)}
            {i.issueRelationsByToIssueId.nodes.map((r: any) => r.fromIssue && <li key={`t${r.fromIssue.key}${r.kind}`}><a href={`#/issue/${r.fromIssue.key}`}>{r.fromIssue.key}</a> {r.fromIssue.title} {relationWords(r.kind)} this</li>)}
            {!i.issueRelationsByFromIssueId.nodes.some((r: any) => r.toIssue) && !i.issueRelationsByToIssueId.nodes.some((r: any) => r.fromIssue)
              && <li class="meta">None</li>}
          </ul>
          <h3>Attachments</h3>
          <ul id="attachments">
            {d.attachments.length === 0 && <li class="meta">None</li>}
            {d.attachments.map((a: any) => (
              <li key={a.rowId}>{a.externalUrl && /^https?:/.test(a.externalUrl)
                ? <a href={a.externalUrl} rel="noopener noreferrer" target="_blank">{a.linkTitle || a.externalUrl}</a>
                : <span><button type="button" class="link download" data-id={a.rowId} onClick={() => download(a.rowId)}>{a.filename ?? a.linkTitle}</button>
                    {' '}<span class="meta">({a.mimeType}, {a.sizeBytes} bytes)</span></span>}</li>
            ))}
          </ul>
          {i.actionRequests.nodes.length > 0 && <h3>Requests</h3>}
          {i.actionRequests.nodes.map((r: Request) => <RequestCard key={r.rowId} request={r} canAct={writable} onDone={loaded.reload} />)}
        </aside>
      </div>
    </main>
  );
}
