import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './db/migrate.ts';

export interface BuildInfo {
  name: string;
  version: string;
  gitSha: string;
  buildTime: string;
}

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: projectRoot, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || undefined;
  } catch {
    return undefined;
  }
}

let cached: BuildInfo | undefined;

/** Version from package.json; gitSha and buildTime from SVC_GIT_SHA / SVC_BUILD_TIME or the checkout's HEAD commit. */
export function buildInfo(): BuildInfo {
  if (!cached) {
    const pkg = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    cached = {
      name: 'svc',
      version: pkg.version,
      gitSha: process.env.SVC_GIT_SHA || git(['rev-parse', 'HEAD']) || 'unknown',
      buildTime: process.env.SVC_BUILD_TIME || git(['log', '-1', '--format=%cI']) || new Date().toISOString(),
    };
  }
  return cached;
}
