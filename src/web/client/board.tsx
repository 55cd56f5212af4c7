import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { issuesInWords, refocus, say, useArrival } from './a11y.tsx';
import { gql, notUsageReport } from './api.ts';
import { COLUMN_PAGE, loadColumns, may, type Filters, type IssueRow, type Meta } from './data.ts';
import { fieldState, useLive, useWriteProblem } from './hooks.ts';
import { composed, TITLE_MAX, tooLong } from './text.ts';

const MOVE = 'mutation Move($id: String!, $statusId: String) { issuesUpdate(id: $id, statusId: $statusId) }';
const CREATE = `mutation Create($title: String!, $statusId: String, $projectId: String, $labelIds: [String!], $priority: String) {
  issuesCreate(title: $title, statusId: $statusId, projectId: $projectId, labelIds: $labelIds, priority: $priority) }`;

/**
 * "New issue" in a column: a title, created in that status, with the board's project, label and priority filters
 * (so it shows where it was made); without a project (label) filter, a narrowed key's first project (label), where
 * it may file it. Enter creates, Escape closes; the service's 400 is shown as it says it.
 */
function NewIssue({ statusId, filters, meta, onDone }: { statusId: string; filters: Filters; meta: Meta; onDone: (created?: string) => void }) {
  const [title, setTitle] = useState('');
  const problem = useWriteProblem();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []); // opened by its button: typing goes here at once
  // The service's limit in characters, said as it is passed (maxLength counted UTF-16 units: 250 emoji at most).
  const long = tooLong(title.trim(), TITLE_MAX, 'title');
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!title.trim()) return;
    if (long) return problem.said(`Not created: ${long}`);
    try {
      // Sent composed (NFC), as it was counted and as the service stores it.
      const made = await gql(CREATE, { title: composed(title), statusId, projectId: filters.project ?? meta.narrowedTo.projects[0] ?? null,
                          labelIds: filters.label ? [filters.label] : meta.narrowedTo.labels.length ? [meta.narrowedTo.labels[0]] : null,
                          priority: filters.priority ?? null });
      onDone(made.issuesCreate?.key ?? 'The issue');
    } catch (err) {
      problem.failed(err as Error, 'created'); // the title stays in the field
    }
  };
  return (
    <form class="new-issue" onSubmit={submit}>
      <input ref={input} aria-label="Title of the new issue" placeholder="Title, then Enter" value={title} dir="auto"
        {...fieldState(long || problem.invalid, long && !problem.text && 'new-issue-too-long', problem.text && 'new-issue-error')}
        onInput={(e) => setTitle((e.target as HTMLInputElement).value)} onKeyDown={(e) => { if (e.key === 'Escape') onDone(); }} />
      {long && !problem.text && <p class="hint too-long" id="new-issue-too-long" role="status">{long}</p>}
      {problem.text && <p class="error" id="new-issue-error" role="alert">{problem.text}</p>}
    </form>
  );
}

/**
 * A label as a chip with its colour as a dot (the name stays readable whatever the colour); a long name ends in
 * "…" (all of it in the tooltip), and is isolated from the text around it (an Arabic name reordered what followed).
 */
export function LabelChip({ name, color }: { name: string; color: string }) {
  return <span class="label" title={name}><i class="dot" style={{ background: color }} /><bdi>{name}</bdi></span>;
}

/**
 * The card that had the focus, while it has it (or lost it by leaving the page's DOM): a live re-read that moves it
 * to another column mounts it anew there, and it takes the focus back if nothing else has it. One that leaves the
 * board (deleted, or no longer found by the search or filters) hands it to the next card of its column, else to the
 * column's "+" or heading (it fell to <body>).
 */
let followed: string | undefined;

export function Card({ issue, meta, movable }: { issue: IssueRow; meta: Meta; movable: boolean }) {
  const agent = meta.agents.find((a) => a.rowId === issue.assignedAgentId);
  const user = meta.users.find((u) => u.rowId === issue.claimedById);
  const labels = meta.labels.filter((l) => issue.labelIds.includes(l.rowId));
  const self = useRef<HTMLAnchorElement>(null);
  useLayoutEffect(() => {
    if (followed === issue.id && document.activeElement === document.body) self.current?.focus();
    return () => {
      // Unmounted while still in the page with the focus (the board itself going, to open it, forgets `followed`
      // first): the cards after it in its column, as they are now; the column is read again once the page shows.
      const card = self.current;
      if (followed !== issue.id || !card || document.activeElement !== card) return;
      const column = card.closest('.column');
      const cards = [...(column?.querySelectorAll<HTMLElement>('.card') ?? [])];
      const after = cards.slice(cards.indexOf(card) + 1);
      const there = (el: Element | null | undefined) => (el?.isConnected ? el : null);
      refocus(() => document.querySelector(`#board .card[data-id="${CSS.escape(issue.id)}"]`), () => after.find((c) => c.isConnected),
        () => there(column?.querySelector('h2 .add')), () => there(column?.querySelector('h2')));
    };
  }, []);
  // Its name says the priority and labels in words ("priority HIGH", "labels: a11y"), after the key and title; the
  // chips and the floated priority are for the eye.
  return (
    <a class={`card${movable ? '' : ' fixed'}`} href={`#/issue/${issue.key}`} draggable={movable} data-id={issue.id} data-key={issue.key} ref={self}
      onFocus={() => { followed = issue.id; }} onBlur={(e) => { if (e.relatedTarget) followed = undefined; }}
      onDragStart={(e) => e.dataTransfer?.setData('text/plain', issue.id)}>
      {issue.priority !== 'NONE' && <span class={`priority p-${issue.priority}`} aria-hidden="true">{issue.priority}</span>}
      {/* A long title is cut at three lines here (its whole text in the tooltip and on the issue page). */}
      <span class="key">{issue.key}</span> <bdi class="title" title={issue.title}>{issue.title}</bdi>
      {(issue.priority !== 'NONE' || labels.length > 0) && <span class="sr-only">{[
        issue.priority !== 'NONE' && `, priority ${issue.priority}`, labels.length > 0 && `, labels: ${labels.map((l) => l.name).join(', ')}`,
      ].filter(Boolean).join('')}</span>}
      {labels.length > 0 && <span class="labels" aria-hidden="true">{labels.map((l) => <LabelChip key={l.rowId} name={l.name} color={l.color} />)}</span>}
      {(agent || user) && <span class="assignee">{agent ? <>Agent: <bdi>{agent.name}</bdi></> : <bdi>{user!.name || user!.email}</bdi>}</span>}
    </a>
  );
}

/** The board's "Show more" pages, kept when an issue is opened: back on the board, the card opened is still there. */
let keptPages: { scope: string; limits: Record<string, number> } | undefined;

/**
 * Status columns, each its first 50 issues with the filters applied by the service (over every issue of the
 * workspace, not only those on screen), "Show more" for 50 more; drop a card on a column to move it there
 * (issuesUpdate over /graphql); cards do not move for a key without WRITE_ISSUES.
 */
export function Board({ meta, filters, query }: { meta: Meta; filters: Filters; query: string }) {
  // "Show more" pages, per column, for what is searched and filtered now: a new search starts from the first page.
  const scope = query + '\n' + JSON.stringify(filters);
  const [paged, setPaged] = useState<{ scope: string; limits: Record<string, number> }>(() => keptPages?.scope === scope ? keptPages : { scope, limits: {} });
  keptPages = paged;
  const limits = paged.scope === scope ? paged.limits : {};
  // Forgotten once the search changes (coming back to it starts from its first page again).
  useEffect(() => { if (paged.scope !== scope) setPaged({ scope, limits: {} }); }, [scope]);
  const setLimits = (next: (l: Record<string, number>) => Record<string, number>) => setPaged({ scope, limits: next(limits) });
  // One issuesList call per column. Columns read for another search are not shown while this one loads.
  const columns = useLive(async () => ({ scope, columns: await loadColumns(meta.statuses, limits, filters, query) }),
    [scope, JSON.stringify(limits)], { cost: meta.statuses.length, wants: notUsageReport });
  const loaded = columns.data?.scope === scope ? columns.data.columns : undefined;
  useArrival(Boolean(loaded));
  useEffect(() => () => { followed = undefined; }, []);
  // What a new search or filter finds is said (the first read is not: the view's h1 has the focus then).
  const counted = useRef(scope);
  useEffect(() => {
    if (!loaded || counted.current === scope) return;
    counted.current = scope;
    const pages = Object.values(loaded);
    say(issuesInWords(pages.reduce((n, p) => n + p.items.length, 0), pages.some((p) => p.nextCursor)));
  }, [loaded]);
  // "Show more" asked in a column: once its page is read, said, and the last page's button (gone) hands the focus
  // to the first card it brought.
  const moreAsked = useRef<{ status: string; name: string; from: number }>();
  useEffect(() => {
    const asked = moreAsked.current;
    const page = asked && loaded?.[asked.status];
    if (!asked || !page || (page.items.length <= asked.from && page.nextCursor)) return;
    moreAsked.current = undefined;
    say(`${asked.name}: ${issuesInWords(page.items.length, Boolean(page.nextCursor))}`);
    refocus(() => document.querySelectorAll(`#board .column[data-status="${CSS.escape(asked.status)}"] .card`)[asked.from]);
  }, [loaded]);
  const [moved, setMoved] = useState<Record<string, string>>({});
  const [over, setOver] = useState<string>();
  const problem = useWriteProblem();
  const [adding, setAdding] = useState<string>();
  // The "+" buttons by status: the form, once closed (Escape, or the issue made), gives the focus back to its own.
  const addButtons = useRef<Record<string, HTMLButtonElement | null>>({});
  const movable = may(meta, 'WRITE_ISSUES');
  const all = Object.values(loaded ?? {}).flatMap((page) => page.items);
  const shown = all.map((i) => (moved[i.id] ? { ...i, statusId: moved[i.id]! } : i));

  const drop = async (statusId: string, id: string) => {
    const issue = shown.find((i) => i.id === id);
    if (!movable || !issue || issue.statusId === statusId) return;
    setMoved((m) => ({ ...m, [id]: statusId })); // optimistic; the stream brings the truth
    try {
      await gql(MOVE, { id, statusId });
      problem.clear();
    } catch (err) {
      problem.failed(err as Error, 'moved');
    }
    // The card stays where it was dropped until the board's read with the move (or the refusal) is on screen.
    await columns.reload();
    setMoved((m) => Object.fromEntries(Object.entries(m).filter(([k]) => k !== id)));
  };

  return (
    <>
      {(problem.text || columns.error) && <p class="error" role="alert">{problem.text ?? columns.error}</p>}
      <main id="board" class="board">
        <h1 class="sr-only" tabIndex={-1}>Board · <bdi>{meta.workspace.name}</bdi></h1>
        {meta.statuses.map((s) => {
          const cards = shown.filter((i) => i.statusId === s.rowId);
          const more = Boolean(loaded?.[s.rowId]?.nextCursor);
          const limit = limits[s.rowId] ?? COLUMN_PAGE;
          const id = `column-${s.rowId}`;
          // A region named by its status and the count in words ("Backlog, 50 or more issues"), as its heading is
          // (without the "+" button inside it; from text not laid out, so not in the heading's capitals).
          return (
            <section key={s.rowId} class={`column${over === s.rowId ? ' over' : ''}`} data-status={s.rowId} data-category={s.category} aria-labelledby={`${id}-heading`}
              onDragOver={(e) => { if (!movable) return; e.preventDefault(); setOver(s.rowId); }}
              onDragLeave={() => setOver(undefined)}
              onDrop={(e) => { e.preventDefault(); setOver(undefined); drop(s.rowId, e.dataTransfer?.getData('text/plain') ?? ''); }}>
              {/* The name isolated (it was bare text beside the count: a tester read "1 · בבדיקה") and cut with "…" at
                  the column's width, all of it in the tooltip (100 characters ran over the next column's header). */}
              <span id={`${id}-heading`} hidden>{`${s.name}, ${issuesInWords(cards.length, more)}`}</span>
              {/* Focusable (not a Tab stop): where the focus goes from a card that left the column, for a key without "+". */}
              <h2 aria-labelledby={`${id}-heading`} tabIndex={-1}><bdi class="name" title={s.name}>{s.name}</bdi> · <span class="count">{cards.length}{more ? '+' : ''}</span>
                {movable && <button type="button" class="link add" title={`New issue in ${s.name}`} aria-label={`New issue in ${s.name}`}
                  ref={(el) => { addButtons.current[s.rowId] = el; }} onClick={() => setAdding(s.rowId)}>+</button>}</h2>
              {adding === s.rowId && <NewIssue statusId={s.rowId} filters={filters} meta={meta} onDone={(created) => {
                setAdding(undefined);
                addButtons.current[s.rowId]?.focus();
                if (created) void columns.reload().then(() => say(`${created} created in ${s.name}`));
              }} />}
              <ul class="cards">{cards.map((i) => <li key={i.id}><Card issue={i} meta={meta} movable={movable} /></li>)}</ul>
              {more && (limit < 200
                ? <button type="button" class="link more" onClick={() => {
                    moreAsked.current = { status: s.rowId, name: s.name, from: cards.length };
                    setLimits((l) => ({ ...l, [s.rowId]: limit + COLUMN_PAGE }));
                  }}>Show more<span class="sr-only"> in {s.name}</span></button>
                : <p class="hint">More in the <a href="#/list">list</a>; filter to narrow it.</p>)}
            </section>
          );
        })}
      </main>
    </>
  );
}
