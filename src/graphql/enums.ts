/**
 * Closed sets as GraphQL enums. Our tables keep a closed set of values in a text column with a CHECK
 * (`priority in ('NONE', 'LOW', …)`, not a PostgreSQL enum: a CHECK can lose a value in a migration), which
 * PostGraphile shows as String: a generated client typed them `string`, and a filter with a wrong value
 * (`condition: {priority: "high"}`) listed nothing instead of being refused. Here every such column whose values are
 * all GraphQL enum names (UPPER_SNAKE: the same text REST and MCP answer) gets an enum codec over the same text, so its
 * field, its `condition` and its ordering are typed, and a wrong value is a validation error.
 *
 * Names: a column of several tables whose every CHECK lists the same values gives one enum of the column's name
 * (Priority, Severity); any other is its table's (AgentStatus, AgentRunStatus, StatusCategory).
 */
import type pg from 'pg';
import { enumCodec, type PgCodec } from 'postgraphile/@dataplan/pg';
import { sql } from 'postgraphile/pg-sql2';

const GRAPHQL_ENUM_VALUE = /^[A-Z][A-Z0-9_]*$/;

/** table → column → its values, read from the CHECK constraints of app_public (`col = ANY (ARRAY['A'::text, …])`). */
export type ClosedSets = Map<string, Map<string, string[]>>;

export async function loadClosedSets(pool: Pick<pg.Pool, 'query'>): Promise<ClosedSets> {
  const { rows } = await pool.query<{ table: string; def: string }>(
    `select c.conrelid::regclass::text as table, pg_get_constraintdef(c.oid) as def
     from pg_constraint c join pg_class r on r.oid = c.conrelid
     where c.contype = 'c' and r.relnamespace = 'app_public'::regnamespace and r.relkind = 'r'
     order by 1, c.conname`);
  const sets: ClosedSets = new Map();
  for (const r of rows) {
    // `col = ANY (ARRAY[…])`, or `col IS NULL OR col = ANY (ARRAY[…])` (a nullable column written so).
    const m = r.def.match(/^CHECK \(\(?(\w+) = ANY \(ARRAY\[(.*)\]\)\)?\)$/)
      ?? r.def.match(/^CHECK \(\(\((\w+) IS NULL\) OR \(\1 = ANY \(ARRAY\[(.*)\]\)\)\)\)$/);
    if (!m) continue;
    const values = m[2]!.split(', ').map((v) => v.match(/^'([^']*)'::text$/)?.[1]);
    if (values.some((v) => v === undefined || !GRAPHQL_ENUM_VALUE.test(v))) continue;
    const table = r.table.replace(/^app_public\./, '');
    if (!sets.has(table)) sets.set(table, new Map());
    // In name order: the order orderBy sorts the column in (as text), so the order the enum lists them in says it.
    sets.get(table)!.set(m[1]!, (values as string[]).sort());
  }
  return sets;
}

const pascal = (snake: string) => snake.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
/** issues → Issue, agent_runs → AgentRun, statuses → Status (the tables' own type names). */
const singular = (table: string) => pascal(/(ses|xes)$/.test(table) ? table.slice(0, -2) : /ies$/.test(table) ? `${table.slice(0, -3)}y` : table.replace(/s$/, ''));

/** The enum's name for each table.column: the column's own where all tables agree on its values, else the table's and the column's. */
export function closedSetNames(sets: ClosedSets): Map<string, string> {
  const byColumn = new Map<string, string[]>();
  for (const columns of sets.values()) {
    for (const [column, values] of columns) byColumn.set(column, [...(byColumn.get(column) ?? []), values.join(',')]);
  }
  const names = new Map<string, string>();
  for (const [table, columns] of sets) {
    for (const column of columns.keys()) {
      const seen = byColumn.get(column)!;
      const shared = seen.length > 1 && new Set(seen).size === 1;
      names.set(`${table}.${column}`, shared ? pascal(column) : `${singular(table)}${pascal(column)}`);
    }
  }
  return names;
}

export function closedSetEnumsPlugin(sets: ClosedSets): GraphileConfig.Plugin {
  const names = closedSetNames(sets);
  const codecs = new Map<string, PgCodec>();
  return {
    name: 'SvcClosedSetEnumsPlugin',
    version: '0.0.0',
    gather: {
      hooks: {
        async pgCodecs_attribute(info, event) {
          const table = event.pgClass.relname;
          const column = event.pgAttribute.attname;
          const values = sets.get(table)?.get(column);
          if (!values || event.attribute.codec.name !== 'text') return;
          const name = names.get(`${table}.${column}`)!;
          let codec = codecs.get(name);
          if (!codec) {
            // A PostgreSQL enum of that name (membership_role, which viewerRole answers) with the same values is that
            // one GraphQL enum; with other values this one is named apart.
            const snake = name.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
            const pgType = await info.helpers.pgIntrospection.getTypeByName(event.serviceName, 'app_public', snake);
            const existing = pgType?.typtype === 'e' ? await info.helpers.pgCodecs.getCodecFromType(event.serviceName, pgType._id) : null;
            const existingValues = (existing as { values?: Array<{ value: string }> } | null)?.values;
            const same = existingValues?.map((v) => v.value).sort().join() === values.join();
            codec = same ? existing! : {
              ...enumCodec({ name: pgType ? `${name}Value` : name, identifier: sql`text`, values,
                description: 'Listed, and ordered by orderBy, by name.' }),
              hasNaturalOrdering: true,
            };
            codecs.set(name, codec);
          }
          event.attribute.codec = codec;
          // PostGraphile does not order by an enum column unless told: these kept their orderBy values (text order).
          const tags = event.attribute.extensions?.tags ?? {};
          const behavior = [tags.behavior ?? []].flat().filter((b): b is string => typeof b === 'string');
          event.attribute.extensions = { ...event.attribute.extensions, tags: { ...tags, behavior: [...behavior, '+attribute:orderBy'] } };
        },
      },
    },
  };
}
