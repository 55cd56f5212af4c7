import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { useArrival } from './a11y.tsx';
import { gqlPartial } from './api.ts';
import {
  AgentTimeline, DASHBOARD_FIELDS, DASHBOARD_SELECTION, DispatchPanel, runsInWords, WebhookHealthPanel, WINDOW_HOURS,
  type DispatchSummary, type Pipeline, type Timeseries, type WebhookHealth,
} from './dashboards.tsx';
import { may, statusOf, type Meta } from './data.ts';
import { useLive } from './hooks.ts';
import { REQUEST_FIELDS, RequestCard, type Request } from './requests.tsx';

const AGENTS = `query Agents {
  agents(orderBy: NAME_ASC, condition: {archivedAt: null}, first: 200) { nodes {
    rowId name profileKey status provider lastHeartbeatAt
    agentRuns(condition: {finishedAt: null}, orderBy: STARTED_AT_DESC, first: 5) { nodes { rowId status currentStep issue { rowId key title statusId } } }
    issuesByAssignedAgentId(condition: {deletedAt: null}, orderBy: UPDATED_AT_DESC, first: 20) { nodes { rowId key title statusId } }
  } }
  actionRequests(condition: {status: OPEN}, orderBy: CREATED_AT_DESC, first: 100) { nodes { ${REQUEST_FIELDS} } }
  ${DASHBOARD_SELECTION}
}`;
interface AgentsPage {
  agents: { nodes: any[] }; actionRequests: { nodes: Request[] };
  // null when the field failed (its error is in `failed`)
  agentsPipeline: Pipeline | null; dispatchSummary: DispatchSummary | null; dispatchTimeseries: Timeseries | null; webhookHealth: WebhookHealth | null;
}

/**
 * Who is ONLINE / BUSY / OFFLINE and on what, with the dispatch dashboards (spec 4.14) and each agent's pipeline
 * figures; the open action requests and polls to decide; webhook health for a key that may read it. All of it is
 * one GraphQL request (each dashboard field may fail alone); an agent's timeline is read when it is opened.
 */
export function Agents({ meta }: { meta: Meta }) {
  const loaded = useLive(() => gqlPartial<AgentsPage>(AGENTS, undefined, DASHBOARD_FIELDS), []);
  const [opened, setOpened] = useState<string>();
  const d = loaded.data?.data;
  const failed = loaded.data?.failed ?? {};
  useArrival(Boolean(d || loaded.error));
  if (!d) return <main class="page agents"><h1 tabIndex={-1}>Agents</h1>{loaded.error ? <p class="error" role="alert">{loaded.error}</p> : <p>Loading…</p>}</main>;
  const pipeline = new Map((d.agentsPipeline?.agents ?? []).map((p) => [p.agentId, p]));
  // Webhook health is an unnarrowed OWNER/ADMIN's: for anyone else the table is simply not there.
  // A key that may not read it (not an admin, no ADMIN scope, narrowed: any 403) is not shown the panel at all.
  const showWebhooks = d.webhookHealth || (failed.webhookHealth && failed.webhookHealth.status !== 403 && failed.webhookHealth.code !== 'admin_required');
  return (
    <main class="page agents">
      <h1 tabIndex={-1}>Agents</h1>
      <DispatchPanel summary={d.dispatchSummary} series={d.dispatchTimeseries} error={failed.dispatchSummary} />
      <section>
        <h2>Agents</h2>
        <table id="agents">
          <thead>
            {/* The headers' names in their own case: their CSS capitals were their names ("AGENT"). */}
            <tr><th aria-label="Agent">Agent</th><th aria-label="Status">Status</th><th aria-label="Working on">Working on</th><th class="num" aria-label="Open issues">Open issues</th><th aria-label="Runs">Runs</th><th aria-label="Last heartbeat">Last heartbeat</th></tr>
          </thead>
          <tbody>
            {d.agents.nodes.map((a: any) => {
              const p = pipeline.get(a.rowId);
              const open = opened === a.rowId;
              return (
                <Fragment key={a.rowId}>
                  <tr data-agent={a.profileKey}>
                    <td>
                      <strong><bdi>{a.name}</bdi></strong> <span class="meta">{a.profileKey} · {a.provider}</span>
                      <div><button type="button" class="link timeline-toggle" aria-expanded={open} aria-controls={`timeline-${a.rowId}`}
                        onClick={() => setOpened(open ? undefined : a.rowId)}>{open ? 'Hide timeline' : 'Timeline'}</button></div>
                    </td>
                    <td><span class={`presence s-${a.status}`}>{a.status}</span></td>
                    <td><Work agent={a} meta={meta} /></td>
                    <td class="num assigned-open">{p ? p.assignedOpen : '—'}</td>
                    <td class="runs" title={`Active, waiting and stalled now; completed and abandoned in the last ${WINDOW_HOURS} hours`}>{p ? runsInWords(p.runs) : '—'}</td>
                    <td class="meta">{a.lastHeartbeatAt ? new Date(a.lastHeartbeatAt).toLocaleString() : 'never'}</td>
                  </tr>
                  {open && (
                    <tr class="agent-detail" id={`timeline-${a.rowId}`}>
                      <td colSpan={6}><AgentTimeline agentId={a.rowId} name={a.name} /></td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
        {!d.agents.nodes.length && <p class="empty">No agents.</p>}
        {failed.agentsPipeline && <p class="error" role="alert">Pipeline figures are unavailable: {failed.agentsPipeline.message}</p>}
      </section>
      <section id="requests">
        {/* Where the focus goes once the last request here is decided (it leaves the list). */}
        <h2 id="requests-title" tabIndex={-1}>Open requests and polls</h2>
        {d.actionRequests.nodes.map((r) => <RequestCard key={r.rowId} request={r} canAct={may(meta, 'WRITE_ISSUES')} viewerId={meta.viewerId} onDone={loaded.reload} />)}
        {!d.actionRequests.nodes.length && <p class="empty">Nothing to decide.</p>}
      </section>
      {showWebhooks && <WebhookHealthPanel health={d.webhookHealth} error={failed.webhookHealth} />}
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
        <div key={r.rowId}><a href={`#/issue/${r.issue.key}`}>{r.issue.key}</a> <bdi>{r.issue.title}</bdi> <span class="meta"><bdi>{r.currentStep ?? r.status}</bdi></span>
          {/* Its issue was closed while the run is open (its agent ends it with runs.complete): said, not hidden. */}
          {closed.has(r.issue.statusId) && (
            <span class="meta closed-issue"> · issue <bdi>{statusOf(meta, r.issue.statusId)?.name}</bdi>, run still open</span>
          )}
        </div>
      ))}
      {waiting.map((i: any) => (
        <div key={i.rowId} class="assigned"><a href={`#/issue/${i.key}`}>{i.key}</a> <bdi>{i.title}</bdi> <span class="meta">assigned, no open run</span></div>
      ))}
    </>
  );
}
