/**
 * How many event streams (the SSE stream, MCP notification streams) a key and a workspace may hold open in this
 * process. Each stream holds a socket, a file descriptor and up to its write budget of memory, so without a cap one
 * key could exhaust the process for every tenant (an outside probe held 20,000 streams with one member's key, and
 * 5,000 streams that never read grew the heap to its limit). Over a cap the new stream is refused with 429
 * `too_many_streams`; open ones are never cut to make room.
 */
import type { Caller } from '../auth/keys.ts';
import { ApiError } from '../errors.ts';

export interface StreamLimitOptions {
  perKey: number;
  perWorkspace: number;
}

export class StreamLimits {
  private readonly byKey = new Map<string, number>();
  private readonly byWorkspace = new Map<string, number>();

  constructor(readonly opts: StreamLimitOptions) {}

  /** Takes a place for one more stream of the caller; call the returned function (once or more) when it ends. */
  take(caller: Caller): () => void {
    const key = this.byKey.get(caller.keyId) ?? 0;
    const workspace = this.byWorkspace.get(caller.workspaceId) ?? 0;
    if (key >= this.opts.perKey) throw refused(`This key has ${key} event streams open, the most one key may (SVC_STREAMS_PER_KEY); close one first`);
    if (workspace >= this.opts.perWorkspace) {
      throw refused(`This workspace has ${workspace} event streams open, the most one workspace may (SVC_STREAMS_PER_WORKSPACE)`);
    }
    bump(this.byKey, caller.keyId, 1);
    bump(this.byWorkspace, caller.workspaceId, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      bump(this.byKey, caller.keyId, -1);
      bump(this.byWorkspace, caller.workspaceId, -1);
    };
  }
}

function bump(counts: Map<string, number>, id: string, by: number) {
  const n = (counts.get(id) ?? 0) + by;
  if (n > 0) counts.set(id, n);
  else counts.delete(id);
}

// The connection closes with the answer: a refused client kept its socket open (keep-alive), so one key could still
// hold thousands of file descriptors with no stream.
const refused = (message: string) => new ApiError(429, { error: 'too_many_streams', message }, { 'retry-after': '30', connection: 'close' });
