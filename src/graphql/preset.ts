/**
 * The PostGraphile preset: which parts of the database become GraphQL, and how they read.
 *
 * - Only `app_public` is introspected, as the request role (svc_visitor), so only what that role may
 *   select/execute appears (PostGraphile's RBAC), and RLS applies to every row.
 * - Tables are read-only here: the generated create/update/delete mutations are switched off
 *   (`-insert -update -delete`). Mutations are `app_public` functions (the in-app procedures), which
 *   call the same checked SQL as `svc admin`, and the catalog tools of tool-mutations.ts (issuesUpdate,
 *   commentsCreate, …), which run through the same path as REST and JSON-RPC.
 * - Columns that are internal (storage keys, the acting key id, the raw revisions JSON) are hidden
 *   with smart tags below; secrets and hashes live in app_private and never reach the schema.
 * - Descriptions are the SQL comments: of tables, columns and functions; a function's arguments and its mutation's
 *   result from `@arg`/`@result` lines in the function's comment (descriptions.ts).
 * - Text is taken composed (NFC) before a request executes, literals and variables (nfc.ts), as the tools take it.
 */
import '../polyfills.ts';
import { PgSimplifyInflectionPreset } from '@graphile/simplify-inflection';
import type pg from 'pg';
import { makePgService } from 'postgraphile/adaptors/pg';
import { oneConnectionPerRequest, type WithPgClient } from './request-budget.ts';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makeJSONPgSmartTagsPlugin } from 'postgraphile/utils';
import { DescriptionsPlugin } from './descriptions.ts';
import { closedSetEnumsPlugin, type ClosedSets } from './enums.ts';
import { AttributeOrderPlugin, ProcedureKeysetPlugin } from './paging.ts';
import { ComposedTextPlugin } from './nfc.ts';
import { ToolMutationsPlugin } from './tool-mutations.ts';
import { WebhookUrlCheckPlugin } from './webhook-urls.ts';

/** Where GraphiQL's own scripts and styles are served. */
export const GRAPHIQL_STATIC_PATH = '/ruru-static/';

/** Hidden from GraphQL although the request role may read them (MCP tools use them). */
export const HiddenColumnsPlugin = makeJSONPgSmartTagsPlugin({
  version: 1,
  config: {
    class: {
      'app_public.attachments': { attribute: { storage_key: { tags: { behavior: '-*' } } } },
      // Uploads in flight are the attachments tools' business (object keys, expiry), not the app's.
      'app_public.attachment_uploads': { tags: { behavior: '-*' } },
      'app_public.activity_events': { attribute: { actor_key_id: { tags: { behavior: '-*' } } } },
      // Exposed as Comment.revisionHistory (app_public.comments_revision_history).
      'app_public.comments': { attribute: { revisions: { tags: { behavior: '-*' } } } },
      // Issue.parent (under RLS: null when the key cannot see the parent) instead of the raw id, which a
      // narrowed key must not learn (docs/decisions.md); Issue.childIssues lists the children. No filter or
      // order by it either: a condition on a hidden parent's id would confirm that parent and list its children.
      'app_public.issues': { attribute: { parent_id: { tags: { behavior: '-select -filterBy -orderBy' } } } },
      // Likewise Project.initiative instead of the raw initiative id (an initiative-narrowed key sees every project);
      // no filter or order by it either, which would tell a hidden initiative's projects to whoever learns its id.
      'app_public.projects': { attribute: { initiative_id: { tags: { behavior: '-select -filterBy -orderBy' } } } },
      // Admin data, as over MCP (runtimes.* and the agents' dispatch URL need a workspace admin's key): a runtime's
      // endpoint, config and info are not in the schema; Agent.webhookUrl is app_public.agents_webhook_url.
      'app_public.runtimes': { attribute: { endpoint: { tags: { behavior: '-*' } }, config: { tags: { behavior: '-*' } }, info: { tags: { behavior: '-*' } } } },
      'app_public.agents': { attribute: { webhook_url: { tags: { behavior: '-*' } } } },
      // A person's own time entry may be on an issue their narrowed key cannot see: TimeEntry.issue (null then).
      'app_public.time_entries': { attribute: { issue_id: { tags: { behavior: '-select -filterBy -orderBy' } } } },
    },
  },
});

/**
 * Same-workspace references are composite foreign keys (workspace_id, x_id) so a row can never point
 * into another tenant. For naming, workspace_id is left out: Issue.project, Project.issues, not
 * Issue.workspaceProject / Project.issuesByWorkspaceIdAndProjectId.
 */
export const TenantKeyNamingPlugin: GraphileConfig.Plugin = {
  name: 'SvcTenantKeyNamingPlugin',
  version: '0.0.0',
  after: ['PgSimplifyInflectionPlugin'],
  inflection: {
    replace: {
      _getBaseNameFromKeys(previous, _preset, detailedKeys) {
        const keys = detailedKeys.length > 1 ? detailedKeys.filter((k) => k.attributeName !== 'workspace_id') : detailedKeys;
        return previous!(keys);
      },
      // Where no simpler name applies: Agent.issuesByAssignedAgentId, not …ByWorkspaceIdAndAssignedAgentId.
      _manyRelation(previous, _preset, details) {
        return previous!(details).replace(/ByWorkspaceIdAnd/, 'By');
      },
      // Mutation payloads name what they return: agentsCreate { agent }, accessCreate { issuedApiKey },
      // dispatchRulesReorder { dispatchRules } (PostGraphile's default is `result`).
      functionMutationResultFieldName(previous, _preset, details) {
        const { resource } = details;
        if (typeof resource.extensions?.tags?.resultFieldName === 'string') return resource.extensions.tags.resultFieldName;
        if (!resource.codec.attributes) return previous!(details);
        const name = this._singularizedCodecName(resource.codec);
        return this.camelCase(resource.isUnique ? name : this.pluralize(name));
      },
      singleRelation(previous, _preset, details) {
        return previous!(details).replace(/ByWorkspaceIdAnd/, 'By');
      },
      singleRelationBackwards(previous, _preset, details) {
        return previous!(details).replace(/ByWorkspaceIdAnd/, 'By');
      },
    },
  },
  schema: {
    entityBehavior: {
      // unique (workspace_id, …) constraints exist for the composite keys above; a key sees one
      // workspace, so root fields like agentByWorkspaceIdAndProfileKey would only be noise.
      pgResourceUnique: {
        inferred: {
          after: ['inferred'],
          provides: ['svcTenantUniques'],
          callback(behavior, [_resource, unique]) {
            return !unique.isPrimary && unique.attributes.includes('workspace_id') ? [behavior, '-single'] : behavior;
          },
        },
      },
    },
  },
};

/**
 * GraphiQL's first screen (a first visit, before any query of the user's own): how to add the key, then a
 * query to run. The schema and docs are there already (introspection needs no key; see server.ts).
 */
export const GRAPHIQL_WELCOME = `# Welcome to the svc GraphQL API.
#
# 1. Open "Headers" (below) and put
#    your API key there:
#
#    { "Authorization":
#        "Bearer svc_sk_..." }
#
#    No key yet? Where svc start runs:
#    svc admin create-key \\
#      --workspace KEY \\
#      --user you@example.com --json
# 2. Press run (or Ctrl-Enter). The Docs
#    (book icon, left) list every type.

{
  currentWorkspace { key name }
  viewer { email }
  viewerRole
}
`;

export interface GraphqlPresetOptions {
  /** A pool whose connections run as svc_visitor (createPools().api). Ours: we end it, not PostGraphile. */
  pool: pg.Pool;
  graphiql?: boolean;
  /** The text columns with a closed set of values, typed as GraphQL enums (enums.ts: loadClosedSets). */
  closedSets: ClosedSets;
}

/** The service with its statements of one request taking turns on one connection, under one budget (request-budget.ts). */
function oneConnectionPerRequestService(service: GraphileConfig.PgServiceConfiguration): GraphileConfig.PgServiceConfiguration {
  const adaptor = service.adaptor;
  return {
    ...service,
    adaptor: {
      ...adaptor,
      createWithPgClient: (settings, variant) => {
        const made = adaptor.createWithPgClient(settings, variant);
        const wrap = (inner: unknown) => oneConnectionPerRequest(inner as WithPgClient) as unknown as typeof inner;
        return (made instanceof Promise ? made.then(wrap) : wrap(made)) as typeof made;
      },
    },
  };
}

export function makePreset(opts: GraphqlPresetOptions): GraphileConfig.Preset {
  return {
    extends: [PostGraphileAmberPreset, PgSimplifyInflectionPreset],
    plugins: [HiddenColumnsPlugin, TenantKeyNamingPlugin, WebhookUrlCheckPlugin, ToolMutationsPlugin, AttributeOrderPlugin, ProcedureKeysetPlugin, DescriptionsPlugin, ComposedTextPlugin,
      closedSetEnumsPlugin(opts.closedSets)],
    // PostGraphile hides relations and filters whose columns lack a full (non-partial) index. Ours are
    // mostly partial (`where deleted_at is null`) and every query is confined to one workspace by RLS,
    // so in-app clients get every relation (Project.issues, Agent.assignedIssues, ...).
    disablePlugins: ['PgIndexBehaviorsPlugin'],
    pgServices: [
      oneConnectionPerRequestService(makePgService({
        pool: opts.pool,
        schemas: ['app_public'],
        // No GraphQL subscriptions (events go over SSE), so no LISTEN connection.
        pubsub: false,
      })),
    ],
    gather: {
      // Function arguments without a default are required (non-null) in GraphQL.
      pgStrictFunctions: true,
    },
    schema: {
      // Rows change only through the in-app procedures (app_public functions).
      defaultBehavior: '-insert -update -delete',
      pgForbidSetofFunctionsToReturnNull: true,
    },
    grafserv: {
      graphqlPath: '/graphql',
      graphiql: opts.graphiql ?? true,
      graphiqlPath: '/graphiql',
      graphiqlStaticPath: GRAPHIQL_STATIC_PATH,
      graphiqlOnGraphQLGET: false,
      graphqlOverGET: false,
      // As large as a REST or JSON-RPC body (src/http/app.ts): a comment the tools take must fit here too
      // (grafserv's default, 100 kB, refused a 100,000-character comment the tool accepts).
      maxRequestLength: 2 * 1024 * 1024,
      websockets: false,
      watch: false,
    },
    grafast: {
      explain: false,
    },
    ruru: {
      clientConfig: {
        defaultQuery: GRAPHIQL_WELCOME,
        // Only with the user's consent (GraphiQL's setting): a key kept in the browser's storage.
        showPersistHeadersSettings: true,
        // Its type wants every prop; Ruru treats each as optional.
      } as NonNullable<NonNullable<GraphileConfig.Preset['ruru']>['clientConfig']>,
    },
  };
}
