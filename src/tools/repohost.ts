/**
 * repohost.* (spec 4.5): links between issues and issues/pull requests of a mapped repository. The host is
 * only read (Octokit, src/repohost/github.ts). A tool that reads the host first asks SQL, as the caller,
 * what to read (app_hidden.repohost_prepare: the active mapping, repository, number), reads it, then calls
 * its own SQL function, which re-checks everything and records in one transaction.
 */
import { z } from 'zod';
import { fetchResource, hostClient, searchRepo, type FetchedResource, type MappingRef } from '../repohost/github.ts';
import { defineTools, httpUrl, id, issueRef, tool, type ToolContext } from './define.ts';
import { IssueFullOut } from './shapes.ts';

/** GitHub search qualifiers that widen a search beyond one repository (any case, also negated or quoted). */
// Any character that is not part of a word starts one: GitHub reads "+" (sent unencoded by Octokit) as a space.
const SCOPE_QUALIFIER = /(^|[^\p{L}\p{N}_])"?(repo|user|org|owner)\s*:/iu;

const linkKind = z.enum(['SOURCE', 'IMPLEMENTS', 'REVIEWS', 'RELATES_TO']);
const repoFullName = z.string().regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'must be owner/name');
const url = httpUrl(500);

const ResourceOut = z.looseObject({
  id: z.string(), provider: z.string(), repoFullName: z.string(), type: z.enum(['issue', 'pull_request']),
  number: z.number(), url: z.string(), title: z.string().nullable(), state: z.string().nullable(),
  snapshot: z.record(z.string(), z.unknown()), syncedAt: z.string().nullable(), mappingId: z.string().nullable(),
});
const LinkOut = z.looseObject({ id: z.string(), issueId: z.string(), kind: linkKind, resourceId: z.string(), createdAt: z.string(), resource: ResourceOut });

interface Prepared { items: Array<{ mapping: MappingRef; repoFullName: string; number: number | null; resourceId?: string }> }

/** Reads from the host what `args` point at (see app_hidden.repohost_prepare). */
async function readFromHost(ctx: ToolContext, args: Record<string, unknown>): Promise<FetchedResource[]> {
  const prepared = await ctx.read<Prepared>('repohost_prepare', args);
  const allowPrivate = !!ctx.services.allowPrivateEgress;
  return Promise.all(prepared.items.map((item) => fetchResource(hostClient(item.mapping, allowPrivate), item.repoFullName, item.number!)));
}

export const repohostTools = defineTools(
  tool({
    name: 'repohost.parseUrl',
    scopes: ['READ_ISSUES'],
    description: 'Parse an issue or pull request URL (https://<host>/<owner>/<repo>/issues/<n> or /pull/<n>) into {owner, repo, repoFullName, type, number, url}. No call to the host.',
    input: z.strictObject({ url }),
    output: z.looseObject({ owner: z.string(), repo: z.string(), repoFullName: z.string(), type: z.enum(['issue', 'pull_request']), number: z.number(), url: z.string(), host: z.string() }),
    readOnly: true,
  }),
  tool({
    name: 'repohost.listLinked',
    scopes: ['READ_ISSUES'],
    description: 'External issues and pull requests linked to an issue, each with its link kind and the latest local snapshot (refresh with repohost.sync).',
    input: z.strictObject({ issueId: issueRef, kind: linkKind.optional() }),
    output: z.array(LinkOut),
    readOnly: true,
  }),
  tool({
    name: 'repohost.link',
    openWorld: true,
    scopes: ['WRITE_ISSUES'],
    description: 'Link an issue or pull request URL of a mapped repository to an existing issue with kind SOURCE, IMPLEMENTS, REVIEWS or RELATES_TO. Reads the resource from the host and stores its snapshot; linking the same URL again changes the kind (created false). Never writes to the host.',
    input: z.strictObject({ issueId: issueRef, url, kind: linkKind.default('RELATES_TO') }),
    output: LinkOut.extend({ created: z.boolean() }),
    sql: true,
    run: async (ctx, input) => ctx.sql({ ...input, fetched: await readFromHost(ctx, { url: input.url, issueId: input.issueId }) }),
  }),
  tool({
    name: 'repohost.unlink',
    scopes: ['WRITE_ISSUES'],
    description: 'Remove a link between an issue and an external issue or PR (id from repohost.listLinked). Nothing is written to the host.',
    input: z.strictObject({ id: id('id') }),
    output: z.looseObject({ id: z.string(), issueId: z.string(), issueKey: z.string(), resourceId: z.string(), kind: linkKind, removed: z.literal(true) }),
  }),
  tool({
    name: 'repohost.importIssue',
    openWorld: true,
    idempotent: true,
    scopes: ['WRITE_ISSUES'],
    description: 'Create an issue from an issue or pull request of a mapped repository (give mappingId, or repoFullName with an active mapping, and number). Idempotent: when it was imported before, returns that issue with created false (409 already_imported when that issue is deleted, naming it, or out of the key\'s sight). Links it with kind SOURCE; optional projectId, labelIds, queue.',
    input: z.strictObject({
      mappingId: id('mappingId').optional(), repoFullName: repoFullName.optional(),
      number: z.number().int().min(1).max(999_999_999),
      projectId: id('projectId').optional(), labelIds: z.array(id('labelIds')).max(50).optional(), queue: z.boolean().optional(),
    }).refine((v) => v.mappingId || v.repoFullName, { message: 'give mappingId or repoFullName', path: ['repoFullName'] }),
    output: z.looseObject({ issueId: z.string(), created: z.boolean(), resource: ResourceOut, link: LinkOut, issue: IssueFullOut.optional() }),
    sql: true,
    run: async (ctx, input) => ctx.sql({
      ...input,
      fetched: await readFromHost(ctx, { mappingId: input.mappingId, repoFullName: input.repoFullName, number: input.number }),
    }),
  }),
  tool({
    name: 'repohost.sync',
    openWorld: true,
    scopes: ['WRITE_ISSUES'],
    description: 'Refresh the stored snapshot of linked external resources (one resourceId, or every resource linked to issueId) from the host and apply the mapping\'s rules: status rules move SOURCE/IMPLEMENTS-linked issues (e.g. closed or merged → Done), syncTitle copies the title onto SOURCE-linked issues.',
    input: z.strictObject({ issueId: issueRef.optional(), resourceId: id('resourceId').optional() })
      .refine((v) => !!v.issueId !== !!v.resourceId, { message: 'give exactly one of issueId or resourceId', path: ['issueId'] }),
    output: z.looseObject({
      items: z.array(z.looseObject({ resource: ResourceOut, applied: z.array(z.looseObject({ issueId: z.string(), key: z.string(), changes: z.array(z.string()) })) })),
    }),
    sql: true,
    run: async (ctx, input) => ctx.sql({ ...input, fetched: await readFromHost(ctx, input) }),
  }),
  tool({
    name: 'repohost.search',
    openWorld: true,
    scopes: ['READ_ISSUES'],
    description: 'Search issues and pull requests of a mapped repository on the host (GitHub search syntax in query, without repo:, user:, org: or owner:); each hit says whether this workspace already knows it (resourceId).',
    input: z.strictObject({
      mappingId: id('mappingId').optional(), repoFullName: repoFullName.optional(),
      // The search runs with the mapping's token, which may read more than this repository: a query naming others
      // (repo:otherorg/private) searched them with the operator's token and answered their hits as this repository's.
      query: z.string().trim().max(256).default('')
        .refine((q) => !SCOPE_QUALIFIER.test(q), 'may not name repositories, owners or organisations (repo:, user:, org:, owner:): it searches the mapped repository'),
      type: z.enum(['issue', 'pull_request']).optional(), state: z.enum(['open', 'closed', 'all']).default('open'),
      limit: z.number().int().min(1).max(50).default(20),
    }).refine((v) => v.mappingId || v.repoFullName, { message: 'give mappingId or repoFullName', path: ['repoFullName'] }),
    output: z.looseObject({
      repoFullName: z.string(), total: z.number(),
      items: z.array(z.looseObject({
        repoFullName: z.string(), number: z.number(), type: z.enum(['issue', 'pull_request']), title: z.string(),
        state: z.string().describe('open, closed or merged'), url: z.string(), updatedAt: z.string().describe("The host's last update"),
        resourceId: z.string().nullable(),
      })),
    }),
    readOnly: true,
    sql: true,
    run: async (ctx, input) => {
      const { mapping, known } = await ctx.sql<{ mapping: MappingRef; known: Record<string, string> }>(input);
      const found = await searchRepo(hostClient(mapping, !!ctx.services.allowPrivateEgress), mapping.repoFullName, input);
      return { repoFullName: mapping.repoFullName, total: found.total, items: found.items.map((h) => ({ ...h, resourceId: known[String(h.number)] ?? null })) };
    },
  }),
);
