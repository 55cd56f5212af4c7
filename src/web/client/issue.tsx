import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from './api.ts';
import { LabelChip } from './board.tsx';
import { CommitCheckbox, CommitSelect } from './controls.tsx';
import { may, PRIORITIES, reasonInWords, statusOf, type Meta } from './data.ts';
import { useLive, useWriteProblem } from './hooks.ts';
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
      rowId body kind confidence createdAt editedAt authorUserId authoringAgentId authorUser { name email } authoringAgent { name profileKey } } }
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

const UPDATE = `mutation Update($id: String!, $statusId: String, $priority: String, $queued: Boolean, $title: String, $description: String) {
  issuesUpdate(id: $id, statusId: $statusId, priority: $priority, queued: $queued, title: $title, description: $description) }`;
const ADD_LABELS = 'mutation AddLabels($id: String!, $labelIds: [String!]!) { issuesAddLabels(id: $id, labelIds: $labelIds) }';
const REMOVE_LABELS = 'mutation RemoveLabels($id: String!, $labelIds: [String!]!) { issuesRemoveLabels(id: $id, labelIds: $labelIds) }';
const COMMENT = 'mutation Comment($i: String!, $b: String!) { commentsCreate(issueId: $i, body: $b) }';
const EDIT_COMMENT = 'mutation EditComment($id: String!, $body: String!) { commentsUpdate(id: $id, body: $body) }';
const DELETE_COMMENT = 'mutation DeleteComment($id: String!) { commentsDelete(id: $id) }';
const NO_WRITE_ISSUES = 'This key may read but not change this issue (no WRITE_ISSUES scope).';

/**
 * The comment being typed, kept in this tab's sessionStorage per person and issue: a key that is revoked or expires
 * signs the page out, and signing in again (as the same person) brings the text back. Cleared once posted, and
 * when the person signs out on purpose (main.tsx).
 */
export const DRAFT_PREFIX = 'svc.draft.';
const draftKey = (viewerId: string | null, issueKey: string) => `${DRAFT_PREFIX}${viewerId ?? 'key'}.${issueKey}`;
function useDraft(key: string): [string, (text: string) => void] {
  const [text, setText] = useState(() => sessionStorage.getItem(key) ?? '');
  return [text, (next) => {
    setText(next);
    if (next) sessionStorage.setItem(key, next); else sessionStorage.removeItem(key);
  }];
}

/** Markdown written in a textarea, with a preview as the page will show it. */
function MarkdownEditor({ id, label, initial, saveText, onSave, onCancel }: {
  id: string; label: string; initial: string; saveText: string; onSave(text: string): Promise<boolean>; onCancel(): void;
}) {
  const [text, setText] = useState(initial);
  const [preview, setPreview] = useState(false);
  const [saving, setSaving] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);
  return (
    <form class="md-editor" onSubmit={async (e) => {
      e.preventDefault();
      setSaving(true);
      try { await onSave(text); } finally { setSaving(false); }
    }}>
      <div class="tabs" role="group" aria-label={`${label}: write or preview`}>
        <button type="button" class="link" aria-pressed={!preview} onClick={() => setPreview(false)}>Write</button>
        <button type="button" class="link preview-toggle" aria-pressed={preview} onClick={() => setPreview(true)}>Preview</button>
      </div>
      {preview
        ? <div class="markdown preview" dangerouslySetInnerHTML={{ __html: text.trim() ? renderMarkdown(text) : '<p class="empty">Nothing to preview.</p>' }} />
        : <textarea id={id} ref={area} aria-label={label} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />}
      <div class="actions">
        <button type="submit" disabled={saving}>{saveText}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

/** The title as a one-line field: Enter saves, Escape (or Cancel) leaves it as it was. */
function TitleForm({ initial, onSave, onCancel }: { initial: string; onSave(title: string): Promise<unknown>; onCancel(): void }) {
  const [title, setTitle] = useState(initial);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => { input.current?.focus(); input.current?.select(); }, []);
  return (
    <form id="title-form" class="title-form" onSubmit={(e) => { e.preventDefault(); void onSave(title.trim()); }}>
      <input id="title-input" ref={input} aria-label="Title" value={title} maxLength={500} required
        onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); onCancel(); } }} />
      <button type="submit">Save</button>
      <button type="button" onClick={onCancel}>Cancel</button>
    </form>
  );
}

/** "Delete this comment?" with its buttons; Delete is focused, so Enter deletes and Tab reaches "Keep it". */
function ConfirmDelete({ onDelete, onKeep }: { onDelete(): void; onKeep(): void }) {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  return (
    <p class="confirm" role="group" aria-label="Delete this comment?">
      Delete this comment?{' '}
      <button type="button" class="comment-delete-confirm" ref={button} onClick={onDelete}>Delete</button>{' '}
      <button type="button" onClick={onKeep}>Keep it</button>
    </p>
  );
}

type Comment = {
  rowId: string; body: string; kind: string; confidence: string | null; createdAt: string; editedAt: string | null;
  authorUserId: string | null; authoringAgentId: string | null;
  authorUser: { name: string; email: string } | null; authoringAgent: { name: string; profileKey: string } | null;
};

export function IssuePage({ issueKey, meta }: { issueKey: string; meta: Meta }) {
  const loaded = useLive(() => loadIssue(issueKey), [issueKey]);
  const [body, setBody] = useDraft(draftKey(meta.viewerId, issueKey));
  const problem = useWriteProblem();
  const commentProblem = useWriteProblem();
  const [editing, setEditing] = useState<'title' | 'description' | `comment:${string}` | `delete:${string}`>();
  const [posting, setPosting] = useState(false);
  const editTitle = useRef<HTMLButtonElement>(null);
  const d = loaded.data;
  const shownTitle = d?.issue?.title;
  useEffect(() => { document.title = `${issueKey}${shownTitle ? ` ${shownTitle}` : ''} · ${meta.workspace.name}`; }, [issueKey, shownTitle, meta.workspace.name]);
  if (loaded.error && !d) return <main class="page"><p class="error" role="alert">{loaded.error}</p></main>;
  if (!d) return <main class="page"><p>Loading…</p></main>;
  if (!d.issue) return <main class="page"><h1 class="sr-only">{issueKey}</h1><p class="empty">No issue {issueKey} (or this key may not see it). <a href="#/board">Back to the board</a></p></main>;
  const i = d.issue;
  const writable = may(meta, 'WRITE_ISSUES');
  const commentable = may(meta, 'WRITE_COMMENTS');
  // comments.update / delete: the author (a person's key for a comment no agent wrote), or an OWNER/ADMIN person.
  const mayChange = (c: Comment) => commentable && ((!c.authoringAgentId && c.authorUserId !== null && c.authorUserId === meta.viewerId)
    || meta.role === 'OWNER' || meta.role === 'ADMIN');

  /**
   * One write (a catalog tool as a mutation), then the page read again before it settles (so a control shows the
   * saved value, never the old one in between). A refusal, or no answer, is said as "not saved"; the controls then
   * show the saved values at once. Nothing is retried by itself.
   */
  const write = async (mutation: string, variables: Record<string, unknown>, shown = problem, verb?: string): Promise<boolean> => {
    try {
      await gql(mutation, { id: i.rowId, ...variables });
      shown.clear();
    } catch (err) {
      shown.failed(err as Error, verb);
      return false;
    }
    await loaded.reload();
    return true;
  };
  const update = (fields: Record<string, unknown>) => write(UPDATE, fields);
  // Agents are assigned (issues.assign opens their run); people claim (issues.claim, for the key's own user).
  const assign = (agentId: string) => write('mutation Assign($id: String!, $agentId: String) { issuesAssign(id: $id, agentId: $agentId) }', { agentId });
  const unassign = () => write('mutation Unassign($id: String!) { issuesUnassign(id: $id) }', {});
  const claimedByMe = Boolean(i.claimedById && i.claimedById === meta.viewerId && (!i.claimExpiresAt || new Date(i.claimExpiresAt) > new Date()));
  const claim = () => write(claimedByMe
    ? 'mutation Release($id: String!) { issuesRelease(id: $id) }'
    : 'mutation Claim($id: String!) { issuesClaim(id: $id) }', {});
  const agents = meta.agents.filter((a) => a.rowId !== i.assignedAgentId);
  const labelIds: string[] = i.issueLabels.nodes.map((l: any) => l.label.rowId);
  const addable = meta.labels.filter((l) => !labelIds.includes(l.rowId));
  const comment = async (e: Event) => {
    e.preventDefault();
    setPosting(true);
    try {
      await gql(COMMENT, { i: i.rowId, b: body });
      setBody('');
      commentProblem.clear();
      await loaded.reload();
    } catch (err) {
      // The text stays in the box (and in the tab's draft) to post again.
      commentProblem.failed(err as Error, 'posted');
    } finally {
      setPosting(false);
    }
  };
  // Back on "Edit title" once the field goes (a keyboard user stays where they were).
  const closeTitle = () => { setEditing(undefined); setTimeout(() => editTitle.current?.focus()); };
  const saveTitle = async (title: string) => {
    if (title === i.title || await update({ title })) closeTitle();
  };

  return (
    <main class="page issue" data-key={i.key}>
      <p><a href="#/list">← Issues</a></p>
      <div class="issue-head">
        <h1><span class="key">{i.key}</span> {editing !== 'title' && <span id="issue-title">{i.title}</span>}</h1>
        {editing === 'title'
          ? <TitleForm initial={i.title} onSave={saveTitle} onCancel={closeTitle} />
          : writable && <button type="button" id="edit-title" class="link" ref={editTitle} onClick={() => setEditing('title')}>Edit title</button>}
      </div>
      {problem.text && <p class="error" id="issue-error" role="alert">{problem.text}</p>}
      {!writable && <p class="hint" id="issue-readonly">{NO_WRITE_ISSUES}</p>}
      <div class="layout">
        {/* First in the page's order, so Tab reaches Status and Priority before the description and the comment box. */}
        <aside class="side">
          <label>Status
            <CommitSelect id="issue-status" value={i.statusId} disabled={!writable} title={writable ? undefined : NO_WRITE_ISSUES}
              onCommit={(statusId) => update({ statusId })}>
              {meta.statuses.map((s) => <option key={s.rowId} value={s.rowId}>{s.name}</option>)}
            </CommitSelect>
          </label>
          <label>Priority
            <CommitSelect id="issue-priority" value={i.priority} disabled={!writable} title={writable ? undefined : NO_WRITE_ISSUES}
              onCommit={(priority) => update({ priority })}>
              {PRIORITIES.map((p) => <option key={p} value={p}>{p}</option>)}
            </CommitSelect>
          </label>
          {writable && (
            <div class="assign">
              <label>Agent
                <CommitSelect id="issue-agent" value="" onCommit={(v) => (v === 'none' ? unassign() : assign(v))}>
                  <option value="">{i.assignedAgent ? `${i.assignedAgent.name} (assigned)` : 'Assign an agent…'}</option>
                  {agents.map((a) => <option key={a.rowId} value={a.rowId}>{i.assignedAgent ? `Hand to ${a.name}` : a.name}</option>)}
                  {i.assignedAgent && <option value="none">Unassign (ends its run)</option>}
                </CommitSelect>
              </label>
              {meta.viewerId && <button type="button" id="issue-claim" onClick={() => void claim()}
                title={claimedByMe ? 'Give up your claim' : 'Claim it for yourself (4 hours, renewable)'}>{claimedByMe ? 'Release' : 'Claim'}</button>}
              <label class="check"><CommitCheckbox id="issue-queued" checked={Boolean(i.queued)} onCommit={(queued) => update({ queued })} /> Queued for the dispatcher</label>
            </div>
          )}
          <dl>
            <dt>Assignee</dt>
            <dd id="assignee">{i.assignedAgent ? `Agent: ${i.assignedAgent.name} (${i.assignedAgent.status})` : ''}{i.assignedAgent && i.claimedBy ? ', ' : ''}{who(i.claimedBy) ?? (i.assignedAgent ? '' : 'Nobody')}</dd>
            <dt>Labels</dt>
            <dd id="labels">
              {i.issueLabels.nodes.length === 0 && <span class="meta">None</span>}
              {i.issueLabels.nodes.map((l: any) => (
                <span key={l.label.rowId} class="label-item" data-id={l.label.rowId}>
                  <LabelChip name={l.label.name} color={l.label.color} />
                  {writable && <button type="button" class="link remove-label" aria-label={`Remove the label ${l.label.name}`} title={`Remove the label ${l.label.name}`}
                    onClick={() => void write(REMOVE_LABELS, { labelIds: [l.label.rowId] })}>×</button>}
                </span>
              ))}
              {writable && addable.length > 0 && (
                <CommitSelect id="issue-add-label" value="" label="Add a label" onCommit={(labelId) => write(ADD_LABELS, { labelIds: [labelId] })}>
                  <option value="">Add a label…</option>
                  {addable.map((l) => <option key={l.rowId} value={l.rowId}>{l.name}</option>)}
                </CommitSelect>
              )}
            </dd>
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
          {i.actionRequests.nodes.map((r: Request) => <RequestCard key={r.rowId} request={r} canAct={writable} viewerId={meta.viewerId} onDone={loaded.reload} />)}
        </aside>

        <div class="body">
          <section class="description-box">
            {editing === 'description'
              ? <MarkdownEditor id="description-input" label="Description" initial={i.description ?? ''} saveText="Save description"
                  onSave={async (text) => {
                    const ok = await update({ description: text.trim() ? text : null });
                    if (ok) setEditing(undefined);
                    return ok;
                  }}
                  onCancel={() => setEditing(undefined)} />
              : <>
                  {writable && <button type="button" id="edit-description" class="link section-tool" onClick={() => setEditing('description')}>Edit description</button>}
                  <div class="markdown" id="description" dangerouslySetInnerHTML={{ __html: i.description ? renderMarkdown(i.description) : '<p class="empty">No description.</p>' }} />
                </>}
          </section>

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
            {i.comments.nodes.map((c: Comment) => (
              <article key={c.rowId} class="comment" data-id={c.rowId}>
                <header>
                  <strong>{who(c.authorUser) ?? 'someone'}</strong>
                  {c.authoringAgent && <span class="badge agent">via agent {c.authoringAgent.name}</span>}
                  {/* Spec 2.4: confidence is kept for every comment, shown only for agent-authored ones. */}
                  {c.authoringAgent && c.confidence && <span class={`badge confidence c-${c.confidence}`}>confidence {c.confidence}</span>}
                  {c.kind !== 'COMMENT' && <span class="badge">{c.kind}</span>}
                  <span class="meta"> {when(c.createdAt)}{c.editedAt ? ' (edited)' : ''}</span>
                  {mayChange(c) && editing !== `comment:${c.rowId}` && editing !== `delete:${c.rowId}` && (
                    <span class="comment-tools">
                      <button type="button" class="link comment-edit" onClick={() => setEditing(`comment:${c.rowId}`)}>Edit</button>
                      <button type="button" class="link comment-delete" onClick={() => setEditing(`delete:${c.rowId}`)}>Delete</button>
                    </span>
                  )}
                </header>
                {editing === `comment:${c.rowId}`
                  ? <MarkdownEditor id={`comment-input-${c.rowId}`} label="Edit the comment" initial={c.body} saveText="Save comment"
                      onSave={async (text) => {
                        const ok = await write(EDIT_COMMENT, { id: c.rowId, body: text }, commentProblem);
                        if (ok) setEditing(undefined);
                        return ok;
                      }}
                      onCancel={() => setEditing(undefined)} />
                  : <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(c.body) }} />}
                {editing === `delete:${c.rowId}` && (
                  <ConfirmDelete onKeep={() => setEditing(undefined)}
                    onDelete={async () => { if (await write(DELETE_COMMENT, { id: c.rowId }, commentProblem, 'deleted')) setEditing(undefined); }} />
                )}
              </article>
            ))}
            {commentProblem.text && <p class="error" id="comment-error" role="alert">{commentProblem.text}</p>}
            {commentable
              ? <form class="new-comment" onSubmit={comment}>
                  <textarea aria-label="Comment" placeholder="Write a comment (markdown)" value={body} onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)} />
                  <button type="submit" disabled={!body.trim() || posting}>Comment</button>
                </form>
              : <p class="hint" id="comment-readonly">This key may not comment (no WRITE_COMMENTS scope).</p>}
          </section>
        </div>
      </div>
    </main>
  );
}
