import { gql } from './api.ts';
import { may, statusOf, type Meta } from './data.ts';
import { useLive } from './hooks.ts';
import { REQUEST_FIELDS, RequestCard, type Request } from './requests.tsx';

const AGENTS = `query Agents {
  agents(orderBy: NAME_ASC, condition: {archivedAt: null}, first: 200) { nodes {
    rowId name profileKey status provider lastHeartbeatAt
    agentRuns(condition: {finishedAt: null}, orderBy: STARTED_AT_DESC, first: 5) { nodes { rowId status currentStep issue { rowId key title statusId } } }
    issuesByAssignedAgentId(condition: {deletedAt: null}, orderBy: UPDATED_AT_DESC, first: 20) { nodes { rowId key title statusId } }
  } }
  actionRequests(condition: {status: "OPEN"}, orderBy: CREATED_AT_DESC, first: 100) { nodes { ${REQUEST_FIELDS} } }
}`;

/** Who is ONLINE / BUSY / OFFLINE and on what; the open action requests and polls to decide. */
export function Agents({ meta }: { meta: Meta }) {
  const loaded = useLive(() => gql(AGENTS), []);
  const d = loaded.data;
  if (!d) return <main class="page">{loaded.error ? <p class="error" role="alert">{loaded.error}</p> : <p>Loading…</p>}</main>;
  return (
    <main class="page agents">
      <section>
        <h2>Agents</h2>
        <table id="agents">
          <thead><tr><th>Agent</th><th>Status</th><th>Working on</th><th>Last heartbeat</th></tr></thead>
          <tbody>
            {d.agents.nodes.map((a: any) => (
              <tr key={a.rowId} data-agent={a.profileKey}>
                <td><strong>{a.name}</strong> <span class="meta">{a.profileKey} · {a.provider}</span></td>
                <td><span class={`presence s-${a.status}`}>{a.status}</span></td>
                <td><Work agent={a} meta={meta} /></td>
                <td class="meta">{a.lastHeartbeatAt ? new Date(a.lastHeartbeatAt).toLocaleString() : 'never'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {!d.agents.nodes.length && <p class="empty">No agents.</p>}
      </section>
      <section id="requests">
        <h2>Open requests and polls</h2>
        {d.actionRequests.nodes.map((r: Request) => <RequestCard key={r.rowId} request={r} canAct={may(meta, 'WRITE_ISSUES')} onDone={loaded.reload} />)}
        {!d.actionRequests.nodes.length && <p class="empty">Nothing to decide.</p>}
      </section>
    </main>
  );
}

/** An agent's open runs (their step), then the open issues assigned to it without one (its run finished or none yet). */
function Work({ agent, meta }: { agent: any; meta: Meta }) {
  const closed = new Set(meta.statuses.filter((st) => st.category === 'DONE' || st.category === 'CANCELED').map((st) => st.rowId));
  const running = new Set(agent.agentRuns.nodes.map((r: any) => r.issue?.rowId));
  const waiting = agent.issuesByAssignedAgentId.nodes.filter((i: any) => !closed.has(i.statusId) && !running.has(i.rowId));
  if (!agent.agentRuns.nodes.length && !waiting.length) return <span class="meta">—</span>;
  return (
    <>
      {agent.agentRuns.nodes.map((r: any) => r.issue && (
        <div key={r.rowId}><a href={`#/issue/${r.issue.key}`}>{r.issue.key}</a> {r.issue.title} <span class="meta">{r.currentStep ?? r.status}</span>
          {/* Its issue was closed while the run is open (its agent ends it with runs.complete): said, not hidden. */}
          {closed.has(r.issue.statusId) && (
            <span class="meta closed-issue"> · issue {statusOf(meta, r.issue.statusId)?.name}, run still open</span>
          )}
        </div>
      ))}
      {waiting.map((i: any) => (
        <div key={i.rowId} class="assigned"><a href={`#/issue/${i.key}`}>{i.key}</a> {i.title} <span class="meta">assigned, no open run</span></div>
      ))}
    </>
  );
}
