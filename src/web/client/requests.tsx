import { useRef } from 'preact/hooks';
import { refocus, say } from './a11y.tsx';
import { gql } from './api.ts';
import { ASKER_DECIDES_NOT, WHO_DECIDES } from './data.ts';
import { useWriteProblem } from './hooks.ts';
import { renderMarkdown } from './markdown.ts';

export const REQUEST_FIELDS = `rowId title body kind status options votingClosedAt winningOptionKey createdAt viewerMayDecide
  issue { key title } requestedByAgent { name } requestedByUser { rowId name email } assignedAgent { name } assignedUser { name email }
  voteCounts viewerVote`;

export interface Request {
  rowId: string; title: string; body: string | null; kind: string; status: string; votingClosedAt: string | null; winningOptionKey: string | null;
  /**
   * The key may accept or decline it (the service's own gate, action_requests_viewer_may_decide: its assignee, a
   * watcher of its issue, or a workspace OWNER/ADMIN person; its requester only when an OWNER/ADMIN person).
   */
  viewerMayDecide: boolean;
  options: { key: string; label: string; description?: string }[] | null;
  issue: { key: string; title: string } | null;
  requestedByAgent: { name: string } | null; requestedByUser: { rowId: string; name: string; email: string } | null;
  assignedAgent: { name: string } | null; assignedUser: { name: string; email: string } | null;
  /** Votes per option key, counted by the service (every voter, however many). */
  voteCounts: Record<string, number>;
  /** The option this key's user voted for. */
  viewerVote: string | null;
}

/**
 * An action request: accept / decline, or for a poll one button per option with its votes. The buttons are
 * disabled for a key that may not use them (no WRITE_ISSUES; accept and decline also when it may not decide).
 * Accept, Decline and the votes are named by the request ("Accept “Deploy it”", "Yes · 2 “Deploy it”": two requests
 * read "Accept, Decline, Accept, Decline"). `onDone` reads the page again; it settles once the page shows the outcome.
 */
export function RequestCard({ request: r, canAct, viewerId, onDone }: { request: Request; canAct: boolean; viewerId: string | null; onDone(): Promise<unknown> }) {
  const problem = useWriteProblem();
  const self = useRef<HTMLElement>(null);
  /**
   * Acts, and once the page shows the outcome says what was done. A request decided loses its buttons (on Agents it
   * leaves the list), which dropped the focus on <body>: it goes to the next request's first button still usable,
   * else the nearest one's before it, else the requests' heading. A vote's button stays, and the focus on it.
   */
  const act = async (mutation: string, variables: Record<string, unknown>, done: string) => {
    // The other requests, in the page's order from this one (after it, then before it, nearest first), before the re-read.
    const all = [...(self.current?.parentElement?.querySelectorAll<HTMLElement>(':scope > .request') ?? [])];
    const at = all.indexOf(self.current!);
    const others = [...all.slice(at + 1), ...all.slice(0, Math.max(at, 0)).reverse()].map((el) => el.dataset.id!);
    try {
      await gql(mutation, variables);
      problem.clear();
    } catch (err) {
      problem.failed(err as Error);
      return;
    }
    await onDone();
    say(done);
    refocus(...others.map((id) => () => document.querySelector(`.request[data-id="${CSS.escape(id)}"] button:not(:disabled)`)), '#requests-title');
  };
  const mine = r.viewerVote;
  const decide = canAct && r.viewerMayDecide;
  // Board keys are people's (agent keys are refused at sign-in): the person asked for it when no agent did.
  const asked = !r.requestedByAgent && r.requestedByUser !== null && r.requestedByUser.rowId === viewerId;
  // Why the buttons are off: the key's scopes first (its user may well be the OWNER), else who decides.
  const decideHint = decide ? undefined : !canAct ? 'This key may not change issues (no WRITE_ISSUES scope)'
    : asked ? ASKER_DECIDES_NOT : `${WHO_DECIDES} (the one who asked only when an OWNER/ADMIN)`;
  const by = r.requestedByAgent ? `Agent: ${r.requestedByAgent.name}` : r.requestedByUser?.name || r.requestedByUser?.email;
  return (
    <article class="request" data-id={r.rowId} ref={self}>
      <header>
        <strong><bdi>{r.title}</bdi></strong> <span class="badge">{r.options ? 'POLL' : r.kind}</span>
        {r.issue && <a href={`#/issue/${r.issue.key}`} class="key"> {r.issue.key}</a>}
      </header>
      {r.body && <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(r.body) }} />}
      <p class="meta">asked by <bdi>{by ?? 'someone'}</bdi>{r.assignedAgent ? <>, for agent <bdi>{r.assignedAgent.name}</bdi></> : r.assignedUser ? <>, for <bdi>{r.assignedUser.name || r.assignedUser.email}</bdi></> : ''}</p>
      {r.options && (
        <div class="options">
          {r.options.map((o) => {
            const count = r.voteCounts[o.key] ?? 0;
            return (
              <button type="button" key={o.key} class={`vote${mine === o.key ? ' mine' : ''}`} data-option={o.key} disabled={!!r.votingClosedAt || !['OPEN', 'SNOOZED'].includes(r.status) || !canAct}
                title={o.description} onClick={() => act('mutation Vote($id: String!, $o: String!) { actionRequestsVote(id: $id, optionKey: $o) }', { id: r.rowId, o: o.key }, `Voted for ${o.label}`)}>
                <bdi>{o.label}</bdi> · {count}<span class="sr-only"> “<bdi>{r.title}</bdi>”</span>
              </button>
            );
          })}
          {r.votingClosedAt && <span class="meta"> {r.winningOptionKey ? `voting closed, winner ${r.winningOptionKey}` : 'voting closed with the request'}</span>}
        </div>
      )}
      {r.status === 'OPEN' && (
        <div class="actions">
          <button type="button" class="accept" disabled={!decide} title={decideHint}
            onClick={() => act('mutation Accept($id: String!) { actionRequestsAccept(id: $id) }', { id: r.rowId }, `Accepted: ${r.title}`)}>
            Accept<span class="sr-only"> “<bdi>{r.title}</bdi>”</span></button>
          <button type="button" class="decline" disabled={!decide} title={decideHint}
            onClick={() => act('mutation Decline($id: String!) { actionRequestsDecline(id: $id) }', { id: r.rowId }, `Declined: ${r.title}`)}>
            Decline<span class="sr-only"> “<bdi>{r.title}</bdi>”</span></button>
        </div>
      )}
      {r.status !== 'OPEN' && <p class="meta">{r.status}</p>}
      {problem.text && <p class="error" role="alert">{problem.text}</p>}
    </article>
  );
}
