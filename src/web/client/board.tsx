import { useState } from 'preact/hooks';
import { gql } from './api.ts';
import { loadIssues, matches, type Filters, type IssueRow, type Meta } from './data.ts';
import { useLive } from './hooks.ts';

const MOVE = 'mutation Move($id: String!, $statusId: String) { issuesUpdate(id: $id, statusId: $statusId) }';

export function Card({ issue, meta }: { issue: IssueRow; meta: Meta }) {
  const agent = meta.agents.find((a) => a.rowId === issue.assignedAgentId);
  const user = meta.users.find((u) => u.rowId === issue.claimedById);
  return (
    <a class="card" href={`#/issue/${issue.key}`} draggable data-id={issue.rowId} data-key={issue.key}
      onDragStart={(e) => e.dataTransfer?.setData('text/plain', issue.rowId)}>
      {issue.priority !== 'NONE' && <span class={`priority p-${issue.priority}`}>{issue.priority}</span>}
      <span class="key">{issue.key}</span> <span class="title">{issue.title}</span>
      {(agent || user) && <span class="assignee">{agent ? `Agent: ${agent.name}` : user!.name || user!.email}</span>}
    </a>
  );
}

/** Status columns; drop a card on a column to move it there (issuesUpdate over /graphql). */
export function Board({ meta, filters, query }: { meta: Meta; filters: Filters; query: string }) {
  const issues = useLive(() => loadIssues(query), [query]);
  const [moved, setMoved] = useState<Record<string, string>>({});
  const [over, setOver] = useState<string>();
  const [error, setError] = useState<string>();
  const shown = (issues.data ?? []).filter((i) => matches(i, filters)).map((i) => (moved[i.rowId] ? { ...i, statusId: moved[i.rowId]! } : i));

  const drop = async (statusId: string, id: string) => {
    const issue = shown.find((i) => i.rowId === id);
    if (!issue || issue.statusId === statusId) return;
    setMoved((m) => ({ ...m, [id]: statusId })); // optimistic; the stream brings the truth
    try {
      await gql(MOVE, { id, statusId });
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
    issues.reload();
    setMoved((m) => Object.fromEntries(Object.entries(m).filter(([k]) => k !== id)));
  };

  return (
    <>
      {(error || issues.error) && <p class="error" role="alert">{error ?? issues.error}</p>}
      <main id="board" class="board">
        {meta.statuses.map((s) => {
          const cards = shown.filter((i) => i.statusId === s.rowId);
          return (
            <section key={s.rowId} class={`column${over === s.rowId ? ' over' : ''}`} data-status={s.rowId} data-category={s.category}
              onDragOver={(e) => { e.preventDefault(); setOver(s.rowId); }}
              onDragLeave={() => setOver(undefined)}
              onDrop={(e) => { e.preventDefault(); setOver(undefined); drop(s.rowId, e.dataTransfer?.getData('text/plain') ?? ''); }}>
              <h2>{s.name} · {cards.length}</h2>
              {cards.map((i) => <Card key={i.rowId} issue={i} meta={meta} />)}
            </section>
          );
        })}
      </main>
    </>
  );
}
