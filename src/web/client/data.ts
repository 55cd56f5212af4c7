// The queries the views share, and the filters of the board and the list.
import { gql } from './api.ts';

export interface Status { rowId: string; name: string; category: string }
export interface Named { rowId: string; name: string }
export interface Cycle extends Named { number: number; startsOn: string; endsOn: string; currentStatus: string }
export interface Agent extends Named { profileKey: string; status: string }
export interface User extends Named { email: string }
/** The signed-in person: the name shown on their work, and the IANA zone their "today" is counted in. */
export interface Viewer extends User { timezone: string }
/** An issue as the issues.list and issues.get tools return it (the lean shape). */
export interface IssueRow {
  id: string; key: string; title: string; priority: string; statusId: string; projectId: string | null;
  cycleId: string | null; assignedAgentId: string | null; claimedById: string | null; updatedAt: string;
  labelIds: string[];
}
export interface Meta {
  workspace: { key: string; name: string };
  /** The key's scopes (FULL holds every one): controls the key may not use are not offered. */
  scopes: string[];
  /** The key's user (null for a key without one): "Claim" claims for them. */
  viewerId: string | null;
  /** The signed-in person as the header shows them (null for a key without one). */
  viewer: Viewer | null;
  /** The key's kind (PERSONAL, SESSION, PLUGIN): only a person's own key edits their profile. */
  keyKind: string | null;
  /** The key's user's role in the workspace (OWNER/ADMIN moderate comments); null for a key without one. */
  role: string | null;
  /** The key's narrowing (empty: none): an issue made on the board must fall inside it. */
  narrowedTo: { projects: string[]; labels: string[] };
  statuses: Status[]; projects: Named[]; labels: (Named & { color: string })[]; cycles: Cycle[]; agents: Agent[]; users: User[];
}

/**
 * A person's name as the page shows it: from the workspace's people (read again when a USER_UPDATED arrives, or
 * after the person saves their profile), else as the row that names them was read (`read`), else their email.
 */
export function personName(meta: Meta, id: string | null | undefined, read?: { name: string; email: string } | null): string | undefined {
  const u = (id ? meta.users.find((x) => x.rowId === id) : undefined) ?? read ?? undefined;
  return u ? u.name || u.email : undefined;
}

/** A status of the workspace by its id. */
export const statusOf = (meta: Meta, id: unknown): Status | undefined => meta.statuses.find((s) => s.rowId === id);

export async function loadMeta(): Promise<Meta> {
  const d = await gql(`query Meta {
    currentWorkspace { key name }
    viewerScopes
    viewerProjectIds
    viewerLabelIds
    viewer { rowId name email timezone }
    viewerKeyKind
    viewerRole
    statuses(orderBy: POSITION_ASC) { nodes { rowId name category } }
    projects(orderBy: NAME_ASC, condition: {archivedAt: null}) { nodes { rowId name } }
    labels(orderBy: NAME_ASC) { nodes { rowId name color } }
    cycles(orderBy: STARTS_ON_DESC, first: 50) { nodes { rowId name number startsOn endsOn currentStatus } }
    agents(orderBy: NAME_ASC, condition: {archivedAt: null}) { nodes { rowId name profileKey status } }
    users(orderBy: NAME_ASC) { nodes { rowId name email } }
  }`);
  return {
    workspace: d.currentWorkspace, scopes: d.viewerScopes ?? [], viewerId: d.viewer?.rowId ?? null, viewer: d.viewer ?? null, keyKind: d.viewerKeyKind ?? null, role: d.viewerRole ?? null,
    narrowedTo: { projects: d.viewerProjectIds ?? [], labels: d.viewerLabelIds ?? [] }, statuses: d.statuses.nodes, projects: d.projects.nodes, labels: d.labels.nodes,
    cycles: d.cycles.nodes, agents: d.agents.nodes, users: d.users.nodes,
  };
}

/** The issues.list tool's filters (absent: any; null: none). */
type ListArgs = Record<string, string | string[] | number | null | undefined>;
export interface IssuePage { items: IssueRow[]; nextCursor: string | null }

const LIST_VARIABLES = '$projectId: String, $labelIds: [String!], $assignedAgentId: String, $claimedById: String, ' +
  '$priority: String, $cycleId: String, $query: String';
const LIST_ARGUMENTS = 'projectId: $projectId, labelIds: $labelIds, assignedAgentId: $assignedAgentId, claimedById: $claimedById, ' +
  'priority: $priority, cycleId: $cycleId, query: $query';

/** The board's and the list's filters as issues.list arguments: they are applied by the service, over every issue. */
export function listArgs(f: Filters, query: string): ListArgs {
  const args: ListArgs = {};
  if (f.project) args.projectId = f.project;
  if (f.label) args.labelIds = [f.label];
  if (f.priority) args.priority = f.priority;
  if (f.cycle) args.cycleId = f.cycle;
  if (f.assignee === 'none') Object.assign(args, { assignedAgentId: null, claimedById: null });
  else if (f.assignee?.startsWith('agent:')) args.assignedAgentId = f.assignee.slice(6);
  else if (f.assignee?.startsWith('user:')) args.claimedById = f.assignee.slice(5);
  if (query) args.query = query;
  return args;
}

/** A query that names an issue by its key (ENG-12): the search box also opens that issue. */
const ISSUE_KEY = /^[A-Za-z][A-Za-z0-9_]*-[0-9]+$/;

/** The issue a key-shaped query names, when it exists and passes the filters; else nothing. */
async function byKey(f: Filters, query: string): Promise<IssueRow[]> {
  if (!ISSUE_KEY.test(query)) return [];
  const d = await gql('query ByKey($id: String!) { issuesGet(id: $id) }', { id: query }).catch(() => null);
  return d?.issuesGet && matches(d.issuesGet, f) ? [d.issuesGet] : [];
}

/** Up to `limit` issues of the list (newest first, or best match first), following the pages (200 at most each). */
/** A search box holding no letter or digit ("!!!", "#"): no issue matches (the service answers such a query with a 400, not for the box to show). */
const nothingToSearch = (query: string) => query.trim() !== '' && !/[\p{L}\p{N}]/u.test(query);
const NO_ISSUES: IssuePage = { items: [], nextCursor: null };

export async function loadList(f: Filters, query: string, limit: number): Promise<IssuePage> {
  if (nothingToSearch(query)) return NO_ISSUES;
  const items: IssueRow[] = [...await byKey(f, query)];
  let cursor: string | null = null;
  do {
    const d: { issuesList: IssuePage } = await gql(`query List(${LIST_VARIABLES}, $limit: Int, $cursor: String) {
      issuesList(${LIST_ARGUMENTS}, limit: $limit, cursor: $cursor) }`,
      { ...listArgs(f, query), limit: Math.min(200, limit - items.length), cursor: cursor ?? undefined });
    items.push(...d.issuesList.items.filter((i) => !items.some((k) => k.id === i.id)));
    cursor = d.issuesList.nextCursor;
  } while (cursor && items.length < limit);
  return { items, nextCursor: cursor };
}

/** Each status column's first `limits[statusId]` issues (at most 200), in ONE GraphQL request (one call of the rate limit). */
export async function loadColumns(statuses: Status[], limits: Record<string, number>, f: Filters, query: string): Promise<Record<string, IssuePage>> {
  if (nothingToSearch(query)) return Object.fromEntries(statuses.map((s) => [s.rowId, NO_ISSUES]));
  const fields = statuses.map((s, n) =>
    `c${n}: issuesList(statusId: $s${n}, ${LIST_ARGUMENTS}, limit: $l${n})`);
  const variables = statuses.map((_, n) => `$s${n}: String, $l${n}: Int`).join(', ');
  const values: Record<string, unknown> = { ...listArgs(f, query) };
  statuses.forEach((s, n) => { values[`s${n}`] = s.rowId; values[`l${n}`] = Math.min(200, limits[s.rowId] ?? COLUMN_PAGE); });
  const [d, found] = await Promise.all([
    gql(`query Board(${LIST_VARIABLES}${variables ? `, ${variables}` : ''}) {\n${fields.join('\n')}\n}`, values),
    byKey(f, query),
  ]);
  return Object.fromEntries(statuses.map((s, n) => {
    const page = d[`c${n}`] as IssuePage;
    const extra = found.filter((i) => i.statusId === s.rowId && !page.items.some((k) => k.id === i.id));
    return [s.rowId, { items: [...extra, ...page.items], nextCursor: page.nextCursor }];
  }));
}

/** Cards a column shows at first, and how many more "Show more" adds. */
export const COLUMN_PAGE = 50;

export interface Filters { project?: string; label?: string; assignee?: string; priority?: string; cycle?: string }
export const PRIORITIES = ['URGENT', 'HIGH', 'MEDIUM', 'LOW', 'NONE'];

/** Assignee values: "agent:<id>" or "user:<id>" (people claim issues, agents are assigned), "none". */
export function matches(i: IssueRow, f: Filters): boolean {
  if (f.project && i.projectId !== f.project) return false;
  if (f.label && !i.labelIds.includes(f.label)) return false;
  if (f.priority && i.priority !== f.priority) return false;
  if (f.cycle && i.cycleId !== f.cycle) return false;
  if (f.assignee === 'none' && (i.assignedAgentId || i.claimedById)) return false;
  if (f.assignee?.startsWith('agent:') && i.assignedAgentId !== f.assignee.slice(6)) return false;
  if (f.assignee?.startsWith('user:') && i.claimedById !== f.assignee.slice(5)) return false;
  return true;
}

/** Whether the signed-in key holds a scope (the service checks it again on every write). */
export const may = (m: Meta, scope: 'WRITE_ISSUES' | 'WRITE_COMMENTS' | 'WRITE_USERS' | 'SUBSCRIBE_EVENTS') => m.scopes.includes('FULL') || m.scopes.includes(scope);

export const currentCycle = (m: Meta) => m.cycles.find((c) => c.currentStatus === 'ACTIVE');

/** An AGENT_ASSIGNED reason for people: a rule's fallback names the rule by id (spec 6.4), which says nothing to them. */
export const reasonInWords = (reason: string) =>
  reason.replace(/^rule:[^:]+:target-ineligible,(.*)$/, 'rule target unavailable, then $1');

/**
 * Who decides a request, as the service decides it (docs/decisions.md "Who decides" and "Nobody decides their own
 * action request"; sql/actionRequests: action_request_may_decide, action_request_self_decision): its assignee, a
 * watcher of its issue, or a workspace OWNER/ADMIN person; the one who asked for it only withdraws it, unless an
 * OWNER/ADMIN person (who may make the change directly). The tooltip said the asker never decides, and an OWNER
 * accepted their own poll.
 */
export const WHO_DECIDES = 'Only its assignee, a watcher of its issue, or a workspace OWNER/ADMIN decides this request';
export const ASKER_DECIDES_NOT = 'You asked for this request: the one who asked may withdraw it but not decide it, unless a workspace OWNER/ADMIN';
