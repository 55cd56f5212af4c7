/**
 * `svc start` as a child process for the benchmarks: started with the environment given, resolved with the URL
 * from its "svc listening on" line (PORT 0: the kernel picks the port); stopped with SIGTERM, as a supervisor would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export interface Server { child: ChildProcess; url: string }

export async function startServer(opts: { env: Record<string, string>; args?: string[]; nodeArgs?: string[]; script?: string[] }): Promise<Server> {
  // script: another server that prints the same line (bench/node-floor.ts).
  const child = spawn('node', [...(opts.nodeArgs ?? []), ...(opts.script ?? ['bin/svc.js', 'start']), ...(opts.args ?? [])], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = out.match(/(?:svc|floor) listening on (http:\/\/[^\s"]+)/);
      if (m) {
        // Listening: the rest of its output is drained (nothing is logged per request) and not kept, unless
        // BENCH_SERVER_OUT names a file for it (e.g. with BENCH_NODE_ARGS='--trace-gc').
        child.stdout!.off('data', onData);
        if (process.env.BENCH_SERVER_OUT) child.stdout!.pipe(fs.createWriteStream(process.env.BENCH_SERVER_OUT));
        else child.stdout!.resume();
        child.stderr!.off('data', onData).pipe(process.stderr);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited ${code}\n${out}`)));
  });
  return { child, url };
}

export async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  await exited;
}
