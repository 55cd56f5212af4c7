import type { ComponentChild } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { openedFrom, refocus, refocusFrom, say, useArrival } from './a11y.tsx';
import { aboutIssue, gql } from './api.ts';
import { LabelChip } from './board.tsx';
import { CommitCheckbox, CommitSelect } from './controls.tsx';
import { may, personName, PRIORITIES, reasonInWords, statusOf, type Meta } from './data.ts';
import { fieldState, useLive, useWriteProblem, type WriteProblem } from './hooks.ts';
import { renderMarkdown } from './markdown.ts';
import {
  connection, earlierBefore, emptyWindow, gapRange, keptRow, PAGE, rowsOf, showing, withEarlier, withGap, withNewest, withRow, type Window,
} from './paging.ts';
import { REQUEST_FIELDS, RequestCard, type Request } from './requests.tsx';
import { composed, TITLE_MAX, tooLong } from './text.ts';

/** A file attachment opens at a short-lived signed URL, asked for when it is clicked (it expires in 15 minutes). */
async function download(id: string) {
  const { attachmentsGetDownloadUrl: d } = await gql('query Download($id: String!) { attachmentsGetDownloadUrl(id: $id) }', { id });
  if (d?.url) location.assign(d.url);
}

const ISSUE = `query Issue($key: String!) {
  issues(condition: {key: $key, deletedAt: null}, first: 1) { nodes {
    rowId key title description priority statusId queued assignedAgentId claimedById createdByUserId claimExpiresAt createdAt updatedAt dueDate expectedOutput verificationChecklist artifactRequired
    project { name } cycle { name } parent { key title }
    assignedAgent { name profileKey status } claimedBy { name email }
    createdByUser { name email } createdByAgent { name }
    issueLabels { nodes { label { rowId name color } } }
    agentRuns(orderBy: STARTED_AT_DESC, first: 1) { nodes {
      rowId status engagementMode controlState currentStep tokensIn tokensOut tokensCached costUsd startedAt finishedAt completionMeta agent { name } } }
    actionRequests(orderBy: CREATED_AT_DESC, first: 50) { nodes { ${REQUEST_FIELDS} } }
  } }
}`;

/**
 * The issue's long lists, each read a page at a time in its oldest-first order (paging.ts): comments (an issue had
 * 1,505), the timeline (an issue had 1,833 events), attachments, and relations either way. The timeline is the
 * issue's events; a run's usage reports (subject: the run) show in the run's figures instead.
 */
const COMMENT_FIELDS = 'rowId body kind confidence createdAt editedAt authorUserId authoringAgentId authorUser { name email } authoringAgent { name profileKey }';
const LISTS = {
  comments: { field: 'comments', condition: 'issueId: $id, deletedAt: null', orderBy: 'CREATED_AT_ASC', fields: COMMENT_FIELDS },
  timeline: { field: 'activityEvents', condition: 'subjectType: "issue", subjectId: $id', orderBy: 'SEQ_ASC', fields: 'rowId seq kind createdAt payload' },
  attachments: { field: 'attachments', condition: 'targetType: "issue", targetId: $id', orderBy: 'CREATED_AT_ASC', fields: 'rowId kind filename externalUrl linkTitle mimeType sizeBytes' },
  relationsFrom: { field: 'issueRelations', condition: 'fromIssueId: $id', orderBy: 'CREATED_AT_ASC', fields: 'rowId kind toIssue { key title }' },
  relationsTo: { field: 'issueRelations', condition: 'toIssueId: $id', orderBy: 'CREATED_AT_ASC', fields: 'rowId kind fromIssue { key title }' },
} as const;
type ListName = keyof typeof LISTS;
const LIST_NAMES = Object.keys(LISTS) as ListName[];
const listField = (name: ListName, page: string) => {
  const l = LISTS[name];
  return `${name}: ${l.field}(condition: {${l.condition}}, orderBy: ${l.orderBy}, ${page}) { ${connection(l.fields)} }`;
};
/**
 * Every list's newest page, in one request: its last PAGE rows, merged by id into what is kept (withNewest). Not
 * read after the last row kept: a row placed before it that committed later would never be read.
 */
const NEWEST = `query IssueLists($id: UUID!) {
  ${LIST_NAMES.map((n) => listField(n, `last: ${PAGE}`)).join('\n  ')}
}`;
/** A page before a list's first row shown ("Show earlier"), or of a gap. */
const EARLIER = (name: ListName) => `query Earlier($id: UUID!, $before: Cursor) { ${listField(name, `last: ${PAGE}, before: $before`)} }`;
const GAP = (name: ListName) => `query Gap($id: UUID!, $after: Cursor, $before: Cursor) { ${listField(name, `first: ${PAGE}, after: $after, before: $before`)} }`;
const ONE_COMMENT = `query OneComment($id: UUID!) { comment(rowId: $id) { ${COMMENT_FIELDS} } }`;

type Rows = { [N in ListName]: Window<any> };
interface Lists extends Rows { issueId?: string }
const noLists = (issueId?: string): Lists => ({ issueId, ...Object.fromEntries(LIST_NAMES.map((n) => [n, emptyWindow()])) as Rows });
const byRowId = (row: { rowId: string }) => row.rowId;

/** The issue, and its lists' newest pages merged into what is kept of them (`lists`, read and written in turn). */
async function loadIssue(key: string, lists: { current: Lists }) {
  const d = await gql(ISSUE, { key });
  const issue = d.issues.nodes[0];
  if (!issue) return { issue: undefined };
  if (lists.current.issueId !== issue.rowId) lists.current = noLists(issue.rowId);
  const kept = lists.current;
  const pages = await gql(NEWEST, { id: issue.rowId });
  lists.current = { ...kept, ...Object.fromEntries(LIST_NAMES.map((n) => [n, withNewest(kept[n], pages[n], byRowId)])) as Rows };
  return { issue, run: issue.agentRuns.nodes[0] };
}

/** Rows with a marker where rows may be missing (`gapAt`: before the row at that index). */
function withGapAt<T>(rows: T[], gapAt: number | undefined, row: (r: T, n: number) => ComponentChild, gap: () => ComponentChild) {
  return rows.flatMap((r, n) => (n === gapAt ? [gap(), row(r, n)] : [row(r, n)]));
}

/** What a gap's button reads ("Show the comments in between"). */
const GAP_NOUN: Record<ListName, string> = { comments: 'comments', timeline: 'events', attachments: 'attachments', relationsFrom: 'relations', relationsTo: 'relations' };
/** Each list's rows on the page (a row carries its rowId as data-id). */
const ROWS: Record<ListName, string> = {
  comments: '#comments .comment[data-id]', timeline: '#timeline li[data-id]', attachments: '#attachments > li[data-id]',
  relationsFrom: '#relations > li[data-id]', relationsTo: '#relations > li[data-id]',
};
/** "Showing 50 of 180 relations", both ways together. */
function relationsNote(L: Lists): string | undefined {
  const shown = (w: Window<unknown>) => w.older.length + w.later.length + w.newest.length;
  const all = L.relationsFrom.total + L.relationsTo.total;
  const seen = shown(L.relationsFrom) + shown(L.relationsTo);
  return seen < all || L.relationsFrom.gap || L.relationsTo.gap ? `Showing ${seen.toLocaleString('en')} of ${all.toLocaleString('en')} relations` : undefined;
}

/** A stored relation kind in words (BLOCKS, DUPLICATES, RELATES_TO). */
const relationWords = (kind: string) => kind.toLowerCase().replace(/_/g, ' ');

type TimelineEvent = { rowId: string; seq: string; kind: string; createdAt: string; payload?: Record<string, any> | null };
/** One line of the timeline: what changed, from the event's payload, where the kind alone would not say. */
function describeEvent(ev: TimelineEvent, meta: Meta): ComponentChild {
  const p = ev.payload ?? {};
  const status = (id: unknown) => <bdi>{statusOf(meta, id)?.name ?? 'a status'}</bdi>;
  const agent = (id: unknown) => <bdi>{meta.agents.find((a) => a.rowId === id)?.name ?? 'an agent'}</bdi>;
  switch (ev.kind) {
    case 'ISSUE_STATUS_CHANGED': return <>status {status(p.from)} → {status(p.to)}</>;
    case 'ISSUE_PRIORITY_CHANGED': return `priority ${p.from} → ${p.to}`;
    case 'ISSUE_UPDATED':
      // A relation alone: which kind was linked or unlinked (the other issue is in the relations list, if visible).
      if (p.relationChange && Array.isArray(p.changes) && p.changes.length === 1) return `${p.relationChange === 'added' ? 'linked' : 'unlinked'}: ${relationWords(p.relationKind)}`;
      return Array.isArray(p.changes) && p.changes.length ? `changed ${p.changes.map(fieldName).join(', ')}` : 'updated';
    case 'AGENT_ASSIGNED': return <>assigned to {agent(p.agentId)}{p.auto ? ' by the dispatcher' : ''}{p.reason ? ` (${reasonInWords(p.reason)})` : ''}</>;
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
/** A person's or agent's name isolated from the text around it (<bdi>: an Arabic name reordered a date after it). */
const named = (name: string | null | undefined) => (name ? <bdi>{name}</bdi> : name);

const UPDATE = `mutation Update($id: String!, $statusId: String, $priority: String, $queued: Boolean, $title: String, $description: String) {
  issuesUpdate(id: $id, statusId: $statusId, priority: $priority, queued: $queued, title: $title, description: $description) }`;
const ADD_LABELS = 'mutation AddLabels($id: String!, $labelIds: [String!]!) { issuesAddLabels(id: $id, labelIds: $labelIds) }';
const REMOVE_LABELS = 'mutation RemoveLabels($id: String!, $labelIds: [String!]!) { issuesRemoveLabels(id: $id, labelIds: $labelIds) }';
const COMMENT = 'mutation Comment($i: String!, $b: String!) { commentsCreate(issueId: $i, body: $b) }';
const EDIT_COMMENT = 'mutation EditComment($id: String!, $body: String!) { commentsUpdate(id: $id, body: $body) }';
const DELETE_COMMENT = 'mutation DeleteComment($id: String!) { commentsDelete(id: $id) }';
const NO_WRITE_ISSUES = 'This key may read but not change this issue (no WRITE_ISSUES scope).';
/** Said, and nothing sent, for a title or a comment left blank (the service would refuse it in its validator's words). */
const EMPTY_TITLE = 'Not saved: A title cannot be empty.';
const EMPTY_COMMENT = 'Not saved: A comment cannot be empty (Delete removes it).';

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

/**
 * Markdown written in a textarea, with a preview as the page will show it; Escape (or Cancel) leaves it unsaved.
 * `error` names the message a refusal of it shows (tied to the textarea while shown). A save refused (`onSave`
 * false) gives the focus back to the textarea, in Write, to fix the text: Save is disabled while saving, which left
 * a keyboard user on <body>, where Escape reached no editor.
 */
function MarkdownEditor({ id, label, initial, saveText, onSave, onCancel, error }: {
  id: string; label: string; initial: string; saveText: string; onSave(text: string): Promise<boolean>; onCancel(): void;
  error?: { problem: WriteProblem; id: string };
}) {
  const [text, setText] = useState(initial);
  const [preview, setPreview] = useState(false);
  const [saving, setSaving] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => area.current?.focus(), []);
  return (
    <form ref={form} class="md-editor" onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); onCancel(); } }} onSubmit={async (e) => {
      e.preventDefault();
      setSaving(true);
      let saved = false;
      try { saved = await onSave(text); } finally { setSaving(false); }
      if (!saved) {
        setPreview(false);
        refocusFrom(() => form.current, () => area.current);
      }
    }}>
      <div class="tabs" role="group" aria-label={`${label}: write or preview`}>
        <button type="button" class="link" aria-pressed={!preview} onClick={() => setPreview(false)}>Write</button>
        <button type="button" class="link preview-toggle" aria-pressed={preview} onClick={() => setPreview(true)}>Preview</button>
      </div>
      {preview
        ? <div class="markdown preview" dangerouslySetInnerHTML={{ __html: text.trim() ? renderMarkdown(text) : '<p class="empty">Nothing to preview.</p>' }} />
        : <textarea id={id} ref={area} aria-label={label} dir="auto" value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            {...fieldState(error?.problem.invalid, error?.problem.text && error.id)} />}
      <div class="actions">
        <button type="submit" disabled={saving}>{saveText}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

/**
 * The title as a one-line field: Enter saves, Escape (or Cancel) leaves it as it was. A blank title is not sent
 * (the issue keeps its title): `onSave` gets the empty string and says why, and the field keeps what was typed.
 * `problem`: the page's message while it is about the title (tied to the field then).
 */
function TitleForm({ initial, onSave, onCancel, problem }: { initial: string; onSave(title: string): Promise<unknown>; onCancel(): void; problem?: WriteProblem }) {
  const [title, setTitle] = useState(initial);
  const input = useRef<HTMLInputElement>(null);
  // Selected as it is shown (a layout effect): selected after paint, it took keys already typed in the field along
  // (End, then a letter typed at once, replaced the whole title).
  useLayoutEffect(() => { input.current?.focus(); input.current?.select(); }, []);
  // Said as it is passed, not refused keystroke by keystroke (maxLength counted UTF-16 units: a title of 300 emoji
  // took no more).
  const long = tooLong(title.trim(), TITLE_MAX, 'title');
  return (
    // noValidate: the browser's own bubble for an empty required field said nothing the page's message does not.
    <form id="title-form" class="title-form" noValidate onSubmit={(e) => { e.preventDefault(); void onSave(title.trim()); }}>
      <input id="title-input" ref={input} aria-label="Title" value={title} required dir="auto"
        {...fieldState(long || problem?.invalid, long && 'title-too-long', problem?.text && 'issue-error')} onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); onCancel(); } }} />
      <button type="submit">Save</button>
      <button type="button" onClick={onCancel}>Cancel</button>
      {long && <span class="hint too-long" id="title-too-long" role="status">{long}</span>}
    </form>
  );
}

/** "Delete this comment?" with its buttons; Delete is focused, so Enter deletes, Tab reaches "Keep it", Escape keeps it. */
function ConfirmDelete({ onDelete, onKeep }: { onDelete(): void; onKeep(): void }) {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  return (
    <p class="confirm" role="group" aria-label="Delete this comment?" onKeyDown={(e) => { if (e.key === 'Escape') { e.preventDefault(); onKeep(); } }}>
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
  // The lists' reads (the newest pages, "Show earlier", a gap, a changed comment) go one at a time: each builds on the last.
  const lists = useRef<Lists>(noLists());
  const turn = useRef<Promise<unknown>>(Promise.resolve());
  const inTurn = <T,>(read: () => Promise<T>): Promise<T> => {
    const done = turn.current.then(read, read);
    turn.current = done.catch(() => undefined);
    return done;
  };
  // Two requests a read (the issue, then its lists' newest pages); read again for events about this issue only.
  const shownId = useRef<string | undefined>(undefined);
  const loaded = useLive(() => inTurn(() => loadIssue(issueKey, lists)), [issueKey], { cost: 2, wants: aboutIssue(() => shownId.current) });
  shownId.current = loaded.data?.issue?.rowId;
  const [, shown] = useState(0);
  const [reading, setReading] = useState<ListName>();
  const [body, setBody] = useDraft(draftKey(meta.viewerId, issueKey));
  const problem = useWriteProblem();
  const commentProblem = useWriteProblem();
  const readProblem = useWriteProblem();
  const [editing, setEditing] = useState<'title' | 'description' | `comment:${string}` | `delete:${string}`>();
  const [posting, setPosting] = useState(false);
  // What the comments' message is about ('new': the comment box; else a comment's id), so that field is tied to it.
  const [commentAt, setCommentAt] = useState<string>();
  // The editor the page's own message (`problem`) is about, if one: only that field is tied to it. It was tied to
  // whichever was open (the title field read out the description's refusal).
  const [problemAt, setProblemAt] = useState<'title' | 'description'>();
  // An editor's message goes when the editor closes (Escape, Cancel, another editor opened): a blank title's stayed
  // on the page until some later write succeeded.
  const wasEditing = useRef(editing);
  useEffect(() => {
    const was = wasEditing.current;
    wasEditing.current = editing;
    if (!was || was === editing) return;
    if (was === problemAt) { problem.clear(); setProblemAt(undefined); }
    if (commentAt && was.endsWith(`:${commentAt}`)) commentProblem.clear();
  }, [editing]);
  const editTitle = useRef<HTMLButtonElement>(null);
  const d = loaded.data;
  useArrival(Boolean(d));
  const shownTitle = d?.issue?.title;
  useEffect(() => { document.title = `${issueKey}${shownTitle ? ` ${shownTitle}` : ''} · ${meta.workspace.name}`; }, [issueKey, shownTitle, meta.workspace.name]);
  if (loaded.error && !d) return <main class="page"><p class="error" role="alert">{loaded.error}</p></main>;
  if (!d) return <main class="page"><p>Loading…</p></main>;
  if (!d.issue) return <main class="page"><h1 class="sr-only" tabIndex={-1}>{issueKey}</h1><p class="empty">No issue {issueKey} (or this key may not see it). <a href="#/board">Back to the board</a></p></main>;
  const i = d.issue;
  const L = lists.current.issueId === i.rowId ? lists.current : noLists(i.rowId);
  /**
   * Reads the page before each list's first row ("Show earlier") or a page of its gap, and keeps it. How many rows
   * came is said; the focus stays on the button (disabled while reading, which dropped it on <body>) or, once the
   * button is gone, goes to the first row it brought (a comment or an event itself, else its first link or button).
   */
  const readMore = (names: ListName[], what: 'earlier' | 'gap', button?: HTMLElement) => inTurn(async () => {
    const rows = () => [...document.querySelectorAll<HTMLElement>(names.map((n) => ROWS[n]).join(', '))];
    const before = new Set(rows().map((r) => r.dataset.id));
    let read = false;
    setReading(names[0]);
    try {
      for (const n of names) {
        const w = lists.current[n];
        if (lists.current.issueId !== i.rowId) return;
        if (what === 'earlier') {
          const before = earlierBefore(w);
          if (!w.earlier || !before) continue;
          const page = await gql(EARLIER(n), { id: i.rowId, before });
          lists.current = { ...lists.current, [n]: withEarlier(w, page[n]) };
        } else if (w.gap) {
          const page = await gql(GAP(n), { id: i.rowId, ...gapRange(w) });
          lists.current = { ...lists.current, [n]: withGap(w, page[n]) };
        }
      }
      readProblem.clear();
      read = true;
    } catch (err) {
      readProblem.failed(err as Error, 'loaded');
    } finally {
      setReading(undefined);
      shown((n) => n + 1);
    }
    setTimeout(() => { // once the page shows what was read
      const brought = rows().filter((r) => !before.has(r.dataset.id));
      const noun = GAP_NOUN[names[0]!];
      if (read) say(brought.length ? `${brought.length.toLocaleString('en')} more ${brought.length === 1 ? noun.slice(0, -1) : noun} shown` : `No more ${noun}`);
      refocus(() => (button?.isConnected ? button : null),
        () => (brought[0]?.matches('[tabindex]') ? brought[0] : brought[0]?.querySelector('a, button')));
    });
  });
  /** A comment edited or deleted in the earlier pages (which the live reads leave as they are): changed there too. */
  const keepComment = (id: string, deleted: boolean) => inTurn(async () => {
    if (lists.current.issueId !== i.rowId || !keptRow(lists.current.comments, id, byRowId)) return;
    const row = deleted ? null : (await gql(ONE_COMMENT, { id }).catch(() => undefined))?.comment;
    if (row === undefined) return;
    lists.current = { ...lists.current, comments: withRow(lists.current.comments, id, byRowId, row) };
    shown((n) => n + 1);
  });
  const more = (names: ListName[], what: 'earlier' | 'gap', text: string, id?: string) => (
    <button type="button" class={`link more ${what}`} id={id} disabled={reading !== undefined} onClick={(e) => void readMore(names, what, e.currentTarget)}>
      {reading === names[0] ? 'Loading…' : text}
    </button>
  );
  const gapMarker = (name: ListName, tag: 'li' | 'p' = 'p') => {
    const Tag = tag;
    return <Tag key={`gap-${name}`} class="gap">{more([name], 'gap', `Show the ${GAP_NOUN[name]} in between`)}</Tag>;
  };
  const comments = rowsOf<Comment>(L.comments);
  const timeline = rowsOf<TimelineEvent>(L.timeline);
  const attachments = rowsOf<any>(L.attachments);
  const relationsFrom = rowsOf<any>(L.relationsFrom);
  const relationsTo = rowsOf<any>(L.relationsTo);
  const writable = may(meta, 'WRITE_ISSUES');
  const commentable = may(meta, 'WRITE_COMMENTS');
  // comments.update / delete: the author (a person's key for a comment no agent wrote), or an OWNER/ADMIN person.
  const mayChange = (c: Comment) => commentable && ((!c.authoringAgentId && c.authorUserId !== null && c.authorUserId === meta.viewerId)
    || meta.role === 'OWNER' || meta.role === 'ADMIN');

  /**
   * One write (a catalog tool as a mutation), then the page read again before it settles (so a control shows the
   * saved value, never the old one in between), and `done` said in the live region ("Status saved"). A refusal, or
   * no answer, is said as "not saved"; the controls then show the saved values at once. Nothing is retried by itself.
   */
  const write = async (mutation: string, variables: Record<string, unknown>, done: string,
    { shown = problem, verb, about }: { shown?: WriteProblem; verb?: string; about?: 'title' | 'description' } = {}): Promise<boolean> => {
    try {
      await gql(mutation, { id: i.rowId, ...variables });
      shown.clear();
    } catch (err) {
      shown.failed(err as Error, verb);
      if (shown === problem) setProblemAt(about);
      return false;
    }
    await loaded.reload();
    say(done);
    return true;
  };
  const update = (fields: Record<string, unknown>, done: string, about?: 'title' | 'description') => write(UPDATE, fields, done, { about });
  // Agents are assigned (issues.assign opens their run); people claim (issues.claim, for the key's own user).
  const assign = (agentId: string) => write('mutation Assign($id: String!, $agentId: String) { issuesAssign(id: $id, agentId: $agentId) }', { agentId },
    `Assigned to ${meta.agents.find((a) => a.rowId === agentId)?.name ?? 'the agent'}`);
  const unassign = () => write('mutation Unassign($id: String!) { issuesUnassign(id: $id) }', {}, 'Unassigned');
  const claimedByMe = Boolean(i.claimedById && i.claimedById === meta.viewerId && (!i.claimExpiresAt || new Date(i.claimExpiresAt) > new Date()));
  const claim = () => write(claimedByMe
    ? 'mutation Release($id: String!) { issuesRelease(id: $id) }'
    : 'mutation Claim($id: String!) { issuesClaim(id: $id) }', {}, claimedByMe ? 'Released' : 'Claimed');
  /** Removes a label; the focus goes to the × after it (or before it, or "Add a label…"), not to <body>. */
  const removeLabel = (label: { rowId: string; name: string }, n: number) => write(REMOVE_LABELS, { labelIds: [label.rowId] }, `Label ${label.name} removed`)
    .then(() => refocus(() => document.querySelectorAll('#labels .remove-label')[n], () => document.querySelectorAll('#labels .remove-label')[n - 1], '#issue-add-label'));
  /**
   * Adds a label. "Add a label…" keeps the focus, but goes with the last label there was to add: the focus then goes
   * to the new label's × (it fell to <body>).
   */
  const addLabel = (labelId: string) => write(ADD_LABELS, { labelIds: [labelId] }, `Label ${meta.labels.find((l) => l.rowId === labelId)?.name ?? ''} added`)
    .then(() => refocus(`#labels .label-item[data-id="${CSS.escape(labelId)}"] .remove-label`, '#edit-description', 'main h1'));
  const agents = meta.agents.filter((a) => a.rowId !== i.assignedAgentId);
  const labelIds: string[] = i.issueLabels.nodes.map((l: any) => l.label.rowId);
  const addable = meta.labels.filter((l) => !labelIds.includes(l.rowId));
  const comment = async (e: Event) => {
    e.preventDefault();
    setPosting(true);
    setCommentAt('new');
    try {
      await gql(COMMENT, { i: i.rowId, b: body });
      setBody('');
      commentProblem.clear();
      await loaded.reload();
      say('Comment posted');
    } catch (err) {
      // The text stays in the box (and in the tab's draft) to post again.
      commentProblem.failed(err as Error, 'posted');
    } finally {
      setPosting(false);
      // The button is disabled while posting, which drops the focus: back in the box, to write on or fix the text.
      refocus('.new-comment textarea');
    }
  };
  // Back on "Edit title" once the field goes (a keyboard user stays where they were).
  const closeTitle = () => { setEditing(undefined); refocus(() => editTitle.current); };
  /** Closes a comment's editor or delete prompt: the focus goes back to the button that opened it. */
  const closeComment = (id: string, button: 'edit' | 'delete') => {
    setEditing(undefined);
    refocus(`.comment[data-id="${id}"] .comment-${button}`);
  };
  const byWhom = (c: Comment) => `by ${personName(meta, c.authorUserId, c.authorUser) ?? 'someone'} at ${when(c.createdAt)}`;
  const closeDescription = () => { setEditing(undefined); refocus('#edit-description'); };
  const back = openedFrom();
  const saveTitle = async (typed: string) => {
    // Counted and sent composed (NFC), as the service stores it: 300 "o" + U+0308 are 300 characters, not 600.
    const title = composed(typed);
    // A blank title is not sent: the issue keeps its own, and the field stays open with what was typed.
    const long = tooLong(title, TITLE_MAX, 'title');
    if (!title || long) {
      problem.said(long ? `Not saved: ${long}` : EMPTY_TITLE);
      setProblemAt('title');
      document.getElementById('title-input')?.focus();
      return;
    }
    if (title === i.title || await update({ title }, 'Title saved', 'title')) closeTitle();
  };

  return (
    <main class="page issue" data-key={i.key}>
      {/* Back to the board, list or Agents address it was opened from (its filters and search), else the list. */}
      <p><a href={back?.href ?? '#/list'}>← {back?.name ?? 'Issues'}</a></p>
      <div class="issue-head">
        <h1 tabIndex={-1}><span class="key">{i.key}</span> {editing !== 'title' && <bdi id="issue-title">{i.title}</bdi>}</h1>
        {editing === 'title'
          ? <TitleForm initial={i.title} onSave={saveTitle} onCancel={closeTitle} problem={problemAt === 'title' ? problem : undefined} />
          : writable && <button type="button" id="edit-title" class="link" ref={editTitle} onClick={() => setEditing('title')}>Edit title</button>}
      </div>
      {problem.text && <p class="error" id="issue-error" role="alert">{problem.text}</p>}
      {readProblem.text && <p class="error" id="read-error" role="alert">{readProblem.text}</p>}
      {!writable && <p class="hint" id="issue-readonly">{NO_WRITE_ISSUES}</p>}
      <div class="layout">
        {/* First in the page's order, so Tab reaches Status and Priority before the description and the comment box. */}
        <aside class="side" aria-labelledby="details-title">
          {/* The sidebar's headings (and the run's Summary) are in CSS capitals: named in their own case, as the board's
              column headings are (their capitals were their names, "RELATIONS"). */}
          <h2 id="details-title" class="sr-only" aria-label="Details">Details</h2>
          <label>Status
            <CommitSelect id="issue-status" value={i.statusId} disabled={!writable} title={writable ? undefined : NO_WRITE_ISSUES}
              onCommit={(statusId) => update({ statusId }, 'Status saved')}>
              {meta.statuses.map((s) => <option key={s.rowId} value={s.rowId}>{s.name}</option>)}
            </CommitSelect>
          </label>
          <label>Priority
            <CommitSelect id="issue-priority" value={i.priority} disabled={!writable} title={writable ? undefined : NO_WRITE_ISSUES}
              onCommit={(priority) => update({ priority }, 'Priority saved')}>
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
              <label class="check"><CommitCheckbox id="issue-queued" checked={Boolean(i.queued)} onCommit={(queued) => update({ queued }, queued ? 'Queued for the dispatcher' : 'Taken out of the queue')} /> Queued for the dispatcher</label>
            </div>
          )}
          <dl>
            <dt>Assignee</dt>
            <dd id="assignee">{i.assignedAgent && <>Agent: <bdi>{i.assignedAgent.name}</bdi> ({i.assignedAgent.status})</>}{i.assignedAgent && i.claimedBy ? ', ' : ''}{named(personName(meta, i.claimedById, i.claimedBy)) ?? (i.assignedAgent ? '' : 'Nobody')}</dd>
            <dt>Labels</dt>
            <dd id="labels">
              {i.issueLabels.nodes.length === 0 && <span class="meta">None</span>}
              {i.issueLabels.nodes.map((l: any, n: number) => (
                <span key={l.label.rowId} class="label-item" data-id={l.label.rowId}>
                  <LabelChip name={l.label.name} color={l.label.color} />
                  {writable && <button type="button" class="link remove-label" aria-label={`Remove the label ${l.label.name}`} title={`Remove the label ${l.label.name}`}
                    onClick={() => void removeLabel(l.label, n)}>×</button>}
                </span>
              ))}
              {writable && addable.length > 0 && (
                <CommitSelect id="issue-add-label" value="" label="Add a label" onCommit={addLabel}>
                  <option value="">Add a label…</option>
                  {addable.map((l) => <option key={l.rowId} value={l.rowId}>{l.name}</option>)}
                </CommitSelect>
              )}
            </dd>
            {i.project && <><dt>Project</dt><dd><bdi>{i.project.name}</bdi></dd></>}
            {i.cycle && <><dt>Cycle</dt><dd><bdi>{i.cycle.name}</bdi></dd></>}
            {i.parent && <><dt>Parent</dt><dd><a href={`#/issue/${i.parent.key}`}>{i.parent.key}</a> <bdi>{i.parent.title}</bdi></dd></>}
            {i.dueDate && <><dt>Due</dt><dd>{i.dueDate}</dd></>}
            <dt>Created</dt><dd>{when(i.createdAt)} by {i.createdByAgent ? <>agent <bdi>{i.createdByAgent.name}</bdi></> : named(personName(meta, i.createdByUserId, i.createdByUser))}</dd>
          </dl>
          <h2 aria-label="Relations">Relations</h2>
          {relationsNote(L) && <p class="meta list-note" id="relations-count">{relationsNote(L)}</p>}
          <ul id="relations">
            {withGapAt(relationsFrom.rows, relationsFrom.gapAt,
              (r) => r.toIssue && <li key={r.rowId} data-id={r.rowId}>{relationWords(r.kind)} <a href={`#/issue/${r.toIssue.key}`}>{r.toIssue.key}</a> <bdi>{r.toIssue.title}</bdi></li>,
              () => gapMarker('relationsFrom', 'li'))}
            {withGapAt(relationsTo.rows, relationsTo.gapAt,
              (r) => r.fromIssue && <li key={r.rowId} data-id={r.rowId}><a href={`#/issue/${r.fromIssue.key}`}>{r.fromIssue.key}</a> <bdi>{r.fromIssue.title}</bdi> {relationWords(r.kind)} this</li>,
              () => gapMarker('relationsTo', 'li'))}
            {!relationsFrom.rows.some((r) => r.toIssue) && !relationsTo.rows.some((r) => r.fromIssue) && <li class="meta">None</li>}
          </ul>
          {(L.relationsFrom.earlier || L.relationsTo.earlier) && more(['relationsFrom', 'relationsTo'], 'earlier', 'Show more relations', 'relations-earlier')}
          <h2 aria-label="Attachments">Attachments</h2>
          {showing(L.attachments, 'attachments') && <p class="meta list-note" id="attachments-count">{showing(L.attachments, 'attachments')}</p>}
          {L.attachments.earlier && more(['attachments'], 'earlier', 'Show earlier attachments', 'attachments-earlier')}
          <ul id="attachments">
            {attachments.rows.length === 0 && <li class="meta">None</li>}
            {withGapAt(attachments.rows, attachments.gapAt, (a: any) => (
              <li key={a.rowId} data-id={a.rowId}>{a.externalUrl && /^https?:/.test(a.externalUrl)
                ? <a href={a.externalUrl} rel="noopener noreferrer" target="_blank"><bdi>{a.linkTitle || a.externalUrl}</bdi></a>
                : <span><button type="button" class="link download" data-id={a.rowId} onClick={() => download(a.rowId)}><bdi>{a.filename ?? a.linkTitle}</bdi></button>
                    {' '}<span class="meta">({a.mimeType}, {a.sizeBytes} bytes)</span></span>}</li>
            ), () => gapMarker('attachments', 'li'))}
          </ul>
          {/* Focusable: where the focus goes once the last open request is decided (its buttons go). */}
          {i.actionRequests.nodes.length > 0 && <h2 id="requests-title" aria-label="Requests" tabIndex={-1}>Requests</h2>}
          {i.actionRequests.nodes.map((r: Request) => <RequestCard key={r.rowId} request={r} canAct={writable} viewerId={meta.viewerId} onDone={loaded.reload} />)}
        </aside>

        <div class="body">
          <section class="description-box" aria-labelledby="description-title">
            <h2 id="description-title">Description</h2>
            {editing === 'description'
              ? <MarkdownEditor id="description-input" label="Description" initial={i.description ?? ''} saveText="Save description"
                  error={problemAt === 'description' ? { problem, id: 'issue-error' } : undefined}
                  onSave={async (text) => {
                    const ok = await update({ description: text.trim() ? text : null }, 'Description saved', 'description');
                    if (ok) closeDescription();
                    return ok;
                  }}
                  onCancel={closeDescription} />
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
                    <li key={c.id} data-id={c.id} class={c.done ? 'done' : ''}>{c.done ? '☑' : '☐'} <bdi>{c.label}</bdi></li>
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
                <dt>Agent</dt><dd><bdi>{d.run.agent?.name}</bdi></dd>
                <dt>Status</dt><dd>{d.run.status}{d.run.controlState ? ` (${d.run.controlState})` : ''}</dd>
                <dt>Mode</dt><dd class="mode">{d.run.engagementMode}</dd>
                <dt>Step</dt><dd class="step">{d.run.currentStep ?? '—'}</dd>
                <dt>Tokens</dt><dd class="tokens">{Number(d.run.tokensIn) + Number(d.run.tokensOut)} ({d.run.tokensIn} in, {d.run.tokensOut} out, {d.run.tokensCached} cached)</dd>
                <dt>Cost</dt><dd class="cost">${Number(d.run.costUsd).toFixed(4)}</dd>
                <dt>Started</dt><dd>{when(d.run.startedAt)}{d.run.finishedAt ? `, finished ${when(d.run.finishedAt)}` : ''}</dd>
              </dl>
              {d.run.completionMeta?.summary && (
                <div class="summary"><h3 aria-label="Summary">Summary</h3><div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(String(d.run.completionMeta.summary)) }} /></div>
              )}
            </section>
          )}

          <section class="timeline" id="timeline">
            <h2>Timeline</h2>
            {showing(L.timeline, 'events') && <p class="meta list-note" id="timeline-count">{showing(L.timeline, 'events')}</p>}
            <ol>
              {/* Newest first (read oldest first, in pages). ISSUE_ASSIGNED is always followed by AGENT_ASSIGNED, which
                  says who, how and why: one line for both. */}
              {timeline.rows.flatMap((ev, n) => [
                n === timeline.gapAt && gapMarker('timeline', 'li'),
                ev.kind !== 'ISSUE_ASSIGNED' && <li key={ev.rowId} data-id={ev.rowId} data-kind={ev.kind} tabIndex={-1}><span class="meta">{when(ev.createdAt)}</span> {describeEvent(ev, meta)}</li>,
              ]).reverse()}
            </ol>
            {L.timeline.earlier && more(['timeline'], 'earlier', 'Show older events', 'timeline-earlier')}
          </section>

          <section class="comments" id="comments">
            <h2>Comments</h2>
            {showing(L.comments, 'comments') && <p class="meta list-note" id="comments-count">{showing(L.comments, 'comments')}</p>}
            {L.comments.earlier && more(['comments'], 'earlier', 'Show earlier comments', 'comments-earlier')}
            {withGapAt(comments.rows, comments.gapAt, (c) => (
              // Focusable (not a Tab stop): "Show earlier comments" gives the focus to the first one it brought.
              <article key={c.rowId} class="comment" data-id={c.rowId} tabIndex={-1}>
                <header>
                  {/* Names isolated from what follows them: an author's name ending in Arabic took the date into its run. */}
                  <strong class="author"><bdi>{personName(meta, c.authorUserId, c.authorUser) ?? 'someone'}</bdi></strong>
                  {c.authoringAgent && <span class="badge agent">via agent <bdi>{c.authoringAgent.name}</bdi></span>}
                  {/* Spec 2.4: confidence is kept for every comment, shown only for agent-authored ones. */}
                  {c.authoringAgent && c.confidence && <span class={`badge confidence c-${c.confidence}`}>confidence {c.confidence}</span>}
                  {c.kind !== 'COMMENT' && <span class="badge">{c.kind}</span>}
                  <span class="meta"> {when(c.createdAt)}{c.editedAt ? ' (edited)' : ''}</span>
                  {mayChange(c) && editing !== `comment:${c.rowId}` && editing !== `delete:${c.rowId}` && (
                    // Named by their comment ("Edit comment by Ada at …"): every comment has an Edit and a Delete.
                    <span class="comment-tools">
                      <button type="button" class="link comment-edit" onClick={() => setEditing(`comment:${c.rowId}`)}>Edit<span class="sr-only"> comment {byWhom(c)}</span></button>
                      <button type="button" class="link comment-delete" onClick={() => setEditing(`delete:${c.rowId}`)}>Delete<span class="sr-only"> comment {byWhom(c)}</span></button>
                    </span>
                  )}
                </header>
                {editing === `comment:${c.rowId}`
                  ? <MarkdownEditor id={`comment-input-${c.rowId}`} label="Edit the comment" initial={c.body} saveText="Save comment"
                      error={commentAt === c.rowId ? { problem: commentProblem, id: 'comment-error' } : undefined}
                      onSave={async (text) => {
                        setCommentAt(c.rowId);
                        // A comment emptied is not sent (commentsUpdate refuses it): deleting it is the way.
                        if (!text.trim()) {
                          commentProblem.said(EMPTY_COMMENT);
                          return false;
                        }
                        const ok = await write(EDIT_COMMENT, { id: c.rowId, body: text }, 'Comment saved', { shown: commentProblem });
                        if (ok) { closeComment(c.rowId, 'edit'); void keepComment(c.rowId, false); }
                        return ok;
                      }}
                      onCancel={() => closeComment(c.rowId, 'edit')} />
                  : <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(c.body) }} />}
                {editing === `delete:${c.rowId}` && (
                  <ConfirmDelete onKeep={() => closeComment(c.rowId, 'delete')}
                    onDelete={async () => {
                      setCommentAt(c.rowId);
                      if (await write(DELETE_COMMENT, { id: c.rowId }, 'Comment deleted', { shown: commentProblem, verb: 'deleted' })) {
                        setEditing(undefined);
                        void keepComment(c.rowId, true);
                        refocus('.new-comment textarea', 'main h1'); // the comment and its buttons are gone
                      }
                    }} />
                )}
              </article>
            ), () => gapMarker('comments'))}
            {commentProblem.text && <p class="error" id="comment-error" role="alert">{commentProblem.text}</p>}
            {commentable
              ? <form class="new-comment" onSubmit={comment}>
                  <textarea aria-label="Comment" dir="auto" placeholder="Write a comment (markdown)" value={body} onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)}
                    {...fieldState(commentAt === 'new' && commentProblem.invalid, commentAt === 'new' && commentProblem.text && 'comment-error')} />
                  <button type="submit" disabled={!body.trim() || posting}>Comment</button>
                </form>
              : <p class="hint" id="comment-readonly">This key may not comment (no WRITE_COMMENTS scope).</p>}
          </section>
        </div>
      </div>
    </main>
  );
}
