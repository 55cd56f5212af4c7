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

/** The SDL of one tool's field (a mutation, or a query for a read tool). */
export function mutationSdl(t: Tool): string {
  const input = schemasOf(t).input as { properties?: Record<string, Schema>; required?: string[] };
  const required = new Set(input.required ?? []);
  const args = Object.entries(input.properties ?? {}).map(([name, s]) => {
    if (!NAME.test(name)) throw new Error(`${t.name}: input field ${name} is not a GraphQL name`);
    const description = typeof s.description === 'string' ? `${quote(s.description)} ` : '';
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
  const writes = toolFields(GRAPHQL_TOOL_MUTATIONS, false);
  const reads = toolFields(GRAPHQL_TOOL_QUERIES, true);
  return {
    typeDefs: parse(`extend type Mutation {\n${writes.tools.map(mutationSdl).join('\n')}\n}\n` +
      `extend type Query {\n${reads.tools.map(mutationSdl).join('\n')}\n}`),
    resolvers: { Mutation: writes.resolvers, Query: reads.resolvers },
  };
}, 'SvcToolMutationsPlugin');
