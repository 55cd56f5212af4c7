/**
 * GraphQL mutations generated from the tool catalog (issue 15: the web board writes through /graphql).
 *
 * A tool is declared once (src/tools/<ns>.ts); this plugin turns the catalog entries the in-app client
 * needs into mutations: `issues.update` → `issuesUpdate(id: String!, title: String, …): JSON`. The
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

/** The write tools the web board uses (add a name here to expose another tool as a mutation). */
export const GRAPHQL_TOOL_MUTATIONS = [
  'issues.create',
  'issues.update',
  'comments.create',
  'actionRequests.accept',
  'actionRequests.decline',
  'actionRequests.vote',
] as const;

/** What the GraphQL context carries for these resolvers (server.ts puts it there). */
export interface ToolMutationContext {
  svcCaller?: Caller;
  svcCallTool?: (caller: Caller, t: Tool, args: unknown) => Promise<string>;
}

/** `actionRequests.vote` → `actionRequestsVote`. */
export const mutationName = (toolName: string) =>
  toolName.split('.').map((p, i) => (i ? p[0]!.toUpperCase() + p.slice(1) : p)).join('');

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

/** The SDL of one tool's mutation field. */
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

export const ToolMutationsPlugin = extendSchema(() => {
  const tools = GRAPHQL_TOOL_MUTATIONS.map((name) => {
    const t = findTool(name);
    if (!t || t.annotations.readOnlyHint) throw new Error(`GraphQL tool mutation ${name}: not a write tool of the catalog`);
    return t;
  });
  const resolvers: Record<string, (parent: unknown, args: Record<string, unknown>, context: ToolMutationContext) => Promise<unknown>> = {};
  for (const t of tools) {
    resolvers[mutationName(t.name)] = async (_parent, args, context) => {
      const caller = context.svcCaller;
      if (!caller || !context.svcCallTool) throw new ApiError(401, { error: 'invalid', message: 'Missing bearer token' });
      // graphql-js passes only the arguments given (an explicit null stays null: "null clears").
      return JSON.parse(await context.svcCallTool(caller, t, { ...args }));
    };
  }
  return {
    typeDefs: parse(`extend type Mutation {\n${tools.map(mutationSdl).join('\n')}\n}`),
    resolvers: { Mutation: resolvers },
  };
}, 'SvcToolMutationsPlugin');
