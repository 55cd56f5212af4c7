/**
 * GraphQL errors: a database error we expect (our SQLSTATEs SV400…SVSCP, constraint violations, RLS)
 * becomes a GraphQL error whose `extensions` carry the same code, status and fields as the MCP/REST
 * error body (spec part 7, src/errors.ts: issues keyed by argument, scope, field); so does an ApiError thrown
 * by a Node-side check. Anything else is masked: a generic message with an id that is logged server-side,
 * never internals, and extensions code `internal`, status 500.
 */
import '../polyfills.ts';
import { GraphQLError, Kind, type ValueNode } from 'postgraphile/graphql';
import { isSafeError } from 'postgraphile/grafast';
import { defaultMaskError } from 'postgraphile/grafserv';
import { ApiError, fromPgError } from '../errors.ts';

export interface GraphqlErrorExtensions {
  code: string;
  status: number;
  issues?: Record<string, string>;
  scope?: string;
  /** 403, 404 or 409: the argument that named the setting refused, the missing record or the taken value (REST's `field`). */
  field?: string;
  /** 503 of a mutation whose connection went mid-call: 'unknown', it may have been done (REST's `outcome`). */
  outcome?: 'unknown';
}

/** camelCase for the field names SQL reports in COLUMN (GraphQL arguments are camelCase). */
const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The extensions of a GraphQL error carrying this API error: code and status, and issues, scope and field when its REST
 * body has them. `name` renames the fields (SQL's column names → camelCase arguments, for errors from the database).
 */
export function errorExtensions(e: ApiError, name: (field: string) => string = (field) => field): GraphqlErrorExtensions {
  const { error, issues, scope, field, outcome } = e.body;
  return {
    code: error, status: e.status,
    ...(issues && { issues: Object.fromEntries(Object.entries(issues).map(([k, v]) => [name(k), v])) }),
    ...(scope && { scope }),
    ...(field && { field: name(field) }),
    ...(outcome && { outcome }),
  };
}

/**
 * The argument of the failing field a refusal that names no field is about, where the request shows it: the cursor
 * argument for a bad cursor (after, before), the place in a literal that holds a NUL (`condition.title`; in a
 * mutation's `input` object, its field alone: `name`, not `input.name`), or the field's only argument.
 * PostGraphile's and PostgreSQL's own refusals name none; the README promises issues keyed by argument.
 *
 * The rule (docs/decisions.md, "One name per field in GraphQL's refusals"): a field is named as the operation's field
 * takes it, a tool field's argument (`title`) or a field of a mutation's `input` (`name`, `skills.0.name`), which
 * is also how the SQL checks behind the mutations name it (a name too long: `name`). PostGraphile's `input` object
 * only wraps the procedure's arguments, so it is left out. A NUL in a literal under `input` was `input.name`.
 */
function argumentOf(error: GraphQLError, message: string): string | undefined {
  const field = error.nodes?.[0];
  if (field?.kind !== Kind.FIELD) return undefined;
  const args = field.arguments ?? [];
  if (/cursor/i.test(message)) return args.find((a) => a.name.value === 'after' || a.name.value === 'before')?.name.value;
  for (const a of args) {
    const wrapper = a.name.value === 'input' && a.value.kind === Kind.OBJECT;
    const path = nulPath(a.value, wrapper ? '' : a.name.value);
    if (path) return path;
  }
  return args.length === 1 ? args[0]!.name.value : undefined;
}

/** Where in a literal a string holding NUL sits (`condition.title`), if anywhere; `path` is the literal's own ('' at the top). */
function nulPath(value: ValueNode, path: string): string | undefined {
  const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
  switch (value.kind) {
    case Kind.STRING: return value.value.includes('\0') ? path : undefined;
    case Kind.OBJECT:
      for (const f of value.fields) {
        const found = nulPath(f.value, at(f.name.value));
        if (found) return found;
      }
      return undefined;
    case Kind.LIST:
      for (const [i, v] of value.values.entries()) {
        const found = nulPath(v, at(i));
        if (found) return found;
      }
      return undefined;
    default: return undefined;
  }
}

/** issues {input: m} renamed to the argument it is about, when argumentOf finds it. */
function namedInput(extensions: GraphqlErrorExtensions, error: GraphQLError): GraphqlErrorExtensions {
  const message = extensions.issues?.input;
  if (message === undefined || Object.keys(extensions.issues!).length !== 1) return extensions;
  const name = argumentOf(error, message);
  return name ? { ...extensions, issues: { [name]: message } } : extensions;
}

/**
 * Whether a GraphQL document holds a mutation (its outcome is unknown when its connection goes mid-call): an
 * operation starting `mutation`, at the start or after another definition, comments aside.
 */
export const isMutationDocument = (document: string): boolean => /(^|\})\s*mutation\b/.test(document.replace(/#[^\n\r]*/g, ''));

export function maskError(error: GraphQLError): GraphQLError {
  const original = error.originalError;
  // A mutation's connection lost mid-call leaves its outcome unknown (errors.ts databaseUnavailable): said as on REST.
  const write = isMutationDocument(error.source?.body ?? '');
  const mapped = original instanceof ApiError ? original : original ? fromPgError(original, { write }) : undefined;
  if (!mapped) {
    const masked = defaultMaskError(error);
    // GraphQL's own errors (validation, coercion) are the client's and already say so.
    if (!original || original instanceof GraphQLError) return masked;
    // Grafast's safe errors are the request's fault; anything else stays masked (a logged id, no
    // internals) but still carries a code and status like every other error.
    const extensions: GraphqlErrorExtensions = isSafeError(original)
      ? { code: 'invalid_input', status: 400, issues: { input: masked.message } }
      : { code: 'internal', status: 500 };
    return new GraphQLError(masked.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      originalError: original,
      extensions: { ...masked.extensions, ...namedInput(extensions, error) },
    });
  }
  return new GraphQLError(mapped.body.message ?? mapped.body.error, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: original,
    extensions: { ...namedInput(errorExtensions(mapped, camel), error) },
  });
}
