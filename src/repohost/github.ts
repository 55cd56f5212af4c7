/**
 * The repository host, read-only: GitHub's REST API through Octokit (GitHub Enterprise with the mapping's
 * apiUrl). The token comes from the environment variable the mapping names; requests go through the
 * egress guard. Nothing here writes to the host.
 */
import { Octokit } from '@octokit/rest';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { guardedFetch } from '../outbound/http.ts';
import { oneLine } from '../tools/text-guard.ts';
import { clip } from '../text.ts';

export interface MappingRef {
  id: string;
  repoFullName: string;
  tokenEnv: string | null;
  apiUrl: string | null;
}

/** What SQL records as the resource's snapshot (app_hidden.repo_resource_record). */
export interface FetchedResource {
  repoFullName: string;
  number: number;
  type: 'issue' | 'pull_request';
  url: string;
  title: string;
  state: 'open' | 'closed' | 'merged';
  snapshot: Record<string, unknown>;
}

export function hostClient(mapping: MappingRef, allowPrivate: boolean): Octokit {
  const token = mapping.tokenEnv ? process.env[mapping.tokenEnv] : undefined;
  if (mapping.tokenEnv && !token) {
    throw new ApiError(422, { error: 'host_token_missing', message: `The mapping for ${mapping.repoFullName} reads its token from $${mapping.tokenEnv}, which is not set on the server` });
  }
  return new Octokit({
    auth: token,
    baseUrl: mapping.apiUrl ?? 'https://api.github.com',
    userAgent: 'svc-repohost/1',
    request: { fetch: guardedFetch({ allowPrivate, timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024 }) },
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
}

/** Host failures as our errors: 404 stays 404, auth problems 422, the rest 502. */
export function hostError(err: unknown, what: string): ApiError {
  if (err instanceof ApiError) return err;
  const status = (err as { status?: number }).status;
  if (status === 404) return new ApiError(404, { error: 'not_found', message: `${what} not found on the repository host` });
  if (status === 401 || status === 403) {
    return new ApiError(422, { error: 'host_auth_failed', message: `The repository host refused access to ${what} (${status}); check the mapping's token` });
  }
  const code = (err as { code?: string }).code;
  if (code === 'EGRESS_DENIED' || (err as Error)?.message?.startsWith('egress denied')) {
    return new ApiError(422, { error: 'egress_denied', message: (err as Error).message });
  }
  return new ApiError(502, { error: 'host_unavailable', message: `The repository host did not answer for ${what}: ${(err as Error)?.message ?? err}` });
}

/**
 * What the host answered, checked before it is read: a host answering HTML, a redirect or an empty body (Octokit then
 * hands back a string) failed on a missing field and said "Cannot read properties of undefined".
 */
const HostIssue = z.looseObject({ number: z.number(), title: z.string(), state: z.string(), html_url: z.string() });
const HostSearch = z.looseObject({ total_count: z.number(), items: z.array(HostIssue) });
function checkHostAnswer(schema: z.ZodType, data: unknown, status: number, what: string): void {
  if (schema.safeParse(data).success) return;
  const answered = typeof data === 'string' ? (data ? 'a body that is not JSON' : 'an empty body') : 'JSON that is not what the GitHub API answers';
  throw new ApiError(502, { error: 'host_unavailable', message: `The repository host answered ${status} with ${answered} for ${what}; is the mapping's apiUrl a GitHub API?` });
}

const split = (full: string) => {
  const [owner, repo] = full.split('/') as [string, string];
  return { owner, repo };
};

export async function fetchResource(octokit: Octokit, repoFullName: string, number: number): Promise<FetchedResource> {
  const what = `${repoFullName}#${number}`;
  try {
    const { data: issue, status } = await octokit.rest.issues.get({ ...split(repoFullName), issue_number: number });
    checkHostAnswer(HostIssue, issue, status, what);
    const isPull = !!issue.pull_request;
    let state: FetchedResource['state'] = issue.state === 'closed' ? 'closed' : 'open';
    let pull: { merged?: boolean; merged_at?: string | null; draft?: boolean; head?: { ref?: string }; base?: { ref?: string } } | undefined;
    if (isPull) {
      pull = (await octokit.rest.pulls.get({ ...split(repoFullName), pull_number: number })).data;
      if (pull.merged || pull.merged_at) state = 'merged';
    }
    // The host's title becomes an issue's (importIssue, syncTitle): one line, as every title here.
    const title = oneLine(issue.title);
    return {
      repoFullName,
      number,
      type: isPull ? 'pull_request' : 'issue',
      url: issue.html_url,
      title,
      state,
      snapshot: {
        title,
        state,
        // NUL is no text PostgreSQL takes; an emoji at the cut was half of one (the import refused as bad input).
        body: clip((issue.body ?? '').replaceAll('\0', '\uFFFD'), 20_000, ''),
        author: issue.user?.login ?? null,
        labels: (issue.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)).filter(Boolean),
        assignees: (issue.assignees ?? []).map((a) => a.login),
        htmlUrl: issue.html_url,
        createdAt: issue.created_at,
        updatedAt: issue.updated_at,
        closedAt: issue.closed_at ?? null,
        ...(pull ? { mergedAt: pull.merged_at ?? null, draft: !!pull.draft, headRef: pull.head?.ref ?? null, baseRef: pull.base?.ref ?? null } : {}),
      },
    };
  } catch (err) {
    throw hostError(err, what);
  }
}

export interface SearchHit {
  repoFullName: string;
  number: number;
  type: 'issue' | 'pull_request';
  title: string;
  state: string;
  url: string;
  updatedAt: string;
}

export async function searchRepo(
  octokit: Octokit, repoFullName: string,
  opts: { query: string; type?: 'issue' | 'pull_request'; state?: 'open' | 'closed' | 'all'; limit: number },
): Promise<{ total: number; items: SearchHit[] }> {
  const q = [`repo:${repoFullName}`, opts.query];
  if (opts.type) q.push(opts.type === 'issue' ? 'is:issue' : 'is:pr');
  if (opts.state && opts.state !== 'all') q.push(`state:${opts.state}`);
  try {
    const { data, status } = await octokit.rest.search.issuesAndPullRequests({ q: q.join(' '), per_page: opts.limit });
    checkHostAnswer(HostSearch, data, status, `search in ${repoFullName}`);
    // Only this repository's hits, whatever the host matched (the query cannot name others; this is the second lock).
    const ours = (i: { repository_url?: string }) => i.repository_url?.toLowerCase().endsWith(`/repos/${repoFullName.toLowerCase()}`);
    const items = data.items.filter(ours);
    return {
      total: items.length < data.items.length ? items.length : data.total_count,
      items: items.slice(0, opts.limit).map((i) => ({
        repoFullName, number: i.number, type: i.pull_request ? 'pull_request' : 'issue', title: oneLine(i.title),
        state: i.pull_request?.merged_at ? 'merged' : i.state, url: i.html_url, updatedAt: i.updated_at,
      })),
    };
  } catch (err) {
    throw hostError(err, `search in ${repoFullName}`);
  }
}
