/**
 * Descriptions PostgreSQL cannot hold as comments: a function's arguments and what its mutation returns, and the
 * arguments of the generated row lookups (`issue(rowId:)`). Every field and argument of the schema has a
 * description (test/graphql/schema.test.ts); columns have theirs from `comment on column`, functions from
 * `comment on function`, and this plugin reads the rest from the function's own comment, as smart tags:
 *
 *   comment on function app_public.access_create_session(ttl_hours integer, name text) is '@arg ttlHours Hours until …
 *   @arg name A label for the key in key lists, one line of up to 200 characters.
 *   @result The new SESSION key, with its rawKey: the secret, shown only here.
 *   access.createSession: a SESSION key (your scopes and narrowing) expiring after ttlHours (…)';
 *
 * - `@arg <graphqlName> <text>`, one line per argument, names the argument as GraphQL does (camelCase): the field of
 *   a mutation's input (AccessCreateSessionInput.ttlHours) or the argument of a query function
 *   (agentsPipeline(sinceHours:)). A name the function has no argument of fails the schema build.
 * - `@result <text>` describes the mutation payload's result field (AccessCreateSessionPayload.issuedApiKey).
 * - Tags come first (PostGraphile's smart comments); the lines after them are the field's own description.
 *
 * Lookups by a unique key (`issue(rowId:)`, `workspaceByKey(key:)`) describe each argument with its column's comment.
 */
import type { PgCodecWithAttributes, PgResource } from 'postgraphile/@dataplan/pg';

type AnyResource = PgResource<any, any, any, any, any>;

/** The `@arg` lines of a function's comment: GraphQL argument name → description. */
function argTags(resource: AnyResource): Map<string, string> {
  const raw = resource.extensions?.tags?.arg as string | string[] | true | undefined;
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const out = new Map<string, string>();
  for (const line of lines) {
    const m = typeof line === 'string' ? /^([_A-Za-z][_0-9A-Za-z]*)\s+(\S.*)$/.exec(line.trim()) : null;
    if (!m) throw new Error(`${resource.name}: "@arg ${line === true ? '' : line}" must be "@arg <argumentName> <description>"`);
    if (out.has(m[1]!)) throw new Error(`${resource.name}: @arg ${m[1]} is given twice`);
    out.set(m[1]!, m[2]!);
  }
  return out;
}

/** Every `@arg` must name an argument the field has: a renamed argument must not keep a stale description. */
function checkArgNames(resource: AnyResource, where: string, names: Iterable<string>) {
  const known = new Set(names);
  const stale = [...argTags(resource).keys()].filter((n) => !known.has(n));
  if (stale.length) throw new Error(`${resource.name}: @arg ${stale.join(', ')}: ${where} has no such argument`);
}

const functionResources = (build: GraphileBuild.Build) =>
  Object.values(build.input.pgRegistry.pgResources as Record<string, AnyResource>).filter((r) => r.parameters);

const byInputType = new WeakMap<object, Map<string, AnyResource>>();
/** The function behind a mutation input type (its scope names no resource), by the type's name. */
function resourceOfMutationInput(build: GraphileBuild.Build, typeName: string): AnyResource | undefined {
  let map = byInputType.get(build);
  if (!map) {
    map = new Map(functionResources(build).map((r) => [build.inflection.customMutationInput({ resource: r }), r]));
    byInputType.set(build, map);
  }
  return map.get(typeName);
}

const byQueryField = new WeakMap<object, Map<string, AnyResource>>();
/** The function behind a root query field (its scope names no resource for a single-row or scalar result). */
function resourceOfQueryField(build: GraphileBuild.Build, fieldName: string): AnyResource | undefined {
  let map = byQueryField.get(build);
  if (!map) {
    map = new Map();
    for (const r of functionResources(build)) {
      if (r.isMutation) continue;
      const names = [build.inflection.customQueryField({ resource: r })];
      if (!r.isUnique) names.push(build.inflection.customQueryConnectionField({ resource: r }), build.inflection.customQueryListField({ resource: r }));
      for (const n of names) map.set(n, r);
    }
    byQueryField.set(build, map);
  }
  return map.get(fieldName);
}

export const DescriptionsPlugin: GraphileConfig.Plugin = {
  name: 'SvcDescriptionsPlugin',
  version: '0.0.0',
  schema: {
    hooks: {
      // AccessCreateInput.expiresInDays: the function's `@arg expiresInDays …`.
      GraphQLInputObjectType_fields(fields, build, context) {
        if (!context.scope.isMutationInput) return fields;
        const resource = resourceOfMutationInput(build, context.Self.name);
        if (!resource) return fields;
        checkArgNames(resource, context.Self.name, Object.keys(fields));
        const args = argTags(resource);
        return Object.fromEntries(Object.entries(fields).map(([name, field]) =>
          [name, field.description || !args.has(name) ? field : { ...field, description: args.get(name) }]));
      },

      // AccessCreatePayload.issuedApiKey: the function's `@result …`.
      GraphQLObjectType_fields_field(field, _build, context) {
        const { isMutationPayload, pgTypeResource, fieldName } = context.scope;
        if (!isMutationPayload || !pgTypeResource || field.description || fieldName === 'clientMutationId' || fieldName === 'query') return field;
        const result = (pgTypeResource as AnyResource).extensions?.tags?.result;
        return typeof result === 'string' ? { ...field, description: result } : field;
      },

      // agentsPipeline(sinceHours:): the function's `@arg sinceHours …`.
      GraphQLObjectType_fields_field_args(args, build, context) {
        const { isRootQuery, fieldName, isPgRowByUniqueConstraintField } = context.scope;
        if (!isRootQuery || isPgRowByUniqueConstraintField) return args;
        const resource = resourceOfQueryField(build, fieldName);
        if (!resource) return args;
        checkArgNames(resource, `Query.${fieldName}`, Object.keys(args));
        const tags = argTags(resource);
        for (const [name, arg] of Object.entries(args)) {
          if (!arg.description && tags.has(name)) args[name] = { ...arg, description: tags.get(name) };
        }
        return args;
      },

      // issue(rowId:), workspaceByKey(key:): the column's comment.
      GraphQLObjectType_fields_field_args_arg(arg, build, context) {
        const { isPgRowByUniqueConstraintField, pgFieldResource, pgFieldResourceUnique, argName } = context.scope;
        if (arg.description || !isPgRowByUniqueConstraintField || !pgFieldResource || !pgFieldResourceUnique) return arg;
        const codec = (pgFieldResource as AnyResource).codec as PgCodecWithAttributes;
        const attributeName = pgFieldResourceUnique.attributes.find((a: string) => build.inflection.attribute({ attributeName: a, codec }) === argName);
        const description = attributeName ? codec.attributes[attributeName]?.description : undefined;
        return description ? { ...arg, description } : arg;
      },
    },
  },
};
