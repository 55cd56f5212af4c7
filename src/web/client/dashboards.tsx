// The in-app dashboards of spec 4.14 on the agents page: dispatch analytics (a summary strip and assignments per
// hour), each agent's pipeline figures, an agent's timeline and uptime (read when opened), and webhook health (an
// unnarrowed OWNER/ADMIN's). The service's JSON fields count what the key may see; nothing is counted here.
import { gql, type GraphqlError } from './api.ts';
import { useLive } from './hooks.ts';
import { reasonInWords } from './data.ts';

/** The window every dashboard on the page reads: the last 24 hours, by the hour. */
export const WINDOW_HOURS = 24;
export const BUCKET_MINUTES = 60;

export interface RunCounts { active: number; waiting: number; stalled: number; completed: number; abandoned: number }
export interface PipelineAgent {
  agentId: string; profileKey: string; name: string; status: string; maxConcurrent: number;
  /** Open issues assigned to it (not DONE or CANCELED). */
  assignedOpen: number;
  /** Active, waiting and stalled now; completed and abandoned in the window. */
  runs: RunCounts;
}
export interface Pipeline { sinceHours: number; queuedUnassigned: number; agents: PipelineAgent[] }
export interface DispatchSummary {
  sinceHours: number; queuedUnassigned: number; assignments: number; automatic: number; manual: number;
  byReason: Record<string, number>; byMode: Record<string, number>;
  byAgent: { agentId: string; profileKey: string | null; assignments: number }[];
  /** Seconds from ISSUE_QUEUED to each automatic assignment (null without any). */
  queueToAssignSeconds: { count: number; p50: number | null; p90: number | null; max: number | null };
  watchdogs: { agentNoAck: number; issueStalled: number; slaBreach: number };
}
export interface Bucket { start: string; queued: number; assigned: number; automatic: number; noAck: number; stalled: number }
export interface Timeseries { sinceHours: number; bucketMinutes: number; buckets: Bucket[] }
export interface WebhookRow {
  webhookId: string; url: string; active: boolean; deactivatedReason: string | null; failingSince: string | null; pending: number; deadLetters: number;
  delivered: number; attempts: number; failedAttempts: number; successRate: number | null; p95DurationMs: number | null;
  lastDeliveredAt: string | null; lastError: string | null;
}
export interface WebhookHealth { sinceHours: number; webhooks: WebhookRow[] }
interface TimelineItem {
  id: string; kind: string; at: string; subjectType: string; subjectId: string; payload: Record<string, any> | null;
  /** The issue the event is about, when the key sees it. */
  issueKey: string | null; issueTitle: string | null;
}
interface Uptime { status: string; secondsByStatus: Record<string, number>; changes: number; uptimeRatio: number; windowStart: string }


/** The dashboard fields of the agents page's one read; each may fail alone (webhookHealth for a member's key). */
export const DASHBOARD_FIELDS = ['agentsPipeline', 'dispatchSummary', 'dispatchTimeseries', 'webhookHealth'] as const;
export const DASHBOARD_SELECTION = `agentsPipeline(sinceHours: ${WINDOW_HOURS})
  dispatchSummary(sinceHours: ${WINDOW_HOURS})
  dispatchTimeseries(sinceHours: ${WINDOW_HOURS}, bucketMinutes: ${BUCKET_MINUTES})
  webhookHealth(sinceHours: ${WINDOW_HOURS})`;

/** Seconds as a person reads them: 0.4 s, 12 min, 3.5 h. */
export function duration(seconds: number | null | undefined): string {
  if (seconds == null) return '—';
  if (seconds < 60) return `${Number(seconds.toFixed(1))} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400) return `${Number((seconds / 3600).toFixed(1))} h`;
  return `${Number((seconds / 86_400).toFixed(1))} d`;
}
const percent = (ratio: number) => `${Number((ratio * 100).toFixed(1))} %`;
const when = (t: string) => new Date(t).toLocaleString();
const hourOf = (t: string) => new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** An agent's runs in words, the empty counts left out: "2 active · 1 completed". */
export function runsInWords(r: RunCounts): string {
  const parts = (['active', 'waiting', 'stalled', 'completed', 'abandoned'] as const).filter((k) => r[k] > 0).map((k) => `${r[k]} ${k}`);
  return parts.length ? parts.join(' · ') : '—';
}

/** The summary strip and the assignments per hour; a failed field says so in its place. */
export function DispatchPanel({ summary, series, error }: { summary?: DispatchSummary | null; series?: Timeseries | null; error?: GraphqlError }) {
  return (
    <section id="dispatch" aria-labelledby="dispatch-title">
      <h2 id="dispatch-title">Dispatch · last {WINDOW_HOURS} hours</h2>
      {summary ? <Stats s={summary} /> : <p class="error" role="alert">Dispatch figures are unavailable{error ? `: ${error.message}` : ''}</p>}
      {series && <HourlyBars series={series} />}
    </section>
  );
}

/**
 * A figure's label, shown in CSS capitals but read in its own case: Chromium's tree has the text as rendered
 * ("ASSIGNMENTS", its name and its text), so the capitals are on a hidden copy and the read one is not transformed.
 */
const Term = ({ text }: { text: string }) => <dt><span aria-hidden="true">{text}</span><span class="sr-only">{text}</span></dt>;

function Stats({ s }: { s: DispatchSummary }) {
  const wait = s.queueToAssignSeconds;
  const alerts = s.watchdogs.agentNoAck + s.watchdogs.issueStalled + s.watchdogs.slaBreach;
  return (
    <dl class="stats">
      <div data-stat="assignments"><Term text="Assignments" /><dd>{s.assignments}</dd></div>
      <div data-stat="mode"><Term text="Automatic / manual" /><dd>{s.automatic} / {s.manual}</dd></div>
      <div data-stat="queued"><Term text="Queued, unassigned" /><dd>{s.queuedUnassigned}</dd></div>
      <div data-stat="wait">
        <Term text="Queue to assignment p50 / p90" />
        <dd>{duration(wait.p50)} / {duration(wait.p90)}</dd>
        <dd class="meta">{wait.count ? `over ${wait.count} automatic` : 'no automatic assignments'}</dd>
      </div>
      <div data-stat="watchdogs">
        <Term text="Watchdog alerts" />
        <dd class={alerts ? 'alerting' : ''}>{alerts}</dd>
        <dd class="meta">no ack {s.watchdogs.agentNoAck} · stalled {s.watchdogs.issueStalled} · SLA {s.watchdogs.slaBreach}</dd>
      </div>
    </dl>
  );
}

/** One bar an hour, automatic assignments under manual ones; each bar's figures are its text (and its tooltip). */
function HourlyBars({ series }: { series: Timeseries }) {
  const buckets = series.buckets ?? [];
  const highest = Math.max(0, ...buckets.map((b) => b.assigned));
  const max = Math.max(1, highest);
  const height = (n: number) => ({ height: `${(n / max) * 100}%` });
  return (
    <figure class="hourly">
      <figcaption id="hourly-title">
        Assignments per hour <span class="meta">{highest ? `(highest ${highest})` : '(none in this window)'}</span>
        <span class="legend" aria-hidden="true"><i class="swatch auto" /> automatic <i class="swatch manual" /> manual</span>
      </figcaption>
      <ol class="bars" aria-labelledby="hourly-title">
        {buckets.map((b) => {
          const alerts = b.noAck + b.stalled;
          const label = `${hourOf(b.start)}: ${b.assigned} assigned (${b.automatic} automatic), ${b.queued} queued` +
            (alerts ? `, ${alerts} watchdog alert${alerts === 1 ? '' : 's'}` : '');
          return (
            <li key={b.start} title={label} data-assigned={b.assigned}>
              <span class="bar manual" style={height(b.assigned - b.automatic)} />
              <span class="bar auto" style={height(b.automatic)} />
              <span class="sr-only">{label}</span>
            </li>
          );
        })}
      </ol>
      {buckets[0] && <p class="axis meta" aria-hidden="true"><span>{WINDOW_HOURS} h ago</span><span>now</span></p>}
    </figure>
  );
}

/** What an agent-timeline line adds to its kind, where the payload says more. */
function detail(e: TimelineItem, agentId: string): string {
  const p = e.payload ?? {};
  switch (e.kind) {
    case 'AGENT_STATUS_CHANGED': return `${p.from ?? '?'} → ${p.to ?? '?'}${p.reason ? ` (${p.reason})` : ''}`;
    case 'AGENT_ASSIGNED':
      if (p.from === agentId && p.to !== agentId) return 'taken from it';
      return `${p.auto ? 'by the dispatcher' : 'by hand'}${p.reason ? ` (${reasonInWords(p.reason)})` : ''}`;
    case 'ISSUE_UPDATED': return p.unassignedAgentId === agentId ? 'taken from it (unassigned)' : '';
    case 'AGENT_RUN_STATUS_CHANGED': return `run ${String(p.from ?? 'started').toLowerCase()} → ${String(p.to ?? '').toLowerCase()}`;
    default: return '';
  }
}

const TIMELINE = `query AgentTimeline($agentId: UUID!) {
  agentTimeline(agentId: $agentId, sinceHours: ${WINDOW_HOURS}, maxItems: 100)
  agentUptime(agentId: $agentId, sinceHours: ${WINDOW_HOURS})
}`;

/** An agent's events in the window, newest first, and its uptime: one read when opened, again after events. */
export function AgentTimeline({ agentId, name }: { agentId: string; name: string }) {
  const loaded = useLive(() => gql<{ agentTimeline: { items: TimelineItem[] }; agentUptime: Uptime }>(TIMELINE, { agentId }), [agentId]);
  const d = loaded.data;
  if (!d) return loaded.error ? <p class="error" role="alert">{loaded.error}</p> : <p class="meta">Loading the timeline…</p>;
  const u = d.agentUptime;
  const items = d.agentTimeline.items;
  const spans = ['ONLINE', 'BUSY', 'OFFLINE'].filter((s) => u.secondsByStatus[s] != null);
  return (
    <div class="agent-timeline timeline" data-agent-id={agentId}>
      {/* Named in its own case (its CSS capitals were its name, the agent's name in capitals too). */}
      <h3 id={`timeline-title-${agentId}`} aria-label={`${name}: last ${WINDOW_HOURS} hours`}><bdi>{name}</bdi>: last {WINDOW_HOURS} hours</h3>
      <p class="uptime">
        Up (ONLINE or BUSY) <strong class="ratio">{percent(u.uptimeRatio)}</strong> of the window
        {/* A newer agent's window starts when it was created. */}
        {Date.parse(u.windowStart) > Date.now() - WINDOW_HOURS * 3_600_000 + 60_000 && <span class="meta"> (since it was created, {when(u.windowStart)})</span>}
        <span class="meta"> · {spans.map((s) => `${s} ${duration(u.secondsByStatus[s])}`).join(' · ')} · {u.changes} status change{u.changes === 1 ? '' : 's'}</span>
      </p>
      {items.length ? (
        <ol tabIndex={0} aria-labelledby={`timeline-title-${agentId}`}>
          {items.map((e) => {
            const more = detail(e, agentId);
            return (
              <li key={e.id} data-kind={e.kind}>
                <time class="meta" dateTime={e.at}>{when(e.at)}</time> <span class="badge kind">{e.kind}</span>
                {e.issueKey && <> <a href={`#/issue/${e.issueKey}`}>{e.issueKey}</a> <bdi class="title">{e.issueTitle}</bdi></>}
                {more && <> {more}</>}
              </li>
            );
          })}
        </ol>
      ) : <p class="empty">Nothing in the last {WINDOW_HOURS} hours.</p>}
      {items.length >= 100 && <p class="hint">The newest 100 events.</p>}
    </div>
  );
}

/** Each webhook's deliveries in the window; shown only to a key that may read it (see Agents). */
export function WebhookHealthPanel({ health, error }: { health?: WebhookHealth | null; error?: GraphqlError }) {
  return (
    <section id="webhooks" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook health · last {WINDOW_HOURS} hours</h2>
      {!health ? <p class="error" role="alert">Webhook health is unavailable{error ? `: ${error.message}` : ''}</p> : (
        <>
          <table>
            <thead>
              <tr>
                {/* The headers' names in their own case: their CSS capitals were their names ("DELIVERED"). */}
                <th aria-label="Webhook">Webhook</th><th class="num" aria-label="Delivered">Delivered</th><th class="num" aria-label="Attempts">Attempts</th><th class="num" aria-label="Failed">Failed</th>
                <th class="num" aria-label="Success">Success</th><th class="num" aria-label="p95">p95</th><th class="num" aria-label="Pending">Pending</th><th class="num" aria-label="Dead letters">Dead letters</th><th aria-label="Last error">Last error</th>
              </tr>
            </thead>
            <tbody>
              {health.webhooks.map((w) => (
                <tr key={w.webhookId} data-webhook={w.webhookId}>
                  <td>{w.url}{!w.active && <span class="badge">inactive{w.deactivatedReason ? `: ${w.deactivatedReason}` : ''}</span>}
                    {w.active && w.failingSince && <span class="badge alerting">failing since {when(w.failingSince)}</span>}
                    <div class="meta">last delivered {w.lastDeliveredAt ? when(w.lastDeliveredAt) : 'never'}</div></td>
                  <td class="num">{w.delivered}</td>
                  <td class="num">{w.attempts}</td>
                  <td class={`num${w.failedAttempts ? ' alerting' : ''}`}>{w.failedAttempts}</td>
                  <td class="num">{w.successRate == null ? '—' : percent(w.successRate)}</td>
                  <td class="num">{w.p95DurationMs == null ? '—' : `${w.p95DurationMs} ms`}</td>
                  <td class="num">{w.pending}</td>
                  <td class={`num${w.deadLetters ? ' alerting' : ''}`}>{w.deadLetters}</td>
                  <td class="meta">{w.lastError ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {!health.webhooks.length && <p class="empty">No webhooks.</p>}
        </>
      )}
    </section>
  );
}
