import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { issuesInWords, refocus, say, shortcutsOn, useArrival } from './a11y.tsx';
import { notUsageReport } from './api.ts';
import { loadList, statusOf, type Filters, type Meta } from './data.ts';
import { useLive } from './hooks.ts';

const PAGE = 100;

/** Where the list was (rows loaded, the selected issue), so coming back from an issue returns to that row. */
let kept: { view: string; limit: number; at: { key?: string; n: number } } | undefined;

/** The list last counted (its filters and search): a new search or filter says how many it finds. */
let counted: string | undefined;

/**
 * A list of issues (filtered and searched by the service, 100 at a time, "Load more" for the next): j/k or the
 * arrows move, Enter opens, / goes to the search box. The selection is the focus (roving: the selected row's link is
 * the list's one Tab stop), so Enter opens it as a link and a screen reader reads it; the arrows are the list's
 * only while the focus is in it (elsewhere they scroll the page), j and k anywhere unless shortcuts are off.
 */
export function List({ meta, filters, query, shortcuts }: { meta: Meta; filters: Filters; query: string; shortcuts: boolean }) {
  const view = JSON.stringify(filters) + '\n' + query;
  const back = kept?.view === view ? kept : undefined;
  const [limit, setLimit] = useState(back?.limit ?? PAGE);
  const issues = useLive(() => loadList(filters, query, limit), [query, JSON.stringify(filters), limit], { wants: notUsageReport });
  // The selection is an issue (its key), so rows arriving above it do not move it to another issue; its row
  // number is kept too, for when the issue leaves the list.
  const [at, setAt] = useState<{ key?: string; n: number }>(back?.at ?? { n: 0 });
  kept = { view, limit, at };
  const list = useRef<HTMLTableSectionElement>(null);
  const shown = issues.data?.items ?? [];
  // The selection is clamped while rendering, so a shorter list never leaves nothing selected.
  const found = at.key === undefined ? -1 : shown.findIndex((i) => i.key === at.key);
  const selected = found >= 0 ? found : Math.min(at.n, Math.max(shown.length - 1, 0));
  // The key handler is registered once and reads what is on screen now: effects run after paint, so a
  // handler re-registered per render would still see the previous list for a moment.
  const onScreen = useRef({ shown, selected });
  onScreen.current = { shown, selected };
  // Set when a key (or "Load more") moves the selection: the selected row's link then takes the focus.
  const focusRow = useRef(false);
  const select = (n: number) => {
    if (n === onScreen.current.selected) return list.current?.querySelector<HTMLElement>('tr.selected td.key a')?.focus();
    focusRow.current = true;
    setAt({ key: onScreen.current.shown[n]?.key, n });
  };
  useArrival(Boolean(issues.data));

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      // Ctrl+J, Meta+K and the like are the browser's.
      // A dialog's buttons (Your profile) are not the list's.
      if (target.matches('input, textarea, select') || target.closest('dialog') || e.ctrlKey || e.metaKey || e.altKey) return;
      const letter = e.key === 'j' || e.key === 'k';
      if (letter ? !shortcutsOn() : !(list.current?.contains(target) && (e.key === 'ArrowDown' || e.key === 'ArrowUp'))) return;
      const { shown, selected } = onScreen.current;
      select(e.key === 'j' || e.key === 'ArrowDown' ? Math.min(selected + 1, Math.max(shown.length - 1, 0)) : Math.max(selected - 1, 0));
      e.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  useLayoutEffect(() => {
    const row = list.current?.querySelector<HTMLElement>('tr.selected');
    if (focusRow.current && row) {
      focusRow.current = false;
      row.querySelector<HTMLElement>('td.key a')?.focus(); // and into view
    } else row?.scrollIntoView({ block: 'nearest' });
  }, [selected, shown.length]);
  // What a new search or filter finds is said (each is a new List); the first list shown is not.
  useEffect(() => {
    if (!issues.data) return;
    if (counted !== undefined && counted !== view) say(issuesInWords(shown.length, Boolean(issues.data.nextCursor)));
    counted = view;
  }, [issues.data]);
  // "Load more": said once read; the last page's button (gone) hands the focus to the first row it brought.
  const moreFrom = useRef<number>();
  useEffect(() => {
    const from = moreFrom.current;
    if (from === undefined || !issues.data || (shown.length <= from && issues.data.nextCursor)) return;
    moreFrom.current = undefined;
    say(`${issuesInWords(shown.length, Boolean(issues.data.nextCursor))} shown`);
    refocus(() => list.current?.querySelectorAll('td.key a')[from]); // and its focus selects the row
  }, [issues.data]);

  return (
    <main class="list">
      <h1 class="sr-only" tabIndex={-1}>Issues · <bdi>{meta.workspace.name}</bdi></h1>
      {issues.error && <p class="error" role="alert">{issues.error}</p>}
      <p class="hint">{shortcuts ? 'j/k or ↑/↓ to move, Enter to open, / to search' : '↑/↓ to move, Enter to open'}</p>
      <table>
        {/* The headers' names in their own case: their CSS capitals were their names ("KEY"). */}
        <thead><tr><th class="key" aria-label="Key">Key</th><th class="title" aria-label="Title">Title</th><th class="status" aria-label="Status">Status</th><th class="priority" aria-label="Priority">Priority</th><th class="assignee" aria-label="Assignee">Assignee</th></tr></thead>
        <tbody ref={list}>
          {shown.map((i, n) => {
            const agent = meta.agents.find((a) => a.rowId === i.assignedAgentId);
            const user = meta.users.find((u) => u.rowId === i.claimedById);
            const assignee = agent ? `Agent: ${agent.name}` : user ? user.name || user.email : '';
            const status = statusOf(meta, i.statusId)?.name;
            return (
              <tr key={i.id} class={n === selected ? 'selected' : ''} data-key={i.key} onClick={() => select(n)}
                onDblClick={() => { location.hash = `#/issue/${i.key}`; }}>
                {/* The row's one focusable control, read with its title and status; focusing it (Tab, a click)
                    selects its row. */}
                <td class="key"><a href={`#/issue/${i.key}`} tabIndex={n === selected ? 0 : -1} aria-describedby={`row-${i.id}-title row-${i.id}-status`}
                  onFocus={() => { if (n !== onScreen.current.selected) setAt({ key: i.key, n }); }}>{i.key}</a></td>
                <td class="title" id={`row-${i.id}-title`}><bdi>{i.title}</bdi>
                  {/* On a phone the priority and assignee columns give their width to the title: said under it. */}
                  <span class="row-meta">{i.priority !== 'NONE' ? i.priority : ''}{i.priority !== 'NONE' && assignee ? ' · ' : ''}{assignee && <bdi>{assignee}</bdi>}</span></td>
                {/* Names one line at most so wide, cut with "…" (all of it in the tooltip): a 100-character status
                    made its column 909 px wide on every row and left the title 181 px. */}
                <td class="status" id={`row-${i.id}-status`}><bdi class="name" title={status}>{status}</bdi></td>
                <td class="priority">{i.priority}</td>
                <td class="assignee"><bdi class="name" title={assignee || undefined}>{assignee}</bdi></td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {issues.data && !shown.length && <p class="empty">No issues.</p>}
      {issues.data?.nextCursor && <button type="button" class="link more" onClick={() => { moreFrom.current = shown.length; setLimit((n) => n + PAGE); }}>Load more</button>}
    </main>
  );
}
