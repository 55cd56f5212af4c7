/**
 * MCP beyond tools (issue 14): resources (the workspace, issue://{key}, project://{id}, cycle://{id}), resource
 * templates, subscriptions (delivered by mcp-subscriptions.ts), prompts (triage an issue, hand an issue to an
 * agent, draft a standup), argument completion (issue keys, project and cycle ids, status and label names,
 * agent profile keys) and logging/setLevel.
 * Everything is read through the tools themselves, as the caller: the same scopes, narrowing and RLS.
 */
import { z } from 'zod';
import type { Caller } from '../auth/keys.ts';
import { ApiError, refusesKey } from '../errors.ts';
import { canCall, findTool } from '../tools/catalog.ts';
import { composed, trimName } from '../tools/text-guard.ts';
import type { AppServices } from './app.ts';
import { clip } from '../text.ts';

/** JSON-RPC error codes: MCP's resource-not-found, and the standard invalid-params. */
export const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

/** Per request: the client's Mcp-Session-Id, and the id named on initialize. */
export interface McpContext {
  sessionId?: string;
  created?: string;
}

/** The data of every fault here, shaped as a tool's error body (decisions.md): `{error, status, issues?, ...}`. */
export interface FaultData {
  error: string;
  status: number;
  issues?: Record<string, string>;
  [more: string]: unknown;
}

export class RpcFault extends Error {
  constructor(readonly code: number, message: string, readonly data: FaultData) {
    super(message);
  }
}

/** Params the client got wrong: -32602 with the fields in `issues`, as a tool's 400 names them. */
export const invalidParams = (message: string, issues: Record<string, string>, more: Record<string, unknown> = {}) =>
  new RpcFault(INVALID_PARAMS, message, { error: 'invalid_input', status: 400, issues, ...more });

/** A list of one page: a cursor other than none (null or absent) is refused, as tools/list refuses a cursor not its own. */
function assertNoCursor(params: Record<string, unknown>): void {
  if (params.cursor !== undefined && params.cursor !== null) {
    throw invalidParams('Invalid cursor: this list has one page (no nextCursor to pass)', { cursor: 'not a nextCursor of this list' });
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The resource templates; `uses` is the tool each one reads through (a key is offered the ones it may read). */
const TEMPLATES = [
  { uriTemplate: 'issue://{key}', name: 'issue', title: 'Issue', description: 'An issue by key (ENG-12) or id, with its description, labels, latest comments and relations.', mimeType: 'application/json', uses: 'issues.get' },
  { uriTemplate: 'project://{id}', name: 'project', title: 'Project', description: 'A project by id, with its open issues (first 50).', mimeType: 'application/json', uses: 'projects.get' },
  { uriTemplate: 'cycle://{id}', name: 'cycle', title: 'Cycle (sprint)', description: 'A cycle by id, with its issues.', mimeType: 'application/json', uses: 'cycles.get' },
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
    description: 'The team\'s standup update: what the workspace did, started, opened and has blocked in the last hours.',
    arguments: [{ name: 'sinceHours', description: 'How far back, in hours (default 24, max 168)', required: false }],
  },
];

/**
 * Calls a tool for a resource or prompt; its refusal names the request's own field (`asField`: the tool's `id` is
 * the prompt's `arguments.key` or the resource's `uri`: a not-found said `field: "id"`, which the client never sent).
 */
async function call(services: AppServices, caller: Caller, tool: string, args: Record<string, unknown>, asField?: string): Promise<any> {
  try {
    return JSON.parse(await services.callTool(caller, findTool(tool)!, args, 'rpc'));
  } catch (err) {
    // A key found revoked, expired or its agent archived refuses the whole request (HTTP 401/403), as tools/call does:
    // resources/subscribe answered it as -32602 "invalid params".
    if (!(err instanceof ApiError) || refusesKey(err as unknown)) throw err;
    const body = { ...err.body, status: err.status };
    if (asField && body.field === 'id') body.field = asField;
    if (asField && body.issues && 'id' in body.issues) {
      const { id: said, ...others } = body.issues;
      body.issues = { [asField]: said!, ...others };
    }
    if (err.status === 404) throw new RpcFault(RESOURCE_NOT_FOUND, err.body.message ?? 'Not found', body);
    throw new RpcFault(INVALID_PARAMS, err.body.message ?? err.body.error, body);
  }
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || !v) throw invalidParams(`${what} must be a non-empty string`, { [what]: 'must be a non-empty string' });
  return v;
};

const readIssue = (services: AppServices, caller: Caller, key: string, asField: string) =>
  call(services, caller, 'issues.get', { id: key, include: { description: true, labels: true, comments: { limit: 10 }, relations: true } }, asField);

/** Answers an MCP method other than initialize/ping/tools; undefined when the method is not one of these. */
export async function handleExtra(
  services: AppServices, caller: Caller, method: string, params: Record<string, unknown>, ctx: McpContext = {},
): Promise<unknown | undefined> {
  switch (method) {
    case 'logging/setLevel': {
      // Accepted and checked; this server sends no log notifications (no server-initiated stream).
      if (typeof params.level !== 'string' || !LOG_LEVELS.includes(params.level)) {
        throw invalidParams(`level must be one of ${LOG_LEVELS.join(', ')}`, { level: `must be one of ${LOG_LEVELS.join(', ')}` });
      }
      return {};
    }
    case 'resources/list':
      return listResources(services, caller, params.cursor);
    case 'resources/templates/list':
      assertNoCursor(params);
      // As prompts/list: a template the key could not read is not offered (a WRITE_COMMENTS key was offered all three).
      return { resourceTemplates: TEMPLATES.filter((x) => canCall(caller, findTool(x.uses)!)).map(({ uses: _uses, ...template }) => template) };
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
        throw new RpcFault(INVALID_PARAMS, 'Subscriptions need the Mcp-Session-Id this server returned on initialize (and a GET stream to receive notifications)',
          { error: 'session_required', status: 400 });
      }
      if (method === 'resources/unsubscribe') {
        sessions.unsubscribe(ctx.sessionId, caller, uri);
        return {};
      }
      // Readable by this key now (scopes, narrowing, workspace), or the subscription is refused.
      const data = await readResource(services, caller, uri) as { id: string };
      const subjectType = uri === WORKSPACE_URI ? 'workspace' : uri.slice(0, uri.indexOf(':')) as Scheme;
      if (!sessions.subscribe(ctx.sessionId, caller, { uri, subjectType, subjectId: data.id })) {
        throw new RpcFault(INVALID_PARAMS, 'Subscription refused: the session holds too many subscriptions, or its key too many sessions with open streams',
          { error: 'subscription_refused', status: 429 });
      }
      return {};
    }
    case 'prompts/list':
      assertNoCursor(params);
      // As tools/list: what the key could not use is not offered (draft-standup without READ_ANALYTICS was, and
      // refused when asked).
      return { prompts: PROMPTS.filter((x) => x.uses.every((t) => canCall(caller, findTool(t)!))).map(({ uses: _uses, ...prompt }) => prompt) };
    case 'prompts/get': {
      const name = str(params.name, 'name');
      const prompt = PROMPTS.find((p) => p.name === name);
      if (!prompt) {
        throw invalidParams(`Unknown prompt: ${clip(name, 100)}`,
          { name: `no prompt of this name (${PROMPTS.map((p) => p.name).join(', ')})` });
      }
      const args = promptArguments(prompt, params.arguments);
      if (name === 'triage-issue') {
        const issue = await readIssue(services, caller, str(args.key, 'arguments.key'), 'arguments.key');
        // A status or label the workspace does not have is the client's mistake, refused as hand-off-issue refuses an
        // unknown profile (it was written into the prompt as given: "Consider the status Doing").
        for (const source of ['status', 'label'] as const) {
          const given = args[source];
          if (typeof given !== 'string' || !given) continue;
          const known = await COMPLETERS[source](services, caller);
          if (!known.more && !known.values.some((v) => sameName(v, given))) {
            throw invalidParams(`No ${source} named ${clip(given, 100)}`,
              { [`arguments.${source}`]: `not a ${source} of this workspace (${known.values.slice(0, 20).join(', ') || 'none'})` });
          }
        }
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
        const issue = await readIssue(services, caller, str(args.key, 'arguments.key'), 'arguments.key');
        const profile = str(args.profile, 'arguments.profile');
        const agents = await call(services, caller, 'agents.list', {});
        // Compared as the tools compare profile keys (any case, trimmed): issues.assign took "CODER", this refused it.
        const agent = (agents as Array<{ id: string; profileKey: string; name: string }>).find((a) => sameName(a.profileKey, profile));
        if (!agent) throw invalidParams(`No agent with profile key ${profile}`, { 'arguments.profile': 'unknown agent profile key' });
        // An issue another agent holds is handed off (issues.reassign: the HANDOFF comment with the rationale, AGENT_ASSIGNED
        // reason handoff, spec 6.3); a free one is assigned.
        const held = issue.assignedAgentId && issue.assignedAgentId !== agent.id;
        const how = issue.assignedAgentId === agent.id
          ? 'it is already assigned to this agent: no call is needed'
          : held
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
        // Digits only: Number() took "0x10" as 16, " 12 " as 12 and "1e2" as 100.
        const given = args.sinceHours;
        if (given !== undefined && given !== '' && !/^\d{1,4}$/.test(given)) {
          throw invalidParams('arguments.sinceHours must be a whole number of hours (digits only, at most 168)',
            { 'arguments.sinceHours': 'must be a whole number of hours, digits only (e.g. 24)' });
        }
        const hours = given === undefined || given === '' ? 24 : Number(given);
        let standup;
        try {
          standup = await call(services, caller, 'standup.draft', { sinceHours: hours });
        } catch (err) {
          // The tool names its own field; the client sent the prompt's argument.
          const issue = err instanceof RpcFault ? err.data.issues?.sinceHours : undefined;
          if (issue === undefined) throw err;
          throw invalidParams(`arguments.sinceHours ${issue}`, { 'arguments.sinceHours': issue });
        }
        return {
          description: `Standup for the last ${hours} hours`,
          messages: [{ role: 'user', content: { type: 'text', text:
            `Write the team's standup update (the whole workspace's work) for the last ${hours} hours from this draft: short, grouped as done, in progress, `
            + `blocked (with what blocks it), and what is next.\n\n${standup.markdown}` } }],
        };
      }
      throw new Error(`prompt ${name} has no implementation`);
    }
    case 'completion/complete': {
      const { ref, argument } = completionParams(params);
      const source = completionSource(ref, argument.name);
      if (!source) return { completion: { values: [], hasMore: false } };
      const prefix = typeof argument.value === 'string' ? folded(argument.value) : '';
      const { values, more } = await COMPLETERS[source](services, caller);
      // The newest 200 issues are completed from; a whole key typed (ENG-7) is looked up too and offered first, before
      // the newer keys it begins (ENG-79, ENG-78, …), whether or not it is among those 200.
      if (source === 'issueKey' && /^[a-z][a-z0-9]*-\d+$/i.test(prefix)) {
        const exact = await call(services, caller, 'issues.get', { id: prefix.toUpperCase() }).catch(() => null);
        if (exact?.key) values.splice(0, values.length, exact.key, ...values.filter((v) => v !== exact.key));
      }
      const matching = values.filter((v) => folded(v).startsWith(prefix));
      // total is the number of matches when all are known (MCP: the total available); past the values read, unknown.
      return { completion: { values: matching.slice(0, 100), ...(more ? {} : { total: matching.length }), hasMore: matching.length > 100 || more } };
    }
    default:
      return undefined;
  }
}

/** resources/list's page size per kind (projects, cycles, open issues). */
const RESOURCES_PAGE = 50;
type Phase = 'projects' | 'cycles' | 'issues';
const PHASES: Array<{ phase: Phase; tool: string; args: Record<string, unknown>; resource: (x: any) => unknown }> = [
  { phase: 'projects', tool: 'projects.list', args: {}, resource: (p) => ({ uri: `project://${p.id}`, name: p.name, title: `Project ${p.name}`, mimeType: 'application/json' }) },
  { phase: 'cycles', tool: 'cycles.list', args: {}, resource: (c) => ({ uri: `cycle://${c.id}`, name: c.name ?? c.id, title: `Cycle ${c.name ?? c.id}`, mimeType: 'application/json' }) },
  { phase: 'issues', tool: 'issues.list', args: { open: true }, resource: (i) => ({ uri: `issue://${i.key}`, name: i.key, title: `${i.key}: ${i.title}`, mimeType: 'application/json' }) },
];

/** resources/list's cursor: where the listing goes on (a kind, and that list tool's own nextCursor), as base64url. */
const encodeResourcesCursor = (phase: Phase, inner: string) => Buffer.from(JSON.stringify({ r: phase, c: inner })).toString('base64url');
const invalidResourcesCursor = () => invalidParams('Invalid cursor: pass the nextCursor of resources/list', { cursor: 'not a nextCursor of resources/list' });
function decodeResourcesCursor(cursor: unknown): { phase: Phase; inner: string } {
  if (typeof cursor !== 'string' || !cursor || cursor.length > 2000) throw invalidResourcesCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    throw invalidResourcesCursor();
  }
  const { r, c } = (isObject(parsed) ? parsed : {}) as { r?: unknown; c?: unknown };
  if (!PHASES.some((p) => p.phase === r) || typeof c !== 'string' || !c) throw invalidResourcesCursor();
  return { phase: r as Phase, inner: c };
}

/**
 * resources/list, paged: the first page has the workspace (when the key may read it), then projects, cycles and open
 * issues, up to 50 of each kind; a kind with more ends the page with a nextCursor that goes on with it (its list tool's
 * own cursor inside) and then the kinds after it. A kind the key cannot read is left out (as workspace://current for a
 * key without READ_ISSUES: it was listed, then refused when read).
 */
async function listResources(services: AppServices, caller: Caller, cursor: unknown): Promise<{ resources: unknown[]; nextCursor?: string }> {
  const resources: unknown[] = [];
  let from = 0;
  let inner: string | undefined;
  if (cursor === undefined || cursor === null) {
    if (canCall(caller, findTool('workspace.get')!)) {
      resources.push({ uri: WORKSPACE_URI, name: 'workspace', title: 'This workspace', description: 'The workspace of this key: key, name, settings.', mimeType: 'application/json' });
    }
  } else {
    const at = decodeResourcesCursor(cursor);
    from = PHASES.findIndex((p) => p.phase === at.phase);
    inner = at.inner;
  }
  for (const { phase, tool, args, resource } of PHASES.slice(from)) {
    const t = findTool(tool)!;
    if (!canCall(caller, t)) continue;
    let page: { items: any[]; nextCursor?: string | null };
    try {
      page = await call(services, caller, tool, { ...args, limit: RESOURCES_PAGE, ...(inner ? { cursor: inner } : {}) });
    } catch (err) {
      // A cursor the list tool refuses (forged, or of another key) is this method's invalid cursor.
      if (inner && err instanceof RpcFault && err.data.status === 400) throw invalidResourcesCursor();
      throw err;
    }
    inner = undefined;
    resources.push(...page.items.map(resource));
    if (page.nextCursor) return { resources, nextCursor: encodeResourcesCursor(phase, page.nextCursor) };
  }
  return { resources };
}

/**
 * prompts/get's arguments: an object of strings (MCP), naming only arguments the prompt declares (an unknown one was
 * ignored silently).
 */
function promptArguments(prompt: (typeof PROMPTS)[number], given: unknown): Record<string, string | undefined> {
  if (given === undefined || given === null) return {};
  if (!isObject(given)) throw invalidParams('arguments must be an object of strings', { arguments: 'must be an object of strings' });
  const declared = prompt.arguments.map((a) => a.name);
  const issues: Record<string, string> = {};
  for (const [k, v] of Object.entries(given)) {
    if (!declared.includes(k)) issues[`arguments.${clip(k, 100)}`] = `not an argument of ${prompt.name} (${declared.join(', ')})`;
    else if (typeof v !== 'string' && v !== undefined) issues[`arguments.${k}`] = 'must be a string';
  }
  if (Object.keys(issues).length > 0) {
    const unknown = Object.keys(given).filter((k) => !declared.includes(k));
    throw invalidParams(unknown.length > 0
      ? `Unknown argument${unknown.length > 1 ? 's' : ''} of ${prompt.name}: ${unknown.slice(0, 10).join(', ')} (it takes ${declared.join(', ')})`
      : 'Prompt arguments must be strings', issues);
  }
  // Composed (NFC) as every tool's input is: a label or status named in either form is found (docs/decisions.md).
  return composed(given) as Record<string, string | undefined>;
}

/** Two names the same as SQL matches them (`lower(name) = lower(trim_name(given))`): trimmed, any case (Greek final ς as σ). */
const folded = (name: string) => trimName(name).toLowerCase().replace(/ς/g, 'σ');
const sameName = (a: string, b: string) => folded(a) === folded(b);

/** completion/complete's ref and argument, as MCP's schema requires them. */
function completionParams(params: Record<string, unknown>): {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
} {
  const { ref, argument } = params;
  const issues: Record<string, string> = {};
  if (!isObject(ref)) issues.ref = 'must be an object: {type: "ref/prompt", name} or {type: "ref/resource", uri}';
  else if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string') issues['ref.name'] = 'must be a string (a prompt name)';
  } else if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') issues['ref.uri'] = 'must be a string (a resource template URI)';
  } else issues['ref.type'] = 'must be ref/prompt or ref/resource';
  if (!isObject(argument)) issues.argument = 'must be an object: {name, value}';
  else {
    if (typeof argument.name !== 'string' || !argument.name) issues['argument.name'] = 'must be a non-empty string';
    if (argument.value !== undefined && typeof argument.value !== 'string') issues['argument.value'] = 'must be a string';
  }
  if (Object.keys(issues).length > 0) throw invalidParams('completion/complete needs ref {type, name or uri} and argument {name, value}', issues);
  const arg = argument as { name: string; value?: string };
  return { ref: ref as { type: 'ref/prompt'; name: string }, argument: { name: arg.name, value: (arg.value ?? '').normalize('NFC') } };
}

/** A resource's data, read as the caller; unknown URIs and what the key cannot see are resource-not-found. */
async function readResource(services: AppServices, caller: Caller, uri: string): Promise<any> {
  if (uri === WORKSPACE_URI) return call(services, caller, 'workspace.get', {});
  const m = uri.match(/^(issue|project|cycle):\/\/(.+)$/);
  if (!m) throw new RpcFault(RESOURCE_NOT_FOUND, `Unknown resource: ${clip(uri, 200)}`, { error: 'not_found', status: 404, uri: clip(uri, 200) });
  const scheme = m[1] as Scheme;
  let ref: string;
  try {
    ref = decodeURIComponent(m[2]!);
  } catch {
    // A stray or truncated %-escape ("issue://%"): the client's URI, not our fault.
    throw invalidParams(`Not a valid resource URI (bad %-escape): ${clip(uri, 200)}`, { uri: 'has a bad %-escape' }, { uri: clip(uri, 200) });
  }
  if (scheme === 'issue') return readIssue(services, caller, ref, 'uri');
  // An id that is no id names no resource: not found, as issue://<not a key> is (it was invalid params naming the
  // tool's `id`, a field the client never sent).
  if (!z.uuid().safeParse(ref).success) throw new RpcFault(RESOURCE_NOT_FOUND, `No ${scheme} ${clip(ref, 100)}: a ${scheme} URI holds its id (a UUID)`, { error: 'not_found', status: 404, uri: clip(uri, 200) });
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
