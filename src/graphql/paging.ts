/**
 * Keyset paging that holds: ordered by any column (nullable, of any type, or first in a composite unique), and over
 * the procedures that list rows (accessKeys, plugins).
 * docs/decisions.md, GraphQL: "Paging".
 */
import type { PgCodec, PgCodecWithAttributes, PgSelectQueryBuilder, PgSelectStep } from 'postgraphile/@dataplan/pg';
import type { ConnectionStep } from 'postgraphile/grafast';

type Apply = (queryBuilder: PgSelectQueryBuilder, ...rest: unknown[]) => void;

/** The codec with `fromPg` that gives null for null: the cursor puts each order value through it (below). */
const nullSafeCodecs = new WeakMap<PgCodec, PgCodec>();
export function nullSafeCodec(codec: PgCodec): PgCodec {
  let safe = nullSafeCodecs.get(codec);
  if (!safe) {
    const fromPg = codec.fromPg.bind(codec);
    safe = Object.create(codec, { fromPg: { value: (value: string | null) => (value == null ? null : fromPg(value)) } }) as PgCodec;
    nullSafeCodecs.set(codec, safe);
  }
  return safe;
}

/**
 * Every `<COLUMN>_ASC/DESC` value of a table's orderBy is applied here rather than by PgOrderAllAttributesPlugin,
 * whose order did not page in three ways (docs/decisions.md, GraphQL: "Paging"):
 *
 * - A nullable column is sorted by an order of its own first, `(column is null)`: @dataplan/pg 1.1's cursor
 *   condition across NULLs (`applyConditionFromCursor`, for an attribute that is nullable) tests the wrong side
 *   (after a dated row it never reaches the undated ones; after an undated one it starts over at the first date);
 *   with this order in front its null branch never decides: the rows it compares on the column are both null or
 *   both not. The visible order is PostgreSQL's as before (nulls last ascending, first descending).
 * - The cursor holds `codec.fromPg(value)` of each order (PgCursorStep), null or not: the int2/int4/oid codecs
 *   parse with `+value`, so a null became 0 (`SLA_MINUTES_ASC`: after a null, `sla_minutes > 0` matched nothing;
 *   descending, `< 0` matched nothing and the page started over), and the boolean codec's `value[0]` throws (so do
 *   inet, interval and bytea). A nullable column's order carries `nullSafeCodec(codec)`, which leaves a null null,
 *   as the text, numeric, date, timestamp, uuid and enum codecs did already.
 * - PostGraphile takes a column as unique when it is the first of any unique constraint
 *   (`uniques.some(u => u.attributes[0] === name)`), and appends no primary key to break ties: `WORKSPACE_ID_ASC`
 *   (first in every `unique (workspace_id, id)`), `ISSUE_ID_ASC` on issue labels (primary key (issue_id, label_id))
 *   and the like stopped after one page, their cursor holding a value every row shares. Here a column is unique only
 *   when a unique constraint is that column alone and it is not null (a unique nullable column has many nulls).
 *
 * A cursor's digest is the SQL of the orders, which the codec does not change: a cursor taken before with 0 for a
 * null still parses and pages from 0 (paging again from the first page is right). `WORKSPACE_ID_*` and the like
 * now end in the primary key: their old cursors are refused (400).
 */
export const AttributeOrderPlugin: GraphileConfig.Plugin = {
  name: 'SvcAttributeOrderPlugin',
  version: '0.0.0',
  after: ['PgOrderAllAttributesPlugin'],
  schema: {
    hooks: {
      GraphQLEnumType_values(values, build, context) {
        const { isPgRowSortEnum, pgCodec: rawCodec } = context.scope;
        if (!isPgRowSortEnum || !rawCodec?.attributes || rawCodec.isAnonymous) return values;
        const pgCodec = rawCodec as PgCodecWithAttributes;
        const { sql, inflection } = build;
        const { TYPES } = build.dataplanPg;
        const nullsLastOption = build.options.pgOrderByNullsLast;
        const uniques = build.pgTableResource(pgCodec)?.uniques ?? [];
        let out = values;
        for (const [attributeName, attribute] of Object.entries(pgCodec.attributes)) {
          if (attribute.via) continue;
          const nullable = !attribute.notNull && !attribute.codec.notNull;
          const isUnique = !nullable && uniques.some((u) => u.attributes.length === 1 && u.attributes[0] === attributeName);
          for (const variant of ['asc', 'desc'] as const) {
            const name = inflection.orderByAttributeEnum({ codec: pgCodec, attributeName, variant });
            const value = out[name];
            if (!value?.extensions?.grafast?.apply) continue; // not orderable (behavior), or another plugin's value
            const direction = variant === 'asc' ? 'ASC' : 'DESC';
            const nulls = nullsLastOption == null ? undefined : nullsLastOption ? 'LAST' : 'FIRST';
            const nullsFirst = nulls == null ? direction === 'DESC' : nulls === 'FIRST';
            const apply: Apply = (queryBuilder) => {
              if (nullable) {
                queryBuilder.orderBy({
                  attribute: attributeName,
                  direction: nullsFirst ? 'DESC' : 'ASC',
                  // `is null` is never null: a plain comparison in the cursor condition.
                  callback: (expression) => [sql`(${expression} is null)`, TYPES.boolean, false],
                });
              }
              queryBuilder.orderBy({
                attribute: attributeName,
                direction,
                ...(nulls ? { nulls } : null),
                ...(nullable ? { callback: (expression, codec, isNullable) => [expression, nullSafeCodec(codec), isNullable] } : null),
              });
              if (isUnique) queryBuilder.setOrderIsUnique();
            };
            out = { ...out, [name]: { ...value, extensions: { ...value.extensions, grafast: { ...value.extensions!.grafast, apply } } } };
          }
        }
        return out;
      },
    },
  },
};

/**
 * The procedures whose connections page by keyset: PostGraphile pages a function's rows by their position
 * (cursor `["natural", n]`), so a row created or removed between two pages repeated or skipped one. Their
 * connections are ordered here, by columns that never change, ending in a unique one; the cursor holds those values.
 */
export const KEYSET_PROCEDURES: Record<string, ReadonlyArray<readonly [attribute: string, direction: 'ASC' | 'DESC']>> = {
  // Newest first (app_public.access_keys' own order); the id breaks ties.
  'app_public.access_keys': [['created_at', 'DESC'], ['id', 'DESC']],
  // Oldest first (app_hidden.plugins' own order).
  'app_public.plugins': [['created_at', 'ASC'], ['id', 'ASC']],
};

export const ProcedureKeysetPlugin: GraphileConfig.Plugin = {
  name: 'SvcProcedureKeysetPlugin',
  version: '0.0.0',
  schema: {
    hooks: {
      GraphQLObjectType_fields_field(field, _build, context) {
        const { isPgFieldConnection, pgFieldResource } = context.scope;
        const pg = pgFieldResource?.extensions?.pg as { schemaName?: string; name?: string } | undefined;
        const order = isPgFieldConnection && pgFieldResource?.parameters && pg ? KEYSET_PROCEDURES[`${pg.schemaName}.${pg.name}`] : undefined;
        if (!order) return field;
        const plan = field.plan as (...args: unknown[]) => ConnectionStep<any, any, any, any, any, any>;
        if (!plan) throw new Error(`${context.scope.fieldName}: no plan to order`);
        return {
          ...field,
          plan(...args: unknown[]) {
            const $connection = plan(...args);
            const $select = $connection.getSubplan() as unknown as PgSelectStep;
            for (const [attribute, direction] of order) {
              // The values are never null (a composite type's columns are nullable to PostGraphile): the cursor
              // condition is a plain row comparison.
              $select.orderBy({ attribute, direction, callback: (expression, codec) => [expression, codec, false] });
            }
            $select.setOrderIsUnique();
            return $connection;
          },
        };
      },
    },
  },
};
