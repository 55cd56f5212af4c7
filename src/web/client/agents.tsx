import { gql } from './api.ts';
import { may, type Meta } from './data.ts';
import { useLive } from './hooks.ts';
import { REQUEST_FIELDS, RequestCard, type Request } from './requests.tsx';

const AGENTS = `query Agents {
  agents(orderBy: NAME_ASC, condition: {archivedAt: null}) { nodes {
    rowId name profileKey status provider lastHeartbeatAt
    agentRuns(condition: {finishedAt: null}, orderBy: STARTED_AT_DESC, first: 5) { nodes { rowId status currentStep issue { key title } } }
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
                <td>{a.agentRuns.nodes.length ? a.agentRuns.nodes.map((r: any) => r.issue && (
                  <div key={r.rowId}><a href={`#/issue/${r.issue.key}`}>{r.issue.key}</a> {r.issue.title} <span class="meta">{r.currentStep ?? r.status}</span></div>
                )) : <span class="meta">—</span>}</td>
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
