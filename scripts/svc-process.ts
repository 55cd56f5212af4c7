/** Starting `svc start` from a script (graphiql-check, screenshots). */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SVC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/svc.js');

/** `svc start` on a free port; resolves with its base URL once it logs where it listens. */
export function startSvc(env: NodeJS.ProcessEnv): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [SVC, 'start', '--no-worker'], { env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const url = new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      log += d;
      const m = log.match(/svc listening on (http:\/\/[^\s"]+)/);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`svc start exited ${code}: ${log}`)));
  });
  return { child, url };
}


/** `svc <args>` to its end; resolves with what it printed (rejects with its stderr when it fails). */
export function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`svc ${args.join(' ')} exited ${code}: ${err}`))));
  });
}
