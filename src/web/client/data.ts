// The queries the views share, and the filters of the board and the list.
import { gql } from './api.ts';

export interface Status { rowId: string; name: string; category: string }
export interface Named { rowId: string; name: string }
export interface Cycle extends Named { number: number; startsOn: string; endsOn: string; currentStatus: string }
export interface Agent extends Named { profileKey: string; status: string }
export interface User extends Named { email: string }
export interface IssueRow {
  rowId: string; key: string; title: string; priority: string; statusId: string; projectId: string | null;
  cycleId: string | null; assignedAgentId: string | null; claimedById: string | null; updatedAt: string;
  labelIds: string[];
}
export interface Meta {
  workspace: { key: string; name: string };
  statuses: Status[]; projects: Named[]; labels: (Named & { color: string })[]; cycles: Cycle[]; agents: Agent[]; users: User[];
}

export async function loadMeta(): Promise<Meta> {
  const d = await gql(`query Meta {
    currentWorkspace { key name }
    statuses(orderBy: POSITION_ASC) { nodes { rowId name category } }
    projects(orderBy: NAME_ASC, condition: {archivedAt: null}) { nodes { rowId name } }
    labels(orderBy: NAME_ASC) { nodes { rowId name color } }
    cycles(orderBy: STARTS_ON_DESC, first: 50) { nodes { rowId name number startsOn endsOn currentStatus } }
    agents(orderBy: NAME_ASC, condition: {archivedAt: null}) { nodes { rowId name profileKey status } }
    users(orderBy: NAME_ASC) { nodes { rowId name email } }
  }`);
  return {
    workspace: d.currentWorkspace, statuses: d.statuses.nodes, projects: d.projects.nodes, labels: d.labels.nodes,
    cycles: d.cycles.nodes, agents: d.agents.nodes, users: d.users.nodes,
  };
}

const ISSUE_FIELDS = 'rowId key title priority statusId projectId cycleId assignedAgentId claimedById updatedAt labelIds';

/** The workspace's issues (newest first), or the matches of a full-text search (best first). */
export async function loadIssues(query: string): Promise<IssueRow[]> {
  if (query) {
    const d = await gql(`query Search($q: String!) { searchIssues(query: $q, first: 500) { nodes { ${ISSUE_FIELDS} deletedAt } } }`, { q: query });
    return d.searchIssues.nodes.filter((i: { deletedAt: string | null }) => !i.deletedAt);
  }
  const d = await gql(`query Issues { issues(orderBy: NUMBER_DESC, first: 500, condition: {deletedAt: null}) { nodes { ${ISSUE_FIELDS} } } }`);
  return d.issues.nodes;
}

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

export const currentCycle = (m: Meta) => m.cycles.find((c) => c.currentStatus === 'ACTIVE');
