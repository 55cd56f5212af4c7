/**
 * Keyset paging that holds: over nullable columns, and over the procedures that list rows (accessKeys, plugins).
 * docs/decisions.md, GraphQL: "Paging".
 */
import type { PgCodecWithAttributes, PgSelectQueryBuilder, PgSelectStep } from 'postgraphile/@dataplan/pg';
import type { ConnectionStep } from 'postgraphile/grafast';

type Apply = (queryBuilder: PgSelectQueryBuilder, ...rest: unknown[]) => void;

/**
 * Ordering by a nullable column (`issues(orderBy: DUE_DATE_ASC)`) sorts the rows without the value first or last
 * by an order of its own, `(column is null)`, ahead of the column: PostGraphile's cursor condition across NULLs
 * (@dataplan/pg 1.1, `applyConditionFromCursor`, for an attribute that is nullable) tests the wrong side (after a
 * dated row it never reaches the undated ones; after an undated one it starts over at the first date), and with this
 * order in front its null branch never decides: the rows it compares on the column are both null or both not. The
 * visible order is PostgreSQL's as before (nulls last ascending, first descending); cursors carry one more value.
 */
export const NullableOrderPlugin: GraphileConfig.Plugin = {
  name: 'SvcNullableOrderPlugin',
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
        let out = values;
        for (const [attributeName, attribute] of Object.entries(pgCodec.attributes)) {
          if (attribute.notNull || attribute.codec.notNull || attribute.via) continue;
          for (const variant of ['asc', 'desc'] as const) {
            const name = inflection.orderByAttributeEnum({ codec: pgCodec, attributeName, variant });
            const value = out[name];
            const inner = value?.extensions?.grafast?.apply as Apply | undefined;
            if (!value || !inner) continue;
            const direction = variant === 'asc' ? 'ASC' : 'DESC';
            const nullsFirst = nullsLastOption == null ? direction === 'DESC' : !nullsLastOption;
            const apply: Apply = (queryBuilder, ...rest) => {
              queryBuilder.orderBy({
                attribute: attributeName,
                direction: nullsFirst ? 'DESC' : 'ASC',
                // `is null` is never null: a plain comparison in the cursor condition.
                callback: (expression) => [sql`(${expression} is null)`, TYPES.boolean, false],
              });
              inner(queryBuilder, ...rest);
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
