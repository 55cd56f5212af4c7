/**
 * Real servers standing in for the outside world, started by the tests: an S3-compatible object store
 * (npm s3rver, pure JS), an HTTP server that answers like the GitHub REST API for a few repositories, and
 * a tiny web server for link titles. Never a mock of a client library.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { S3BlobStore } from '../../src/blobs/s3.ts';

export async function startS3(bucket = 'svc-test'): Promise<{ endpoint: string; store: S3BlobStore; dir: string; close(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  // s3rver's fixed credentials
  const store = new S3BlobStore({ bucket, region: 'us-east-1', endpoint, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  return {
    endpoint, store, dir,
    async close() {
      store.client.destroy();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface FakeIssue {
  number: number;
  title: string;
  body?: string;
  state: 'open' | 'closed';
  pull?: { merged: boolean };
  labels?: string[];
}

/** Answers like api.github.com (or a GitHub Enterprise /api/v3 base) for the repositories given. */
export async function startFakeGitHub(repos: Record<string, FakeIssue[]>, opts: { token?: string; prefix?: string } = {}) {
  const requests: Array<{ method: string; url: string; auth?: string }> = [];
  const prefix = opts.prefix ?? '';
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return send(405, { message: 'read-only fake' });
    if (opts.token && req.headers.authorization !== `token ${opts.token}`) return send(401, { message: 'Bad credentials' });
    const u = new URL(req.url ?? '/', 'http://x');
    const p = u.pathname.startsWith(prefix) ? u.pathname.slice(prefix.length) : u.pathname;
    const base = `http://${req.headers.host}`;
    const html = (full: string, i: FakeIssue) => `https://github.com/${full}/${i.pull ? 'pull' : 'issues'}/${i.number}`;
    const issueJson = (full: string, i: FakeIssue) => ({
      number: i.number, title: i.title, body: i.body ?? '', state: i.state, html_url: html(full, i),
      url: `${base}${prefix}/repos/${full}/issues/${i.number}`, repository_url: `${base}${prefix}/repos/${full}`,
      user: { login: 'octocat' }, labels: (i.labels ?? []).map((name) => ({ name })), assignees: [],
      created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-02T00:00:00Z', closed_at: i.state === 'closed' ? '2026-01-02T00:00:00Z' : null,
      ...(i.pull ? { pull_request: { url: `${base}/repos/${full}/pulls/${i.number}`, merged_at: i.pull.merged ? '2026-01-02T00:00:00Z' : null } } : {}),
    });
    let m = p.match(/^\/repos\/([^/]+\/[^/]+)\/(issues|pulls)\/(\d+)$/);
    if (m) {
      const issue = repos[m[1]!]?.find((i) => i.number === Number(m![3]));
      if (!issue || (m[2] === 'pulls' && !issue.pull)) return send(404, { message: 'Not Found' });
      if (m[2] === 'pulls') return send(200, { ...issueJson(m[1]!, issue), merged: issue.pull!.merged, merged_at: issue.pull!.merged ? '2026-01-02T00:00:00Z' : null, draft: false, head: { ref: 'feature' }, base: { ref: 'main' } });
      return send(200, issueJson(m[1]!, issue));
    }
    m = p.match(/^\/search\/issues$/);
    if (m) {
      const q = u.searchParams.get('q') ?? '';
      const repo = q.match(/repo:(\S+)/)?.[1] ?? '';
      const words = q.split(/\s+/).filter((w) => w && !w.includes(':'));
      const isPr = q.includes('is:pr') ? true : q.includes('is:issue') ? false : undefined;
      const state = q.match(/state:(\w+)/)?.[1];
      // "everywhere" plays a host that answers hits of other repositories too (as GitHub does for a second repo:).
      const searched = words.includes('everywhere') ? Object.keys(repos) : [repo];
      const hits = searched.flatMap((r) => (repos[r] ?? []).map((i) => ({ r, i }))).filter(({ i }) => (isPr === undefined || !!i.pull === isPr)
        && (!state || i.state === state) && words.filter((w) => w !== 'everywhere').every((w) => i.title.toLowerCase().includes(w.toLowerCase())));
      return send(200, { total_count: hits.length, incomplete_results: false, items: hits.map(({ r, i }) => issueJson(r, i)) });
    }
    return send(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    apiUrl: `http://127.0.0.1:${port}${prefix}`, requests, repos,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Serves pages for link-title scraping: path → [status, headers, body]. */
export async function startPages(pages: Record<string, { status?: number; headers?: Record<string, string>; body?: string | Buffer; hang?: boolean }>) {
  const server = http.createServer((req, res) => {
    const page = pages[req.url ?? ''];
    if (!page) {
      res.writeHead(404);
      return res.end('nope');
    }
    if (page.hang) return;
    res.writeHead(page.status ?? 200, { 'content-type': 'text/html; charset=utf-8', ...page.headers });
    res.end(page.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
