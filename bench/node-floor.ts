/**
 * The Node floor of the REST figures (npm run bench): the least a Node process does to answer a tool over HTTP,
 * with none of the service. node:http and one pg.Pool (the service's pool settings: svc_visitor, 20 connections);
 * per request: read the body, look the bearer token up in a map, run the tool's statement (the exact one the service
 * sends, as a named statement) with that caller's values and the body as its arguments, send the text back. No
 * framework, validation, key hashing, rate limit, fairness, metrics or error mapping.
 *
 * What it tells: REST req/s over this figure is how much of the distance from REST to the SQL is the service's own
 * Node code, and this figure over the SQL's is how far any Node server gets on this machine.
 *
 * Run by bench/run.ts as a child process: `node --import tsx bench/node-floor.ts <config.json>`, the config
 * {databaseUrl, statements: {tool: text}, callers: {token: [$1, the key id]}}; prints "floor listening on <url>".
 */
import fs from 'node:fs';
import http from 'node:http';
import pg from 'pg';

interface Config { databaseUrl: string; statements: Record<string, string>; callers: Record<string, unknown[]> }
const config = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as Config;
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 20, options: '-c role=svc_visitor', idleTimeoutMillis: 300_000 });

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const tool = req.url!.slice('/api/mcp/'.length);
    const text = config.statements[tool];
    const caller = config.callers[(req.headers.authorization ?? '').slice('Bearer '.length)];
    if (!text || !caller) {
      res.writeHead(404).end();
      return;
    }
    pool.query<{ r: string }>({ name: tool, text, values: [...caller, Buffer.concat(chunks).toString()] }).then(
      ({ rows }) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(rows[0]!.r),
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`floor listening on http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => { server.close(); void pool.end(); setTimeout(() => process.exit(0), 200).unref(); });
