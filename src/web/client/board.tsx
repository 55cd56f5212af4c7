import { useState } from 'preact/hooks';
import { gql } from './api.ts';
import { COLUMN_PAGE, loadColumns, type Filters, type IssueRow, type Meta } from './data.ts';
import { useLive } from './hooks.ts';

const MOVE = 'mutation Move($id: String!, $statusId: String) { issuesUpdate(id: $id, statusId: $statusId) }';

export function Card({ issue, meta }: { issue: IssueRow; meta: Meta }) {
  const agent = meta.agents.find((a) => a.rowId === issue.assignedAgentId);
  const user = meta.users.find((u) => u.rowId === issue.claimedById);
  return (
    <a class="card" href={`#/issue/${issue.key}`} draggable data-id={issue.id} data-key={issue.key}
      onDragStart={(e) => e.dataTransfer?.setData('text/plain', issue.id)}>
      {issue.priority !== 'NONE' && <span class={`priority p-${issue.priority}`}>{issue.priority}</span>}
      <span class="key">{issue.key}</span> <span class="title">{issue.title}</span>
      {(agent || user) && <span class="assignee">{agent ? `Agent: ${agent.name}` : user!.name || user!.email}</span>}
    </a>
  );
}

/**
 * Status columns, each its first 50 issues with the filters applied by the service (over every issue of the
 * workspace, not only those on screen), "Show more" for 50 more; drop a card on a column to move it there
 * (issuesUpdate over /graphql).
 */
export function Board({ meta, filters, query }: { meta: Meta; filters: Filters; query: string }) {
  const [limits, setLimits] = useState<Record<string, number>>({});
  const columns = useLive(() => loadColumns(meta.statuses, limits, filters, query), [query, JSON.stringify(filters), JSON.stringify(limits)]);
  const [moved, setMoved] = useState<Record<string, string>>({});
  const [over, setOver] = useState<string>();
  const [error, setError] = useState<string>();
  const all = Object.values(columns.data ?? {}).flatMap((page) => page.items);
  const shown = all.map((i) => (moved[i.id] ? { ...i, statusId: moved[i.id]! } : i));

  const drop = async (statusId: string, id: string) => {
    const issue = shown.find((i) => i.id === id);
    if (!issue || issue.statusId === statusId) return;
    setMoved((m) => ({ ...m, [id]: statusId })); // optimistic; the stream brings the truth
    try {
      await gql(MOVE, { id, statusId });
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
    columns.reload();
    setMoved((m) => Object.fromEntries(Object.entries(m).filter(([k]) => k !== id)));
  };

  return (
    <>
      {(error || columns.error) && <p class="error" role="alert">{error ?? columns.error}</p>}
      <main id="board" class="board">
        {meta.statuses.map((s) => {
          const cards = shown.filter((i) => i.statusId === s.rowId);
          const more = Boolean(columns.data?.[s.rowId]?.nextCursor);
          const limit = limits[s.rowId] ?? COLUMN_PAGE;
          return (
            <section key={s.rowId} class={`column${over === s.rowId ? ' over' : ''}`} data-status={s.rowId} data-category={s.category}
              onDragOver={(e) => { e.preventDefault(); setOver(s.rowId); }}
              onDragLeave={() => setOver(undefined)}
              onDrop={(e) => { e.preventDefault(); setOver(undefined); drop(s.rowId, e.dataTransfer?.getData('text/plain') ?? ''); }}>
              <h2>{s.name} · <span class="count">{cards.length}{more ? '+' : ''}</span></h2>
              {cards.map((i) => <Card key={i.id} issue={i} meta={meta} />)}
              {more && (limit < 200
                ? <button type="button" class="link more" onClick={() => setLimits((l) => ({ ...l, [s.rowId]: limit + COLUMN_PAGE }))}>Show more</button>
                : <p class="hint">More in the <a href="#/list">list</a>; filter to narrow it.</p>)}
            </section>
          );
        })}
      </main>
    </>
  );
}
