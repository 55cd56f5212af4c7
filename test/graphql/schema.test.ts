/**
 * The GraphQL schema is a contract with in-app clients: its printed form is committed (schema.graphql)
 * and this test fails when it changes unnoticed. After an intended change: `npm run graphql:schema`.
 */
import '../../src/polyfills.ts';
import fs from 'node:fs/promises';
import path from 'node:path';
import { makeSchema } from 'postgraphile';
import { GraphQLObjectType, isInputObjectType, isInterfaceType, isObjectType, lexicographicSortSchema, printSchema, type GraphQLSchema } from 'postgraphile/graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPools, type Pools } from '../../src/db/database.ts';
import { makePreset } from '../../src/graphql/preset.ts';
import { loadClosedSets } from '../../src/graphql/enums.ts';
import { createTestDatabase } from '../support/harness.ts';

const SNAPSHOT = path.resolve('schema.graphql');
let pools: Pools;
let schema: GraphQLSchema;
let printed: string;
const buildLog: string[] = [];

beforeAll(async () => {
  pools = createPools(await createTestDatabase(), { apiMax: 2, ownerMax: 1 });
  const spies = (['log', 'info', 'warn', 'error'] as const).map((level) =>
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void buildLog.push(`${level}: ${args.map(String).join(' ')}`)));
  try {
    ({ schema } = await makeSchema(makePreset({ pool: pools.api, closedSets: await loadClosedSets(pools.api) })));
  } finally {
    for (const s of spies) s.mockRestore();
  }
  printed = printSchema(lexicographicSortSchema(schema));
});
afterAll(() => pools.end());

describe('GraphQL schema', () => {
  it('builds without warnings (no naming collisions, nothing dropped)', () => {
    expect(buildLog).toEqual([]);
  });

  it('matches the committed schema.graphql (regenerate with `npm run graphql:schema`)', async () => {
    if (process.env.SVC_UPDATE_GRAPHQL_SCHEMA === '1') {
      await fs.writeFile(SNAPSHOT, printed);
      return;
    }
    const committed = await fs.readFile(SNAPSHOT, 'utf8').catch(() => '');
    // A plain equality keeps the failure readable: vitest prints the diff.
    expect(printed, 'schema.graphql is out of date: run `npm run graphql:schema` and commit it').toBe(committed);
  });

  it('exposes no secrets, hashes, internal columns or app_private tables', () => {
    const fields: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || !('getFields' in type)) continue;
      for (const f of Object.keys((type as GraphQLObjectType).getFields())) fields.push(`${type.name}.${f}`);
    }
    const suspicious = fields.filter((f) => {
      const name = f.split('.')[1]!;
      return /hash|secret|storageKey|actorKeyId|password|^(raw)?token$|^rawKey$/i.test(name) || name === 'revisions';
    });
    // The deliberate exceptions: a newly issued key and a rotated webhook secret are shown once.
    expect(suspicious.sort()).toEqual(['IssuedApiKey.rawKey', 'Mutation.webhooksRotateSecret']);
    for (const internal of ['ApiKeysConnection', 'WorkspaceCounter', 'Plugin', 'PluginsConnection', 'Caller']) {
      expect(schema.getType(internal), internal).toBeUndefined();
    }
  });

  it('describes every table type and every procedure from the SQL comments', () => {
    const undescribedTypes = Object.values(schema.getTypeMap())
      .filter((t) => isObjectType(t) && !t.name.startsWith('__') && !/(Connection|Edge|Payload)$/.test(t.name)
        && !['Query', 'Mutation', 'PageInfo'].includes(t.name) && !t.description)
      .map((t) => t.name);
    expect(undescribedTypes).toEqual([]);
    const procedures = [...Object.values(schema.getMutationType()!.getFields())];
    const q = schema.getQueryType()!.getFields();
    for (const name of ['accessKeys', 'plugins', 'currentWorkspace', 'viewer', 'viewerRole']) procedures.push(q[name]!);
    expect(procedures.filter((f) => !f.description).map((f) => f.name)).toEqual([]);
  });

  // App developers read these in GraphiQL's Docs. Where each comes from: a column's `comment on column`, a function's
  // `comment on function` (its arguments and its mutation's result from `@arg` / `@result` lines: src/graphql/descriptions.ts),
  // a catalog tool's zod `.describe()` or TOOL_ARGUMENT_DESCRIPTIONS (src/graphql/tool-mutations.ts); PostGraphile
  // describes its own (connections, edges, paging and ordering arguments, clientMutationId, nodeId lookups).
  it('every field and argument has a description', () => {
    const undescribed: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (!isObjectType(type) && !isInputObjectType(type) && !isInterfaceType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        if (!field.description?.trim()) undescribed.push(`${type.name}.${field.name}`);
        for (const arg of 'args' in field ? field.args : []) {
          if (!arg.description?.trim()) undescribed.push(`${type.name}.${field.name}(${arg.name})`);
        }
      }
    }
    expect(undescribed).toEqual([]);
  });
});
