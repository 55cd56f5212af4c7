/**
 * MCP beyond tools (issue 14): resources (the workspace, issue://{key}, project://{id}, cycle://{id}), resource
 * templates, subscriptions (delivered by mcp-subscriptions.ts), prompts (triage an issue, hand an issue to an
 * agent, draft a standup), argument completion (issue keys, project and cycle ids, status and label names,
 * agent profile keys) and logging/setLevel.
 * Everything is read through the tools themselves, as the caller: the same scopes, narrowing and RLS.
 */
import type { Caller } from '../auth/keys.ts';
import { ApiError } from '../errors.ts';
import { canCall, findTool } from '../tools/catalog.ts';
import type { AppServices } from './app.ts';

/** JSON-RPC error codes: MCP's resource-not-found, and the standard invalid-params. */
export const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

/** Per request: the client's Mcp-Session-Id, and the id named on initialize. */
export interface McpContext {
  sessionId?: string;
  created?: string;
}

export class RpcFault extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const TEMPLATES = [
  { uriTemplate: 'issue://{key}', name: 'issue', title: 'Issue', description: 'An issue by key (ENG-12) or id, with its description, labels, latest comments and relations.', mimeType: 'application/json' },
  { uriTemplate: 'project://{id}', name: 'project', title: 'Project', description: 'A project by id, with its open issues (first 50).', mimeType: 'application/json' },
  { uriTemplate: 'cycle://{id}', name: 'cycle', title: 'Cycle (sprint)', description: 'A cycle by id, with its issues.', mimeType: 'application/json' },
];
const SCHEMES = ['issue', 'project', 'cycle'] as const;
type Scheme = (typeof SCHEMES)[number];
const WORKSPACE_URI = 'workspace://current';

/** The prompts; `uses` are the tools each one reads through (prompts/list offers a key the prompts it may use). */
const PROMPTS = [
  {
    name: 'triage-issue', title: 'Triage an issue', uses: ['issues.get'],
    description: 'Read an issue and propose its priority, labels, status and next step.',
    arguments: [
      { name: 'key', description: 'Issue key (ENG-12) or id', required: true },
      { name: 'status', description: 'A status to consider moving it to (a status name of this workspace)', required: false },
      { name: 'label', description: 'A label to consider (a label name of this workspace)', required: false },
    ],
  },
  {
    name: 'hand-off-issue', title: 'Hand an issue to an agent', uses: ['issues.get', 'agents.list'],
    description: 'Prepare handing an issue to an agent profile: what the agent needs to know and the call that assigns it.',
    arguments: [
      { name: 'key', description: 'Issue key (ENG-12) or id', required: true },
      { name: 'profile', description: 'The agent profile key (agents.list profileKey)', required: true },
    ],
  },
  {
    name: 'draft-standup', title: 'Draft a standup', uses: ['standup.draft'],
    description: 'A standup update from what was done, started, opened and is blocked in the last hours.',
    arguments: [{ name: 'sinceHours', description: 'How far back, in hours (default 24, max 168)', required: false }],
  },
];

async function call(services: AppServices, caller: Caller, tool: string, args: Record<string, unknown>): Promise<any> {
  try {
    return JSON.parse(await services.callTool(caller, findTool(tool)!, args, 'rpc'));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const body = { ...err.body, status: err.status };
    if (err.status === 404) throw new RpcFault(RESOURCE_NOT_FOUND, err.body.message ?? 'Not found', body);
    throw new RpcFault(INVALID_PARAMS, err.body.message ?? err.body.error, body);
  }
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || !v) throw new RpcFault(INVALID_PARAMS, `${what} must be a non-empty string`);
  return v;
};

const readIssue = (services: AppServices, caller: Caller, key: string) =>
  call(services, caller, 'issues.get', { id: key, include: { description: true, labels: true, comments: { limit: 10 }, relations: true } });

/** Answers an MCP method other than initialize/ping/tools; undefined when the method is not one of these. */
export async function handleExtra(
  services: AppServices, caller: Caller, method: string, params: Record<string, unknown>, ctx: McpContext = {},
): Promise<unknown | undefined> {
  switch (method) {
    case 'logging/setLevel': {
      // Accepted and checked; this server sends no log notifications (no server-initiated stream).
      if (typeof params.level !== 'string' || !LOG_LEVELS.includes(params.level)) {
        throw new RpcFault(INVALID_PARAMS, `level must be one of ${LOG_LEVELS.join(', ')}`);
      }
      return {};
    }
    case 'resources/list': {
      const resources: unknown[] = [{ uri: WORKSPACE_URI, name: 'workspace', title: 'This workspace', description: 'The workspace of this key: key, name, settings.', mimeType: 'application/json' }];
      // A key without READ_ISSUES (or READ_PROJECTS, READ_CYCLES) still lists the workspace.
      const issues = await optional(call(services, caller, 'issues.list', { open: true, limit: 50 }));
      for (const i of issues.items) resources.push({ uri: `issue://${i.key}`, name: i.key, title: `${i.key}: ${i.title}`, mimeType: 'application/json' });
      const projects = await optional(call(services, caller, 'projects.list', { limit: 50 }));
      for (const p of projects.items) resources.push({ uri: `project://${p.id}`, name: p.name, title: `Project ${p.name}`, mimeType: 'application/json' });
      const cycles = await optional(call(services, caller, 'cycles.list', { limit: 20 }));
      for (const c of cycles.items) resources.push({ uri: `cycle://${c.id}`, name: c.name ?? c.id, title: `Cycle ${c.name ?? c.id}`, mimeType: 'application/json' });
      return { resources };
    }
    case 'resources/templates/list':
      return { resourceTemplates: TEMPLATES };
    case 'resources/read': {
      const uri = str(params.uri, 'uri');
      const data = await readResource(services, caller, uri);
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] };
    }
    case 'resources/subscribe':
    case 'resources/unsubscribe': {
      const uri = str(params.uri, 'uri');
      const sessions = services.mcpSessions;
      if (!sessions || !ctx.sessionId) {
        throw new RpcFault(INVALID_PARAMS, 'Subscriptions need the Mcp-Session-Id this server returned on initialize (and a GET stream to receive notifications)');
      }
      if (method === 'resources/unsubscribe') {
        sessions.unsubscribe(ctx.sessionId, caller, uri);
        return {};
      }
      // Readable by this key now (scopes, narrowing, workspace), or the subscription is refused.
      const data = await readResource(services, caller, uri) as { id: string };
      const subjectType = uri === WORKSPACE_URI ? 'workspace' : uri.slice(0, uri.indexOf(':')) as Scheme;
      if (!sessions.subscribe(ctx.sessionId, caller, { uri, subjectType, subjectId: data.id })) {
        throw new RpcFault(INVALID_PARAMS, 'Subscription refused: the session belongs to another key, or holds too many subscriptions');
      }
      return {};
    }
    case 'prompts/list':
      // As tools/list: what the key could not use is not offered (draft-standup without READ_ANALYTICS was, and
      // refused when asked).
      return { prompts: PROMPTS.filter((x) => x.uses.every((t) => canCall(caller, findTool(t)!))).map(({ uses: _uses, ...prompt }) => prompt) };
    case 'prompts/get': {
      const name = str(params.name, 'name');
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      if (name === 'triage-issue') {
        const issue = await readIssue(services, caller, str(args.key, 'arguments.key'));
        return {
          description: `Triage ${issue.key}`,
          messages: [{ role: 'user', content: { type: 'text', text:
            `Triage issue ${issue.key}. Propose its priority (NONE, LOW, MEDIUM, HIGH, URGENT), labels, status and the next step, `
            + `and say what is missing to act on it. Use the issues.* tools to apply what we agree on.`
            + (typeof args.status === 'string' && args.status ? ` Consider the status ${args.status}.` : '')
            + (typeof args.label === 'string' && args.label ? ` Consider the label ${args.label}.` : '')
            + `\n\nThe issue:\n${JSON.stringify(issue, null, 2)}` } }],
        };
      }
      if (name === 'hand-off-issue') {
        const issue = await readIssue(services, caller, str(args.key, 'arguments.key'));
        const profile = str(args.profile, 'arguments.profile');
        const agents = await call(services, caller, 'agents.list', {});
        const agent = (agents as Array<{ id: string; profileKey: string; name: string }>).find((a) => a.profileKey === profile);
        if (!agent) throw new RpcFault(INVALID_PARAMS, `No agent with profile key ${profile}`, { issues: { 'arguments.profile': 'unknown agent profile key' } });
        // An issue another agent holds is handed off (issues.reassign: the HANDOFF comment with the rationale, AGENT_ASSIGNED
        // reason handoff, spec 6.3); a free one is assigned.
        const held = issue.assignedAgentId && issue.assignedAgentId !== agent.id;
        const how = held
          ? `then hand it off with issues.reassign {issueId: "${issue.id}", toProfileKey: "${agent.profileKey}", rationale: "<why this agent, at least 10 characters>"}`
          : `then assign it with issues.assign {id: "${issue.id}", agentId: "${agent.id}"}`;
        return {
          description: `Hand ${issue.key} to ${agent.name}`,
          messages: [{ role: 'user', content: { type: 'text', text:
            `Prepare handing issue ${issue.key} to the agent ${agent.name} (profile ${agent.profileKey}, id ${agent.id}). Summarise what the agent needs `
            + `to know, list open questions, ${how}.\n\nThe issue:\n${JSON.stringify(issue, null, 2)}` } }],
        };
      }
      if (name === 'draft-standup') {
        const hours = args.sinceHours === undefined || args.sinceHours === '' ? 24 : Number(args.sinceHours);
        if (!Number.isInteger(hours)) throw new RpcFault(INVALID_PARAMS, 'arguments.sinceHours must be a whole number of hours');
        const standup = await call(services, caller, 'standup.draft', { sinceHours: hours });
        return {
          description: `Standup for the last ${hours} hours`,
          messages: [{ role: 'user', content: { type: 'text', text:
            `Write my standup update for the last ${hours} hours from this draft: short, grouped as done, in progress, `
            + `blocked (with what blocks it), and what is next.\n\n${standup.markdown}` } }],
        };
      }
      throw new RpcFault(INVALID_PARAMS, `Unknown prompt: ${name}`);
    }
    case 'completion/complete': {
      const ref = (params.ref ?? {}) as { type?: unknown; name?: unknown; uri?: unknown };
      const argument = (params.argument ?? {}) as { name?: unknown; value?: unknown };
      const source = completionSource(ref, argument.name);
      if (!source) return { completion: { values: [], hasMore: false } };
      const prefix = typeof argument.value === 'string' ? argument.value.toLowerCase() : '';
      const { values, more } = await COMPLETERS[source](services, caller);
      const matching = values.filter((v) => v.toLowerCase().startsWith(prefix));
      return { completion: { values: matching.slice(0, 100), total: matching.length, hasMore: matching.length > 100 || more } };
    }
    default:
      return undefined;
  }
}

/** A resource's data, read as the caller; unknown URIs and what the key cannot see are resource-not-found. */
async function readResource(services: AppServices, caller: Caller, uri: string): Promise<any> {
  if (uri === WORKSPACE_URI) return call(services, caller, 'workspace.get', {});
  const m = uri.match(/^(issue|project|cycle):\/\/(.+)$/);
  if (!m) throw new RpcFault(RESOURCE_NOT_FOUND, `Unknown resource: ${uri}`, { uri });
  const scheme = m[1] as Scheme;
  let ref: string;
  try {
    ref = decodeURIComponent(m[2]!);
  } catch {
    // A stray or truncated %-escape ("issue://%"): the client's URI, not our fault.
    throw new RpcFault(INVALID_PARAMS, `Not a valid resource URI (bad %-escape): ${uri.slice(0, 200)}`, { uri: uri.slice(0, 200) });
  }
  if (scheme === 'issue') return readIssue(services, caller, ref);
  if (scheme === 'cycle') return call(services, caller, 'cycles.get', { id: ref });
  const project = await call(services, caller, 'projects.get', { id: ref });
  const issues = await optional(call(services, caller, 'issues.list', { projectId: project.id, open: true, limit: 50 }));
  return { ...project, openIssues: issues.items };
}

/** A list the key may lack the scope for: empty instead of failing the whole answer. */
async function optional(p: Promise<any>): Promise<{ items: any[] }> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof RpcFault) return { items: [] };
    throw err;
  }
}

type Source = 'issueKey' | 'projectId' | 'cycleId' | 'status' | 'label' | 'profile';

/** Which values complete an argument of one of our prompts or resource templates. */
function completionSource(ref: { type?: unknown; name?: unknown; uri?: unknown }, arg: unknown): Source | undefined {
  if (ref.type === 'ref/resource') {
    if (ref.uri === 'issue://{key}' && arg === 'key') return 'issueKey';
    if (ref.uri === 'project://{id}' && arg === 'id') return 'projectId';
    if (ref.uri === 'cycle://{id}' && arg === 'id') return 'cycleId';
    return undefined;
  }
  if (ref.type !== 'ref/prompt' || !PROMPTS.some((p) => p.name === ref.name && p.arguments.some((a) => a.name === arg))) return undefined;
  return ({ key: 'issueKey', status: 'status', label: 'label', profile: 'profile' } as Record<string, Source>)[arg as string];
}

const list = (tool: string, args: Record<string, unknown>, pick: (x: any) => string) =>
  async (services: AppServices, caller: Caller) => {
    const r = await call(services, caller, tool, args);
    const items: any[] = Array.isArray(r) ? r : r.items;
    return { values: [...new Set(items.map(pick))], more: !Array.isArray(r) && !!r.nextCursor };
  };

const COMPLETERS: Record<Source, (services: AppServices, caller: Caller) => Promise<{ values: string[]; more: boolean }>> = {
  issueKey: list('issues.list', { limit: 200 }, (i) => i.key),
  projectId: list('projects.list', { limit: 200 }, (p) => p.id),
  cycleId: list('cycles.list', { limit: 200 }, (c) => c.id),
  status: list('statuses.list', {}, (x) => x.name),
  label: list('labels.list', { limit: 200 }, (x) => x.name),
  profile: list('agents.list', {}, (a) => a.profileKey),
};
