/**
 * SSE fan-out. One hub per API process, fed by the process's single LISTEN connection (Notifier):
 *
 *  - svc_events {id, pos, workspaceId}: a stored event committed. Subscribers are grouped by what
 *    they may see (workspace, key narrowing, and whom the key acts for: chat events reach only a thread's
 *    participants and admins); per group the new events are read ONCE, through the
 *    request role with a group member's identity, so RLS (select_in_workspace on activity_events)
 *    decides visibility exactly as for events.recent. Reads are batched per workspace and applied in
 *    order, so each client gets events in stream (commit) order.
 *  - svc_stream {workspaceId, event}: an ephemeral event (chat drafts): written without an `id:` line (it
 *    cannot be resumed from), never stored, to the groups that see its thread (asked once per group and
 *    thread, then remembered for THREAD_VISIBILITY_MS).
 *  - svc_keys: a key was revoked or its agent archived (or restored): its streams end.
 *
 * Resume: a client that reconnects with Last-Event-ID gets the events after that one from the stored
 * log (stream_pos, allocated in commit order per workspace; see migration 40-event-stream), then the
 * live ones. Live events that arrive while the replay runs are held and de-duplicated by position, so
 * there is no gap and no duplicate. The replay is bounded (max age, max events); beyond the bound the
 * client gets `event: reset` and continues live (it should re-sync with events.recent).
 *
 * Slow clients: whatever the socket has not accepted yet counts against a per-client byte budget;
 * over it, the client is disconnected (it can resume). Memory never grows without bound.
 */
import type { ServerResponse } from 'node:http';
import type pg from 'pg';
import { hasScope, isNarrowed, msUntilExpiry, type Caller } from '../auth/keys.ts';
import type { Notifier } from './notifier.ts';
import { queryAsCaller } from '../db/as-caller.ts';

export interface HubOptions {
  /** Comment line `: heartbeat` interval (spec 6.5: 25 s). */
  heartbeatMs?: number;
  /** Unsent bytes allowed per client before it is disconnected. */
  maxBufferBytes?: number;
  /** Most events replayed on resume; further behind → `event: reset`. */
  replayLimit?: number;
  /** Oldest Last-Event-ID a client may resume from. */
  replayMaxAgeHours?: number;
  replayPageSize?: number;
}

interface StreamEvent {
  pos: number;
  frame: string;
}

class Subscriber {
  lastPos = 0;
  replaying = true;
  held: StreamEvent[] = [];
  heldBytes = 0;
  closed = false;
  expiry: NodeJS.Timeout | undefined;
  constructor(readonly caller: Caller, readonly res: ServerResponse, readonly group: Group) {}
}

/** Subscribers that see the same events: same workspace, key narrowing, agent, user and admin scope. */
class Group {
  readonly subscribers = new Set<Subscriber>();
  /** Chat threads this group was found to see or not (drafts are not stored, so no RLS read filters them). */
  readonly threads = new Map<string, { visible: Promise<boolean>; at: number }>();
  constructor(readonly key: string, readonly narrowed: boolean) {}
}

class WorkspaceStream {
  readonly groups = new Map<string, Group>();
  ids: string[] = [];
  flushQueued = false;
  chain: Promise<void> = Promise.resolve();
}

const sorted = (xs: string[]) => [...xs].sort().join(',');
// A group's events are read once, as its first member: the key holds all the activity_events policy depends on:
// its narrowing, and whom it acts for (chat events reach a thread's addressee agent, the person who opened it and
// workspace admins; action requests without an issue, the agent or user they are assigned to).
const groupKey = (c: Caller) =>
  `${sorted(c.projectIds)}|${sorted(c.labelIds)}|${sorted(c.initiativeIds)}|${c.agentId ?? ''}|${c.userId ?? ''}|${hasScope(c, 'ADMIN') ? 'admin' : ''}`;
/** How long a group's answer to "do you see this chat thread" is reused for the thread's draft events (short: the
 * thread's issue may leave a key's narrowing, an admin may be demoted). */
const THREAD_VISIBILITY_MS = 2_000;
const frameOf = (id: string, data: string) => `id: ${id}\nevent: message\ndata: ${data}\n\n`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class EventHub {
  private readonly streams = new Map<string, WorkspaceStream>();
  private readonly opts: Required<HubOptions>;
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners: Array<[string, (...args: any[]) => void]> = [];

  /** pool: the request role's (svc_visitor): every read is as a subscriber, under RLS. */
  constructor(readonly pool: pg.Pool, readonly notifier: Notifier, opts: HubOptions = {}) {
    this.opts = {
      heartbeatMs: opts.heartbeatMs ?? 25_000,
      // A live client takes each event as it comes; 256 KB is hundreds of events behind. Times the streams a
      // workspace may hold (SVC_STREAMS_PER_WORKSPACE), it bounds what clients that stop reading can cost.
      maxBufferBytes: opts.maxBufferBytes ?? 256 * 1024,
      replayLimit: opts.replayLimit ?? 10_000,
      replayMaxAgeHours: opts.replayMaxAgeHours ?? 24,
      replayPageSize: opts.replayPageSize ?? 500,
    };
    this.listen('svc_events', (payload: string) => this.onStored(payload));
    this.listen('svc_stream', (payload: string) => this.onEphemeral(payload));
    this.listen('svc_keys', (keyId: string) => this.closeKey(keyId));
    // The LISTEN connection came back: notifications sent meanwhile are lost, the log is not.
    this.listen('connected', () => this.catchUpAll());
    this.heartbeat = setInterval(() => this.beat(), this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  private listen(channel: string, fn: (...args: any[]) => void) {
    this.notifier.on(channel, fn);
    this.listeners.push([channel, fn]);
  }

  get subscriberCount(): number {
    let n = 0;
    for (const ws of this.streams.values()) for (const g of ws.groups.values()) n += g.subscribers.size;
    return n;
  }

  /**
   * Serves one SSE client on an already-open response until it disconnects. Resolves once the client
   * is live (after any replay).
   */
  async subscribe(caller: Caller, res: ServerResponse, lastEventId?: string): Promise<void> {
    if (this.closed) {
      res.end();
      return;
    }
    let ws = this.streams.get(caller.workspaceId);
    if (!ws) {
      ws = new WorkspaceStream();
      this.streams.set(caller.workspaceId, ws);
    }
    const key = groupKey(caller);
    let group = ws.groups.get(key);
    if (!group) {
      group = new Group(key, isNarrowed(caller));
      ws.groups.set(key, group);
    }
    // Registered before anything is read: live events from now on are held until the start is known.
    const sub = new Subscriber(caller, res, group);
    group.subscribers.add(sub);
    res.on('close', () => this.drop(sub));
    const expiresIn = msUntilExpiry(caller);
    if (expiresIn !== undefined) {
      sub.expiry = setTimeout(() => this.drop(sub, true), expiresIn);
      sub.expiry.unref();
    }
    try {
      // The starting point is fixed before the client hears `: connected`: anything committed after
      // that comment is above it and will be delivered.
      let from: number | null = null;
      let resetReason: string | undefined;
      if (lastEventId !== undefined) {
        from = UUID.test(lastEventId)
          ? await this.scalar(caller, 'app_hidden.stream_position($2::uuid, make_interval(hours => $3::int))', [lastEventId, this.opts.replayMaxAgeHours])
          : null;
        if (from === null) resetReason = 'last_event_id_unknown';
        else if (from < 0) [from, resetReason] = [null, 'too_old'];
      }
      if (from !== null) {
        const backlog = await this.scalar(caller, 'app_hidden.stream_backlog($2::bigint, $3::int)', [from, this.opts.replayLimit + 1]);
        if ((backlog ?? 0) > this.opts.replayLimit) {
          from = null;
          resetReason = 'too_far_behind';
        }
      }
      if (from === null) {
        sub.lastPos = (await this.scalar(caller, 'app_hidden.stream_head()', [])) ?? 0;
        this.write(sub, ': connected\n\n');
        if (resetReason) this.reset(sub, resetReason);
        this.goLive(sub);
      } else {
        this.write(sub, ': connected\n\n');
        await this.replay(sub, from);
      }
    } catch (err) {
      this.drop(sub, true);
      if (!isAuthError(err)) throw err;
    }
  }

  /** Replays the stored events after `from` (bounded by the caller), then releases the held live ones. */
  private async replay(sub: Subscriber, from: number): Promise<void> {
    sub.replaying = true;
    sub.lastPos = from;
    for (;;) {
      const page = await this.read(sub.caller, 'app_hidden.stream_events_after($2::bigint, $3::int)', [sub.lastPos, this.opts.replayPageSize]);
      for (const e of page) {
        if (sub.closed) return;
        if (e.pos <= sub.lastPos) continue;
        sub.lastPos = e.pos;
        if (!sub.res.write(e.frame)) await drained(sub.res);
      }
      if (page.length < this.opts.replayPageSize || sub.closed) break;
    }
    this.goLive(sub);
  }

  private goLive(sub: Subscriber) {
    const held = sub.held;
    sub.held = [];
    sub.heldBytes = 0;
    sub.replaying = false;
    for (const e of held) this.send(sub, e);
  }

  private reset(sub: Subscriber, reason: string) {
    this.write(sub, `event: reset\ndata: ${JSON.stringify({ reason })}\n\n`);
  }

  // Live path -----------------------------------------------------------------------------------

  private onStored(payload: string) {
    let msg: { id: string; workspaceId: string };
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    const ws = this.streams.get(msg.workspaceId);
    if (!ws || ws.groups.size === 0) return;
    ws.ids.push(msg.id);
    if (ws.flushQueued) return;
    ws.flushQueued = true;
    // One read per group for everything that arrived meanwhile; flushes of a workspace run in order.
    ws.chain = ws.chain
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.flush(ws))
      .catch(() => {});
  }

  private async flush(ws: WorkspaceStream) {
    ws.flushQueued = false;
    const ids = ws.ids;
    ws.ids = [];
    if (ids.length === 0) return;
    await Promise.all([...ws.groups.values()].map(async (group) => {
      let events: StreamEvent[];
      try {
        events = await this.readForGroup(group, ids);
      } catch {
        // Never skip silently: these clients reconnect and resume from the log without a gap.
        for (const sub of group.subscribers) this.drop(sub, true);
        return;
      }
      for (const sub of group.subscribers) for (const e of events) this.send(sub, e);
    }));
  }

  /** Reads through the identity of one group member; a member whose key died is dropped and the next tried. */
  private async readForGroup(group: Group, ids: string[]): Promise<StreamEvent[]> {
    for (const sub of group.subscribers) {
      if (sub.closed) continue;
      try {
        return await this.read(sub.caller, 'app_hidden.stream_events($2::uuid[])', [ids]);
      } catch (err) {
        if (!isAuthError(err)) throw err;
        this.closeKey(sub.caller.keyId);
      }
    }
    return [];
  }

  private send(sub: Subscriber, e: StreamEvent) {
    if (sub.closed || e.pos <= sub.lastPos) return;
    if (sub.replaying) {
      // Held until the replay is done; the same budget applies.
      sub.held.push(e);
      sub.heldBytes += e.frame.length;
      if (sub.heldBytes > this.opts.maxBufferBytes) this.drop(sub, true);
      return;
    }
    sub.lastPos = e.pos;
    this.write(sub, e.frame);
  }

  private write(sub: Subscriber, text: string) {
    if (sub.closed) return;
    sub.res.write(text);
    // Bytes the client has not taken yet: over budget, the client is too slow and is let go.
    if (sub.res.writableLength > this.opts.maxBufferBytes) this.drop(sub, true);
  }

  private onEphemeral(payload: string) {
    let msg: { workspaceId: string; event: { subjectType?: string; subjectId?: string } };
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    const ws = this.streams.get(msg.workspaceId);
    if (!ws) return;
    const frame = `event: message\ndata: ${JSON.stringify(msg.event)}\n\n`;
    const { subjectType, subjectId } = msg.event;
    // In order with the workspace's other events (the chain), each group once it is known to see the thread.
    ws.chain = ws.chain.then(() => Promise.all([...ws.groups.values()].map(async (group) => {
      if (subjectType === 'chat-thread-stream') {
        if (!subjectId || !UUID.test(subjectId) || !(await this.seesThread(group, subjectId))) return;
      } else if (group.narrowed && subjectType === 'issue') {
        return; // not stored, so no RLS read: a narrowed key gets no issue-subject ephemeral event at all
      }
      for (const sub of group.subscribers) this.write(sub, frame);
    }))).then(() => {}, () => {});
  }

  /** Whether a group sees a chat thread (the threads policy, asked as a member); remembered for a short while. */
  private seesThread(group: Group, threadId: string): Promise<boolean> {
    const now = Date.now();
    const known = group.threads.get(threadId);
    if (known && now - known.at < THREAD_VISIBILITY_MS) return known.visible;
    if (group.threads.size > 1000) group.threads.clear();
    const visible = (async () => {
      for (const sub of group.subscribers) {
        if (sub.closed) continue;
        try {
          return (await this.query(sub.caller, 'app_hidden.chat_event_visible($2::uuid, null)', [threadId])) === 'true';
        } catch (err) {
          group.threads.delete(threadId); // a failed read is not an answer: the next draft asks again
          if (!isAuthError(err)) return false;
          this.closeKey(sub.caller.keyId);
        }
      }
      return false;
    })();
    group.threads.set(threadId, { visible, at: now });
    return visible;
  }

  private catchUpAll() {
    for (const ws of this.streams.values()) {
      for (const group of ws.groups.values()) {
        for (const sub of group.subscribers) {
          if (sub.replaying || sub.closed) continue;
          ws.chain = ws.chain.then(() => this.catchUp(sub)).catch(() => this.drop(sub, true));
        }
      }
    }
  }

  private async catchUp(sub: Subscriber) {
    sub.replaying = true; // hold live events meanwhile
    const backlog = await this.scalar(sub.caller, 'app_hidden.stream_backlog($2::bigint, $3::int)', [sub.lastPos, this.opts.replayLimit + 1]);
    if ((backlog ?? 0) > this.opts.replayLimit) {
      sub.lastPos = (await this.scalar(sub.caller, 'app_hidden.stream_head()', [])) ?? 0;
      this.reset(sub, 'too_far_behind');
      this.goLive(sub);
      return;
    }
    await this.replay(sub, sub.lastPos);
  }

  private beat() {
    for (const ws of this.streams.values()) for (const g of ws.groups.values()) for (const sub of g.subscribers) this.write(sub, ': heartbeat\n\n');
  }

  private closeKey(keyId: string) {
    for (const ws of this.streams.values()) {
      for (const g of ws.groups.values()) for (const sub of g.subscribers) if (sub.caller.keyId === keyId) this.drop(sub, true);
    }
  }

  private drop(sub: Subscriber, end = false) {
    if (!sub.closed) {
      sub.closed = true;
      clearTimeout(sub.expiry);
      sub.held = [];
      const group = sub.group;
      group.subscribers.delete(sub);
      const ws = this.streams.get(sub.caller.workspaceId);
      if (ws && group.subscribers.size === 0) {
        ws.groups.delete(group.key);
        if (ws.groups.size === 0 && !ws.flushQueued) this.streams.delete(sub.caller.workspaceId);
      }
    }
    if (end && !sub.res.destroyed) sub.res.destroy();
  }

  /** Ends every stream (server shutdown) and stops listening. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const [channel, fn] of this.listeners) this.notifier.off(channel, fn);
    for (const ws of this.streams.values()) {
      for (const g of ws.groups.values()) {
        for (const sub of g.subscribers) {
          this.drop(sub);
          sub.res.end();
        }
      }
    }
    this.streams.clear();
  }

  // Reads as the subscriber: one statement sets the identity and calls the reader (RLS applies).

  private query(caller: Caller, call: string, args: unknown[]): Promise<string | null> {
    return queryAsCaller(this.pool, caller, statementName(call), call, args);
  }

  private async scalar(caller: Caller, call: string, args: unknown[]): Promise<number | null> {
    const r = await this.query(caller, call, args);
    return r === null ? null : Number(r);
  }

  private async read(caller: Caller, call: string, args: unknown[]): Promise<StreamEvent[]> {
    const r = await this.query(caller, call, args);
    const rows = JSON.parse(r ?? '[]') as Array<{ pos: number; event: { id: string } }>;
    return rows.map((row) => ({ pos: row.pos, frame: frameOf(row.event.id, JSON.stringify(row.event)) }));
  }
}

const names = new Map<string, string>();
/** Prepared statement names are limited to 63 bytes: a short stable name per reader call. */
function statementName(call: string): string {
  let n = names.get(call);
  if (!n) {
    n = `sse_${names.size}_${call.replace(/^app_hidden\.|\(.*$/g, '')}`.slice(0, 60);
    names.set(call, n);
  }
  return n;
}

const isAuthError = (err: unknown) => (err as { code?: string })?.code === 'SV401';

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
