/**
 * What one GraphQL request may ask for, checked before PostGraphile plans it (an outside review found that one
 * 167-byte query of lists nested three deep made PostgreSQL fail a 1 GB allocation, and 500 aliases of
 * `__schema` without a key made 55 MB answers that held the service for seconds):
 *
 *   - at most MAX_TOKENS tokens, MAX_DEFINITIONS operations and fragments, MAX_VARIABLES variables: parsing and
 *     validating a document is the one Node thread's work, before any limit below applies (an outside probe's 2 MB
 *     of 50,000 unused fragments took 0.5–1.7 s each, 4 keys of one person held every workspace at p50 10 s);
 *   - at most MAX_FIELDS field selections, fragments expanded (stops counting at the limit: fragment bombs), and one
 *     response name at most MAX_SAME_NAME times at one level (graphql-js's check that same-named fields merge is
 *     quadratic; it gave up at 708 with a bare "Validation aborted.");
 *   - at most MAX_DEPTH levels of fields outside introspection;
 *   - at most MAX_INTROSPECTION `__schema` / `__type` fields (GraphiQL asks for one `__schema`);
 *   - an estimate of the rows the lists can read, at most MAX_ROWS: each list or connection multiplies its
 *     parent's count by its `first` / `last` (a literal or a variable), or by UNPAGED when it has none, and adds
 *     the rows its `offset` skips (whatever the connection selects: only `pageInfo` or `totalCount` too), whose nested
 *     lists count for each skipped row as for each row of the page (PostgreSQL shapes a row before OFFSET drops it);
 *     a connection's `totalCount` counts as COUNTED rows, or COUNTED_NESTED for each row of the lists above it when
 *     that is more (a count of each row's comments or sub-issues reads that row's few: 100 issues with their comment
 *     counts were refused as 100,100 rows; a count under one row, a workspace, may read them all). A list
 *     without `first` returns every row it holds (PostGraphile has no default page), so it counts as a large
 *     table: a whole list of statuses or labels passes, a list nested in an unpaged list does not (an outside
 *     probe's three unpaged levels, counted as 10 each, made 130 MB and held every workspace for 30 s). What the
 *     estimate cannot foresee is bounded by the time budget of the request, all its statements together, on one
 *     connection at a time (request-budget.ts);
 *   - at most MAX_TOOL_FIELDS catalog tool fields (issuesList, issuesCreate, …), as a JSON-RPC batch holds at most
 *     50 calls; each tool field is one call of the key's rate limit (issuesList in a query too), as each call of a
 *     batch is, and so is each root field of a mutation (a query of PostGraphile's own lists counts once however
 *     many it reads, the board's six columns included).
 *
 * A document that does not parse is left to PostGraphile's own error, except when its nesting overflows the
 * parser's stack, which is answered here.
 */
import {
  getNamedType, getNullableType, isListType, isObjectType, isInterfaceType, Kind, parse,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLNamedType, type GraphQLSchema, type SelectionSetNode, type ValueNode,
} from 'postgraphile/graphql';
import { DEPTH_MESSAGE, MAX_INPUT_DEPTH } from '../tools/text-guard.ts';

export const GRAPHQL_LIMITS = {
  MAX_TOKENS: 5_000,
  MAX_DEFINITIONS: 100,
  MAX_VARIABLES: 100,
  MAX_FIELDS: 1_000,
  MAX_SAME_NAME: 50,
  MAX_DEPTH: 12,
  MAX_INTROSPECTION: 5,
  MAX_ROWS: 100_000,
  UNPAGED: 10_000,
  COUNTED: 1_000,
  COUNTED_NESTED: 100,
  MAX_TOOL_FIELDS: 50,
} as const;

export interface QueryShape {
  /** Why the request is refused (the whole message), or undefined. */
  refused?: string;
  /** A page argument out of range (`first: -1`): argument name → message, answered as 400 invalid_input. */
  invalid?: Record<string, string>;
  /** Root fields of mutations (catalog tools and in-app procedures alike) and tool fields of queries: each counts as one call of the rate limit. */
  writes: number;
}

/** A refusal; its message follows "Query too large: " unless it says what else is wrong. */
class Refused extends Error {
  constructor(reason: string, prefix = 'Query too large: ') { super(prefix + reason); }
}
/** A negative first/last/offset: PostgreSQL's "LIMIT must not be negative" would name no argument. */
/** An argument refused as input (400 naming it). */
class InvalidArgument extends Error {
  constructor(readonly argument: string, message: string) { super(message); }
}

/**
 * Whether a literal written into the query (not a variable) nests objects and lists deeper than tool input may
 * (MAX_INPUT_DEPTH; the argument's own value is level 1): JSON arguments reach the database as text, and 2,500 levels
 * overflowed the stack where they were serialized (a 500). Stops descending past the limit.
 */
const nestsTooDeep = (v: ValueNode, level = 1): boolean => {
  if (v.kind !== Kind.OBJECT && v.kind !== Kind.LIST) return false;
  if (level > MAX_INPUT_DEPTH) return true;
  return v.kind === Kind.OBJECT ? v.fields.some((f) => nestsTooDeep(f.value, level + 1)) : v.values.some((x) => nestsTooDeep(x, level + 1));
};

/**
 * The parsed document, or why it is refused before it is: its nesting overflowed the parser's recursion, or it has
 * more than MAX_TOKENS tokens (the parser stops there). Undefined when it does not parse: PostGraphile's own
 * syntax error answers it (the same parse, as short).
 */
export function parseQuery(query: string): DocumentNode | { refused: string } | undefined {
  try {
    return parse(query, { maxTokens: GRAPHQL_LIMITS.MAX_TOKENS });
  } catch (err) {
    if (err instanceof RangeError) return { refused: new Refused('nested too deeply to parse').message };
    if (err instanceof Error && /Document contains more tha[nt] \d+ tokens/.test(err.message)) { // sic: "more that" in graphql 16
      return { refused: new Refused(`more than ${GRAPHQL_LIMITS.MAX_TOKENS.toLocaleString('en')} tokens (names, punctuation and values of the query text; variables do not count)`).message };
    }
    return undefined;
  }
}

/** Checks a parsed document against GRAPHQL_LIMITS, with the request's variables for `first` / `last`. */
export function measureQuery(schema: GraphQLSchema, doc: DocumentNode, variables: Record<string, unknown> | undefined, toolFieldNames: ReadonlySet<string>): QueryShape {
  const L = GRAPHQL_LIMITS;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let fields = 0;
  let introspection = 0;
  let rows = 0;
  let toolFields = 0;
  let writes = 0;

  // A variable left out of the request takes its default (`query($n: Int = 120)`): counted as that, not as
  // UNPAGED. With several operations in the document the largest default of a name counts.
  const defaults = new Map<string, number>();
  for (const d of doc.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of d.variableDefinitions ?? []) {
      if (v.defaultValue?.kind === Kind.INT) defaults.set(v.variable.name.value, Math.max(defaults.get(v.variable.name.value) ?? 0, Number(v.defaultValue.value)));
    }
  }
  const intValue = (node: ValueNode | undefined): number | undefined => {
    if (!node) return undefined;
    if (node.kind === Kind.INT) return Number(node.value);
    if (node.kind === Kind.VARIABLE) {
      const v = variables?.[node.name.value];
      return typeof v === 'number' ? v : v === undefined ? defaults.get(node.name.value) : undefined;
    }
    return undefined;
  };

  // A value as the request means it: a variable by its value (two aliases of `issues(first: $a)` and `(first: $b)`
  // with a = b are the same field).
  const valueKey = (v: ValueNode): string => {
    switch (v.kind) {
      case Kind.VARIABLE: return JSON.stringify(variables?.[v.name.value] ?? defaults.get(v.name.value) ?? null);
      case Kind.LIST: return `[${v.values.map(valueKey).join(',')}]`;
      case Kind.OBJECT: return `{${[...v.fields].sort((a, b) => a.name.value.localeCompare(b.name.value)).map((f) => `${f.name.value}:${valueKey(f.value)}`).join(',')}}`;
      case Kind.NULL: return 'null';
      default: return JSON.stringify((v as { value?: unknown }).value ?? null);
    }
  };
  // The fields a selection set asks for at its own level, through fragments and inline fragments (each fragment read
  // once: a fragment spread twice in each of twenty others would be a million paths).
  const levelFields = (set: SelectionSetNode, out: FieldNode[] = [], read = new Set<string>()): FieldNode[] => {
    for (const x of set.selections) {
      if (x.kind === Kind.FIELD) out.push(x);
      else if (x.kind === Kind.INLINE_FRAGMENT) levelFields(x.selectionSet, out, read);
      else if (!read.has(x.name.value) && fragments.has(x.name.value)) {
        read.add(x.name.value);
        levelFields(fragments.get(x.name.value)!.selectionSet, out, read);
      }
    }
    return out;
  };
  const selects = (set: SelectionSetNode, field: string): boolean => levelFields(set).some((f) => f.name.value === field);
  /**
   * The same field with the same arguments under two names (aliases) is read once and written out twice: twenty
   * aliases of one list of long descriptions made a 240 MB answer from 12 MB of rows (past REQUEST_BYTES_MAX, which
   * counts rows), and fifty a string too long for JSON (a 500). It adds nothing an answer needs.
   */
  const refuseRepeats = (set: SelectionSetNode) => {
    const names = new Map<string, Set<string>>();
    const responseNames = new Map<string, number>();
    for (const f of levelFields(set)) {
      const responseName = f.alias?.value ?? f.name.value;
      const times = (responseNames.get(responseName) ?? 0) + 1;
      responseNames.set(responseName, times);
      if (times > L.MAX_SAME_NAME) throw new Refused(`${responseName} is asked for more than ${L.MAX_SAME_NAME} times at one level: ask for it once`, 'Query repeats a field: ');
      if (f.name.value.startsWith('__')) continue;
      const key = `${f.name.value}(${(f.arguments ?? []).map((a) => `${a.name.value}:${valueKey(a.value)}`).sort().join(',')})`;
      const seen = names.get(key) ?? new Set<string>();
      seen.add(f.alias?.value ?? f.name.value);
      names.set(key, seen);
      if (seen.size > 1) {
        throw new Refused(`${f.name.value} is asked for under ${seen.size} names with the same arguments (${[...seen].join(', ')}): ask for it once and use it in both places`, 'Query repeats a field: ');
      }
    }
  };

  let inMutation = false;
  // viaSingle: a to-one field (an issue's workspace) lies between the last list and here, so the rows of that list
  // share what is below it: a count there is not of each row's own few.
  const walk = (set: SelectionSetNode, parent: GraphQLNamedType | undefined, depth: number, multiplier: number, inIntrospection: boolean, spreading: Set<string>, viaSingle: boolean) => {
    // (A mutation's fields are writes, each its own: only what they answer is checked.)
    if (!inIntrospection && !(inMutation && depth === 0)) refuseRepeats(set);
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        if (++fields > L.MAX_FIELDS) throw new Refused(`more than ${L.MAX_FIELDS} fields`);
        const name = sel.name.value;
        const introspecting = inIntrospection || name.startsWith('__');
        if (name === '__schema' || name === '__type') {
          if (++introspection > L.MAX_INTROSPECTION) throw new Refused(`more than ${L.MAX_INTROSPECTION} __schema/__type fields`);
        }
        if (!introspecting && depth + 1 > L.MAX_DEPTH) throw new Refused(`fields nested more than ${L.MAX_DEPTH} deep`);
        if (depth === 0 && toolFieldNames.has(name) && ++toolFields > L.MAX_TOOL_FIELDS) {
          throw new Refused(`more than ${L.MAX_TOOL_FIELDS} tool fields (issuesList, issuesCreate, …) in one request`);
        }
        // Every write is a call (200 aliased accessCreateSession fields in one request once counted as one), and so
        // is every tool field of a query (issuesList: a tool call, as over REST).
        if (depth === 0 && (inMutation || toolFieldNames.has(name)) && !introspecting) writes++;
        for (const arg of sel.arguments ?? []) {
          if (['first', 'last', 'offset'].includes(arg.name.value) && (intValue(arg.value) ?? 0) < 0) {
            throw new InvalidArgument(arg.name.value, `${arg.name.value} must be 0 or more`);
          }
          if (nestsTooDeep(arg.value)) throw new InvalidArgument(arg.name.value, DEPTH_MESSAGE);
        }
        const def = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[name] : undefined;
        let count = multiplier;
        let many = false;
        if (def && !introspecting) {
          const type = getNamedType(def.type);
          // A connection counts its page; its `nodes` / `edges` are that page again, not a further factor;
          // a list of scalars (labelIds) is part of its row.
          const inConnection = parent?.name.endsWith('Connection') ?? false;
          const isConnection = type.name.endsWith('Connection');
          const asked = (sel.selectionSet?.selections ?? []);
          // A connection asked only for totalCount or pageInfo returns no rows.
          const rowsOfConnection = !isConnection || asked
            .some((x) => x.kind !== Kind.FIELD || x.name.value === 'nodes' || x.name.value === 'edges');
          // But its count reads every row it holds (450 aliased counts held the pool for 15 s): a tenth of an
          // unpaged list, as it shapes none of them.
          if (isConnection && !inConnection && sel.selectionSet && selects(sel.selectionSet, 'totalCount')) {
            rows += viaSingle ? multiplier * L.COUNTED : Math.max(L.COUNTED, multiplier * L.COUNTED_NESTED);
          }
          many = sel.selectionSet !== undefined && !inConnection && rowsOfConnection
            && (isListType(getNullableType(def.type)) || isConnection);
          if (many) {
            const page = intValue(sel.arguments?.find((a) => a.name.value === 'first' || a.name.value === 'last')?.value);
            count = multiplier * Math.max(1, page ?? L.UNPAGED);
            rows += count;
          }
          // An offset reads the rows it skips (`first: 1, offset: 59000` sorts and reads 59,001), whatever is
          // selected: a connection asked only for pageInfo or totalCount skips them too (hasNextPage reads past them).
          if ((many || isConnection) && !inConnection) {
            const offset = Math.max(0, intValue(sel.arguments?.find((a) => a.name.value === 'offset')?.value) ?? 0);
            rows += multiplier * offset;
            // And PostgreSQL works out the fields inside for every row it skips (OFFSET drops rows after their select
            // list): page 501 of issues with their labels and comment counts took 0.4–1.0 s, with `key` alone 39 ms.
            if (many) count += multiplier * offset;
          }
          if (rows > L.MAX_ROWS) {
            throw new Refused(`the lists asked for could read about ${Math.round(rows).toLocaleString('en')} rows (at most ${L.MAX_ROWS.toLocaleString('en')}): ` +
              `pass first/last on the lists, smaller on nested ones (a list without first counts as ${L.UNPAGED.toLocaleString('en')}, ` +
              `a totalCount as ${L.COUNTED.toLocaleString('en')} or ${L.COUNTED_NESTED} per row of the lists above it, an offset as the rows it skips, `
              + 'the lists inside it once for each of them: page with after/before cursors instead)');
          }
        }
        // A list starts rows of its own; a connection's nodes, edges and an edge's node are its rows again; any other
        // object field is a to-one hop.
        const sameRows = /(Connection|Edge)$/.test(parent?.name ?? '');
        if (sel.selectionSet) {
          walk(sel.selectionSet, def ? getNamedType(def.type) : undefined, introspecting ? depth : depth + 1, count, introspecting, spreading,
            many ? false : sameRows ? viaSingle : true);
        }
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) ?? parent : parent;
        walk(sel.selectionSet, on, depth, multiplier, inIntrospection, spreading, viaSingle);
      } else {
        const name = sel.name.value;
        const fragment = fragments.get(name);
        if (!fragment || spreading.has(name)) continue; // unknown or cyclic: GraphQL validation reports it
        spreading.add(name);
        walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? parent, depth, multiplier, inIntrospection, spreading, viaSingle);
        spreading.delete(name);
      }
    }
  };

  try {
    if (doc.definitions.length > L.MAX_DEFINITIONS) throw new Refused(`more than ${L.MAX_DEFINITIONS} operations and fragments in one document`);
    const variableCount = doc.definitions.reduce((n, d) => n + (d.kind === Kind.OPERATION_DEFINITION ? d.variableDefinitions?.length ?? 0 : 0), 0);
    if (variableCount > L.MAX_VARIABLES) throw new Refused(`more than ${L.MAX_VARIABLES} variables`);
    for (const d of doc.definitions) {
      if (d.kind !== Kind.OPERATION_DEFINITION) continue;
      inMutation = d.operation === 'mutation';
      const root = d.operation === 'mutation' ? schema.getMutationType() : d.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
      walk(d.selectionSet, root ?? undefined, 0, 1, false, new Set(), false);
    }
  } catch (err) {
    if (err instanceof Refused) return { refused: err.message, writes };
    if (err instanceof InvalidArgument) return { invalid: { [err.argument]: err.message }, writes };
    throw err;
  }
  return { writes };
}
