import { useEffect, useRef, useState } from 'preact/hooks';
import { notUsageReport } from './api.ts';
import { loadList, statusOf, type Filters, type Meta } from './data.ts';
import { useLive } from './hooks.ts';

const PAGE = 100;

/** Where the list was (rows loaded, the selected issue), so coming back from an issue returns to that row. */
let kept: { view: string; limit: number; at: { key?: string; n: number } } | undefined;

/**
 * A list of issues (filtered and searched by the service, 100 at a time, "Load more" for the next): j/k or the
 * arrows move, Enter opens, / goes to the search box.
 */
export function List({ meta, filters, query }: { meta: Meta; filters: Filters; query: string }) {
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

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      // Ctrl+J, Meta+K and the like are the browser's.
      // A dialog's buttons (Your profile) are not the list's.
      if (target.matches('input, textarea, select') || target.closest('dialog') || e.ctrlKey || e.metaKey || e.altKey) return;
      const { shown, selected } = onScreen.current;
      const last = Math.max(shown.length - 1, 0);
      const select = (n: number) => setAt({ key: shown[n]?.key, n });
      if (e.key === 'j' || e.key === 'ArrowDown') select(Math.min(selected + 1, last));
      else if (e.key === 'k' || e.key === 'ArrowUp') select(Math.max(selected - 1, 0));
      // Enter on a focused link or button is that control's own (sign out, load more, a key's link).
      else if (e.key === 'Enter' && !target.closest('a, button') && shown[selected]) location.hash = `#/issue/${shown[selected]!.key}`;
      else return;
      e.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    list.current?.querySelector('tr.selected')?.scrollIntoView({ block: 'nearest' });
  }, [selected, shown.length]);

  return (
    <main class="list">
      <h1 class="sr-only">Issues · <bdi>{meta.workspace.name}</bdi></h1>
      {issues.error && <p class="error" role="alert">{issues.error}</p>}
      <p class="hint">j/k or ↑/↓ to move, Enter to open, / to search</p>
      <table>
        <thead><tr><th class="key">Key</th><th class="title">Title</th><th class="status">Status</th><th class="priority">Priority</th><th class="assignee">Assignee</th></tr></thead>
        <tbody ref={list}>
          {shown.map((i, n) => {
            const agent = meta.agents.find((a) => a.rowId === i.assignedAgentId);
            const user = meta.users.find((u) => u.rowId === i.claimedById);
            const assignee = agent ? `Agent: ${agent.name}` : user ? user.name || user.email : '';
            const status = statusOf(meta, i.statusId)?.name;
            return (
              <tr key={i.id} class={n === selected ? 'selected' : ''} data-key={i.key} aria-selected={n === selected} onClick={() => setAt({ key: i.key, n })}
                onDblClick={() => { location.hash = `#/issue/${i.key}`; }}>
                <td class="key"><a href={`#/issue/${i.key}`}>{i.key}</a></td>
                <td class="title"><bdi>{i.title}</bdi>
                  {/* On a phone the priority and assignee columns give their width to the title: said under it. */}
                  <span class="row-meta">{i.priority !== 'NONE' ? i.priority : ''}{i.priority !== 'NONE' && assignee ? ' · ' : ''}{assignee && <bdi>{assignee}</bdi>}</span></td>
                {/* Names one line at most so wide, cut with "…" (all of it in the tooltip): a 100-character status
                    made its column 909 px wide on every row and left the title 181 px. */}
                <td class="status"><bdi class="name" title={status}>{status}</bdi></td>
                <td class="priority">{i.priority}</td>
                <td class="assignee"><bdi class="name" title={assignee || undefined}>{assignee}</bdi></td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {issues.data && !shown.length && <p class="empty">No issues.</p>}
      {issues.data?.nextCursor && <button type="button" class="link more" onClick={() => setLimit((n) => n + PAGE)}>Load more</button>}
    </main>
  );
}
