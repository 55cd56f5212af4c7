/**
 * GraphQL fields generated from the tool catalog (issue 15: the web board reads and writes through /graphql).
 *
 * A tool is declared once (src/tools/<ns>.ts); this plugin turns the catalog entries the in-app client
 * needs into fields: the write tool `issues.update` → the mutation `issuesUpdate(id: String!, title: String, …): JSON`,
 * the read tool `issues.list` → the query `issuesList(status: String, …): JSON` (its filters and keyset paging,
 * which PostGraphile's generated `issues` connection does not have: labels, search, assignee none). The
 * arguments come from the tool's input JSON Schema (scalars typed, anything nested as JSON), the result
 * is the tool's output JSON. Each resolver calls the SAME path as REST and JSON-RPC (AppServices.callTool:
 * scope check, zod validation, one statement in one transaction under RLS, its events, /metrics); the
 * GraphQL request itself was already authenticated and counted against the key's rate limit. Failures are
 * ApiErrors, which maskError (errors.ts) turns into extensions {code, status, issues?, scope?}.
 */
import '../polyfills.ts';
import { parse } from 'postgraphile/graphql';
import { extendSchema } from 'postgraphile/utils';
import type { Caller } from '../auth/keys.ts';
import { ApiError } from '../errors.ts';
import { findTool, schemasOf } from '../tools/catalog.ts';
import type { Tool } from '../tools/define.ts';

/**
 * The write tools exposed as mutations (add a name here to expose another): what the web board uses, and what a
 * people's app needs beside it so it does not mix GraphQL with the REST aliases (an outside probe building one found
 * no way to edit a comment, manage labels, cycles or relations, attach a link or make a poll).
 */
export const GRAPHQL_TOOL_MUTATIONS = [
  'issues.create', 'issues.update', 'issues.transition', 'issues.delete', 'issues.restore', 'issues.queue',
  'issues.assign', 'issues.reassign', 'issues.unassign', 'issues.claim', 'issues.release',
  'issues.addLabels', 'issues.removeLabels', 'issues.watch', 'issues.unwatch',
  'comments.create', 'comments.update', 'comments.delete',
  'labels.create', 'labels.update', 'labels.delete',
  'projects.create', 'projects.update', 'projects.archive', 'projects.unarchive',
  'cycles.create', 'cycles.update', 'cycles.addIssue', 'cycles.removeIssue',
  'relations.add', 'relations.remove',
  'attachments.attachLink', 'attachments.initUpload', 'attachments.finalize', 'attachments.delete',
  'actionRequests.create', 'actionRequests.transition', 'actionRequests.accept', 'actionRequests.decline',
  'actionRequests.vote', 'actionRequests.closeVoting',
] as const;

/** The read tools exposed as queries: filters, search and shapes PostGraphile's connections do not have. */
export const GRAPHQL_TOOL_QUERIES = ['issues.list', 'issues.get', 'issues.history', 'attachments.getDownloadUrl', 'actionRequests.results'] as const;

/**
 * Descriptions of those tools' arguments whose input fields carry none of their own, for GraphiQL's docs. A field
 * described in its tool's zod declaration (`.describe()`) takes that description; these are for the rest, kept here
 * rather than in the declarations because every description there also goes into MCP's tools/list, whose size the
 * agents pay for (test/mcp/tool-list.test.ts holds the budgets). One description per argument: naming here a field
 * the tool describes already, or one it does not have, fails the schema build.
 */
export const TOOL_ARGUMENT_DESCRIPTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'actionRequests.create': {
    title: 'What is to be decided, one line of 1 to 500 characters.',
    body: 'Details of the request, at most 100,000 characters.',
    severity: 'How prominently to show it: INFO (default), SUCCESS, WARNING, ERROR or CRITICAL.',
    payload: "The bound dispatch's arguments, by kind: TRANSITION {statusId}, SET_LABELS {add?, remove?}, ASSIGN_AGENT {agentId}, CLOSE_AS_DUPLICATE {duplicateOfIssueId, statusId?}; at most 16 KB of JSON.",
    assignedUserId: 'The member asked to decide.',
    assignedAgentId: 'The agent asked to decide (not archived).',
    dueAt: 'When a decision is wanted by (ISO 8601 date-time); informational.',
    sourceType: 'What kind of record the request comes from: issue, comment, goal, execution-plan, execution-step, agent-run, action-request, or a label of your own.',
    sourceId: 'The id of that record; for the kinds the service keeps it must exist and be visible to the key.',
  },
  'actionRequests.transition': {
    id: 'The action request to move.',
    status: 'RESOLVED, DISMISSED, SNOOZED or REJECTED; OPEN only for a SNOOZED request.',
  },
  'actionRequests.accept': { id: 'The action request to accept.' },
  'actionRequests.decline': { id: 'The action request to decline.' },
  'actionRequests.vote': { id: 'The poll (action request) to vote on.', optionKey: 'The key of the option voted for.' },
  'actionRequests.closeVoting': { id: 'The poll (action request) whose voting to close.' },
  'actionRequests.results': { id: 'The poll (action request).' },
  'attachments.attachLink': {
    targetType: 'What the link is attached to: issue, initiative, cycle or comment.',
    externalUrl: 'The link: an http(s) URL of at most 2,000 characters.',
    linkTitle: "Its title, one line of up to 500 characters; omitted = fetched from the page (the hostname until then).",
  },
  'attachments.initUpload': {
    targetType: 'What the file is attached to: issue, initiative, cycle or comment.',
    filename: 'The file name, 1 to 255 characters, without / or \\.',
    mimeType: 'Its media type, such as image/png or text/plain; charset=utf-8.',
    sizeBytes: 'Its exact size in bytes, 1 to 26,214,400 (25 MB); the uploaded object must have it.',
  },
  'attachments.finalize': { key: 'The key attachments.initUpload returned, once the bytes are uploaded.' },
  'attachments.delete': { id: 'The attachment to delete.' },
  'attachments.getDownloadUrl': {
    id: 'The attachment.',
    expiresInSeconds: 'How long the URL works, 60 to 604,800 seconds (default 900).',
  },
  'comments.create': {
    body: 'The comment (Markdown), 1 to 100,000 characters.',
    actionRequest: "A recommendation card posted with the comment (needs WRITE_ISSUES): {title, body?, severity?, kind?, payload?, assignedUserId?, assignedAgentId?, dueAt?, options?} as actionRequestsCreate takes them, on the comment's issue.",
  },
  'comments.update': { id: 'The comment to edit.', body: 'The new text (Markdown), 1 to 100,000 characters.' },
  'comments.delete': { id: 'The comment to delete.' },
  'cycles.create': {
    name: 'One line of 1 to 200 characters; default "Sprint <number>".',
    activate: 'True makes the new cycle the current one now, when no other is.',
  },
  'cycles.update': { id: 'The cycle to change.', name: 'New name, one line of 1 to 200 characters.' },
  'cycles.addIssue': { cycleId: 'The PLANNED or ACTIVE cycle to put the issue in.' },
  'cycles.removeIssue': { cycleId: 'The cycle to take the issue out of.' },
  'issues.create': {
    title: 'One line, 1 to 500 characters.',
    description: "The issue's text (Markdown), at most 100,000 characters.",
    projectId: 'The project to file it in (not an archived one).',
    priority: 'NONE (default), LOW, MEDIUM, HIGH or URGENT.',
    statusId: "Its status; omitted = the workspace's default status.",
    labelIds: 'Labels to put on it, at most 50.',
    dueDate: 'The day it is due, YYYY-MM-DD.',
    estimate: 'Size estimate, 0 to 10,000 (the unit is the team\'s choice).',
    slaMinutes: 'Minutes it may stay open once queued before ISSUE_SLA_BREACH fires (1 or more).',
    expectedOutput: 'What finishing it should produce, at most 10,000 characters.',
    verificationChecklist: 'Completion contract an EXECUTE run must report done: at most 50 [{id?, label, done?}] (id defaults to item-<n>).',
    artifactRequired: 'True: an EXECUTE run completes only with a produced artifact (default false).',
  },
  'issues.update': {
    title: 'New title, one line of 1 to 500 characters.',
    description: 'New text (Markdown); null clears it.',
    priority: 'New priority: NONE, LOW, MEDIUM, HIGH or URGENT.',
    projectId: 'New project (not an archived one); null takes the issue out of its project.',
    cycleId: 'The cycle to plan it in; null takes it out of its cycle.',
    dueDate: 'New due day, YYYY-MM-DD; null clears it.',
    estimate: 'New estimate, 0 to 10,000; null clears it.',
    slaMinutes: 'New SLA in minutes (1 or more); null removes it.',
    expectedOutput: 'New expected output, at most 10,000 characters; null clears it.',
    verificationChecklist: 'Replaces the completion checklist, in the form issuesCreate takes.',
    artifactRequired: 'Whether an EXECUTE run needs a produced artifact to complete.',
  },
  'issues.queue': { queued: 'True (default) puts the issue in the dispatch pool, false takes it out.' },
  'issues.transition': { statusId: 'The status to move to (give this or status).' },
  'issues.assign': {
    agentId: 'The agent to assign (give this or profileKey).',
    profileKey: 'The agent to assign, by its profileKey (give this or agentId).',
  },
  'issues.reassign': {
    toProfileKey: 'The profileKey of the agent taking over (not archived, not the one assigned now).',
    rationale: 'Why, 10 to 10,000 characters; it is posted in the handoff comment.',
  },
  'issues.addLabels': { labelIds: 'The labels to add, 1 to 50.' },
  'issues.removeLabels': { labelIds: 'The labels to remove, 1 to 50.' },
  'issues.list': {
    status: 'Only issues in this status, given by id, category (such as IN_PROGRESS) or name.',
    statusId: 'Only issues in this status.',
    priority: 'Only issues of this priority.',
    priorities: 'Only issues of any of these priorities (1 to 5 of NONE, LOW, MEDIUM, HIGH, URGENT).',
    projectId: 'Only issues in this project; null = issues in no project.',
    assignedAgentId: 'Only issues assigned to this agent; null = unassigned ones.',
    cycleId: 'Only issues in this cycle; null = issues in no cycle.',
    claimedById: 'Only issues claimed by this person; null = unclaimed ones.',
    labelIds: 'Only issues carrying any of these labels.',
    queued: 'Only issues whose queued flag is this (it stays true after assignment).',
  },
  'issues.get': {
    include: 'What to add to the lean issue, each true to include: {description, labels, comments (true = the 20 newest, or {limit} up to 100), attachments, relations, currentRun}.',
  },
  'labels.create': {
    name: 'One line of 1 to 100 characters, unique in the workspace regardless of case (409 label_exists).',
    color: 'Color as #RRGGBB; default #64748b.',
    description: 'What the label means, at most 1,000 characters.',
  },
  'labels.update': {
    id: 'The label to change.',
    name: 'New name, unique regardless of case.',
    color: 'New color, #RRGGBB.',
    description: 'New meaning; null clears it.',
  },
  'labels.delete': { id: 'The label to delete; it comes off every issue.' },
  'projects.create': {
    name: 'One line of 1 to 200 characters.',
    description: 'What the project is about, at most 100,000 characters.',
    initiativeId: 'The initiative it belongs to.',
  },
  'projects.update': {
    id: 'The project to change.',
    name: 'New name, one line of 1 to 200 characters.',
    description: 'New description; null clears it.',
    initiativeId: 'New initiative; null detaches the project from its initiative.',
  },
  'projects.archive': { id: 'The project to archive.' },
  'projects.unarchive': { id: 'The archived project to restore.' },
  'relations.add': {
    kind: 'fromIssueId <kind> toIssueId: BLOCKS, BLOCKED_BY (stored as the reverse BLOCKS), DUPLICATES or RELATES_TO.',
  },
  'relations.remove': { id: 'The relation to remove.' },
};

/** What the GraphQL context carries for these resolvers (server.ts puts it there). */
export interface ToolMutationContext {
  svcCaller?: Caller;
  svcCallTool?: (caller: Caller, t: Tool, args: unknown) => Promise<string>;
}

/** `actionRequests.vote` → `actionRequestsVote`. */
export const mutationName = (toolName: string) =>
  toolName.split('.').map((p, i) => (i ? p[0]!.toUpperCase() + p.slice(1) : p)).join('');

/** The GraphQL field names of those tools (each selection of one is a tool call: limits.ts counts them). */
export const TOOL_FIELD_NAMES: ReadonlySet<string> = new Set([...GRAPHQL_TOOL_MUTATIONS, ...GRAPHQL_TOOL_QUERIES].map((n) => mutationName(n)));

type Schema = Record<string, unknown>;
const NAME = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/** The GraphQL type of one input property: String/Int/Float/Boolean, lists of those, anything else JSON. */
function graphqlType(s: Schema): string {
  const branches = Array.isArray(s.anyOf) ? (s.anyOf as Schema[]).filter((b) => b.type !== 'null') : [s];
  if (branches.length !== 1) return 'JSON';
  const b = branches[0]!;
  switch (b.type) {
    case 'string': return 'String';
    case 'integer': return 'Int';
    case 'number': return 'Float';
    case 'boolean': return 'Boolean';
    case 'array': {
      const item = b.items as Schema | undefined;
      const inner = item ? graphqlType(item) : 'JSON';
      return inner === 'JSON' ? 'JSON' : `[${inner}!]`;
    }
    default: return 'JSON';
  }
}

const quote = (text: string) => JSON.stringify(text.replace(/"""/g, '\\"""'));

/** An input field's description in its tool's declaration: its own, or a nullable field's (on the non-null branch). */
function ownDescription(s: Schema): string | undefined {
  if (typeof s.description === 'string') return s.description;
  const branches = Array.isArray(s.anyOf) ? (s.anyOf as Schema[]).filter((b) => b.type !== 'null') : [];
  return branches.length === 1 && typeof branches[0]!.description === 'string' ? branches[0]!.description : undefined;
}

/** The SDL of one tool's field (a mutation, or a query for a read tool). */
export function mutationSdl(t: Tool): string {
  const input = schemasOf(t).input as { properties?: Record<string, Schema>; required?: string[] };
  const required = new Set(input.required ?? []);
  const extra = TOOL_ARGUMENT_DESCRIPTIONS[t.name] ?? {};
  const properties = input.properties ?? {};
  for (const name of Object.keys(extra)) {
    if (!(name in properties)) throw new Error(`TOOL_ARGUMENT_DESCRIPTIONS: ${t.name} has no argument ${name}`);
    if (ownDescription(properties[name]!)) throw new Error(`TOOL_ARGUMENT_DESCRIPTIONS: ${t.name}.${name} is described by the tool already`);
  }
  const args = Object.entries(properties).map(([name, s]) => {
    if (!NAME.test(name)) throw new Error(`${t.name}: input field ${name} is not a GraphQL name`);
    const text = ownDescription(s) ?? extra[name];
    const description = text ? `${quote(text)} ` : '';
    return `${description}${name}: ${graphqlType(s)}${required.has(name) ? '!' : ''}`;
  });
  const doc = `${t.description} (The tool ${t.name}; returns its output as JSON.)`;
  return `  ${quote(doc)}\n  ${mutationName(t.name)}${args.length ? `(${args.join(', ')})` : ''}: JSON`;
}

/** The top-level input fields of a tool that take null as a value of their own. */
function nullableFields(t: Tool): Set<string> {
  const shape = (t.input as { shape?: Record<string, { safeParse(v: unknown): { success: boolean } }> }).shape ?? {};
  return new Set(Object.entries(shape).filter(([, field]) => field.safeParse(null).success).map(([k]) => k));
}

type Resolver = (parent: unknown, args: Record<string, unknown>, context: ToolMutationContext) => Promise<unknown>;

/** The catalog tools `names`, checked to be reads (queries) or writes (mutations), with their resolvers. */
function toolFields(names: readonly string[], reads: boolean): { tools: Tool[]; resolvers: Record<string, Resolver> } {
  const tools = names.map((name) => {
    const t = findTool(name);
    if (!t || Boolean(t.annotations.readOnlyHint) !== reads) {
      throw new Error(`GraphQL tool ${reads ? 'query' : 'mutation'} ${name}: not a ${reads ? 'read' : 'write'} tool of the catalog`);
    }
    return t;
  });
  const resolvers: Record<string, Resolver> = {};
  for (const t of tools) {
    const nullable = nullableFields(t);
    resolvers[mutationName(t.name)] = async (_parent, args, context) => {
      const caller = context.svcCaller;
      if (!caller || !context.svcCallTool) throw new ApiError(401, { error: 'invalid', message: 'Missing bearer token' });
      // graphql-js passes only the arguments given. An explicit null stays null where the tool gives null a meaning
      // ("null clears", "null = none"); elsewhere it is the argument left out, as every nullable GraphQL argument
      // promises (`cursor: null` on the first page of a paging loop).
      const input = Object.fromEntries(Object.entries(args).filter(([k, v]) => v !== null || nullable.has(k)));
      return JSON.parse(await context.svcCallTool(caller, t, input));
    };
  }
  return { tools, resolvers };
}

export const ToolMutationsPlugin = extendSchema(() => {
  const exposed = new Set<string>([...GRAPHQL_TOOL_MUTATIONS, ...GRAPHQL_TOOL_QUERIES]);
  const stray = Object.keys(TOOL_ARGUMENT_DESCRIPTIONS).filter((n) => !exposed.has(n));
  if (stray.length) throw new Error(`TOOL_ARGUMENT_DESCRIPTIONS: ${stray.join(', ')} not exposed in GraphQL`);
  const writes = toolFields(GRAPHQL_TOOL_MUTATIONS, false);
  const reads = toolFields(GRAPHQL_TOOL_QUERIES, true);
  return {
    typeDefs: parse(`extend type Mutation {\n${writes.tools.map(mutationSdl).join('\n')}\n}\n` +
      `extend type Query {\n${reads.tools.map(mutationSdl).join('\n')}\n}`),
    resolvers: { Mutation: writes.resolvers, Query: reads.resolvers },
  };
}, 'SvcToolMutationsPlugin');
