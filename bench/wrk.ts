/**
 * HTTP load through wrk (Debian's wrk: /usr/bin/wrk, or $WRK), the REST counterpart of pgbench: a C client
 * on epoll, so the service is measured and not the load generator. On this 2-core VM autocannon (Node) took
 * enough of the cores to cut the same server's issues.get from 2,650 to 2,220 req/s, where pgbench, on the
 * SQL side, is C too.
 *
 * wrk cannot build requests from data, so the requests are written into its Lua script: a list of requests
 * (path, headers, body) that each thread sends in turn from its own starting point. Its `done` hook prints
 * the counts and 1,000 quantiles of the latency as one JSON line.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { percentile, runTool, type Measured } from './pgbench.ts';

export const WRK = process.env.WRK ?? '/usr/bin/wrk';

export async function wrkVersion(): Promise<string | undefined> {
  // wrk -v prints its version and usage, and exits 1.
  const { code, out } = await runTool(WRK, ['-v']);
  return code === null ? undefined : out.match(/wrk [^\s]+/)?.[0];
}

export interface HttpRequest {
  method: 'POST' | 'GET';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A Lua long string holding s verbatim (no escapes apply inside [==[ … ]==]). */
const luaString = (s: string) => {
  let eq = '';
  while (s.includes(`]${eq}]`)) eq += '=';
  return `[${eq}[${s}]${eq}]`;
};

const QUANTILES = 1000;

export function buildScript(requests: HttpRequest[]): string {
  const lines = requests.map((r) => {
    const headers = Object.entries(r.headers).map(([k, v]) => `[ ${luaString(k)} ] = ${luaString(v)}`).join(', ');
    return `  { ${luaString(r.method)}, ${luaString(r.path)}, { ${headers} }, ${r.body === undefined ? 'nil' : luaString(r.body)} },`;
  });
  return `local specs = {
${lines.join('\n')}
}
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
local built, at
function init(args)
  built = {}
  for k, s in ipairs(specs) do built[k] = wrk.format(s[1], s[2], s[3], s[4]) end
  at = ((tid or 0) * 7919) % #built
end
function request()
  at = at % #built + 1
  return built[at]
end
function done(summary, latency, requests)
  local q = {}
  for k = 0, ${QUANTILES - 1} do q[#q + 1] = string.format("%d", latency:percentile((k + 0.5) * ${100 / QUANTILES})) end
  local e = summary.errors
  io.write(string.format('\\n{"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"quantilesUs":[%s]}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout, table.concat(q, ",")))
end
`;
}

/** Closed loop: `connections` connections over wrk's threads, each sending its next request as soon as the last is answered. */
export async function wrk(baseUrl: string, requests: HttpRequest[], opts: { connections: number; seconds: number; threads?: number }): Promise<Measured> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-wrk-'));
  try {
    const file = path.join(dir, 'requests.lua');
    await fs.writeFile(file, buildScript(requests));
    const threads = opts.threads ?? Math.min(opts.connections, Math.max(1, os.cpus().length));
    const { code, out } = await runTool(WRK, ['-t', String(threads), '-c', String(opts.connections), '-d', `${opts.seconds}s`, '--timeout', '30s', '-s', file, baseUrl]);
    const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
    if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${out.slice(-3000)}`);
    const r = JSON.parse(line) as {
      requests: number; durationUs: number; connect: number; read: number; write: number; status: number; timeout: number; quantilesUs: number[];
    };
    const failed = r.connect + r.read + r.write + r.status + r.timeout;
    if (failed) throw new Error(`wrk: ${r.status} non-2xx answers, ${r.connect + r.read + r.write} socket errors, ${r.timeout} timeouts of ${r.requests}`);
    // Each quantile stands for an equal share of the requests (merge() pools runs by their latencies).
    const share = Math.max(1, Math.round(r.requests / QUANTILES));
    const latenciesMs = r.quantilesUs.flatMap((us) => Array<number>(share).fill(us / 1000));
    return {
      txPerSec: r.requests / (r.durationUs / 1e6), transactions: r.requests, latenciesMs,
      p50Ms: percentile(latenciesMs, 50), p99Ms: percentile(latenciesMs, 99),
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
