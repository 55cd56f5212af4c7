/**
 * MCP resource subscriptions (resources/subscribe, resources/unsubscribe, notifications/resources/updated).
 *
 * Streamable HTTP delivers server notifications on a GET SSE stream of the MCP endpoint, tied to the
 * session the server named in `Mcp-Session-Id` on initialize (the official SDK client opens that stream
 * by itself after initialize). The service stays stateless for everything else: a session costs memory
 * only once it subscribes or opens its stream, and requests without a session header work as before.
 *
 * A subscription is checked when made (the URI must be readable by the key: scopes, narrowing, RLS;
 * another workspace's issue is "not found"), then matched against the ActivityEvents of the key's
 * workspace (svc_events, the same LISTEN feed as SSE): an event whose subject is the subscribed issue,
 * project or cycle (or an issue event naming it in its payload) sends `notifications/resources/updated`
 * with the URI only; the client reads the new content with resources/read, through its own key. A narrowed key
 * is told only of events it may read (the events policy, asked as that key): an issue that left its narrowing
 * sends it nothing more. A session ends when its key is revoked or expires, streams included.
 *
 * A notification goes on one stream of the session, the most recently opened one still open (MCP transports,
 * "Multiple Connections": the server MUST NOT broadcast a message across streams); heartbeats go on all of them.
 * A session its client ended (DELETE) is remembered as ended, so its id is 404 from then on (`isEnded`), for an hour
 * and at most MAX_ENDED ids per key (one key's DELETEs of ids it made up cannot push out another's); a restart
 * forgets them.
 *
 * Sessions live in the API process that served them: with several API processes behind a balancer, the
 * subscribe call and the GET stream must reach the same process (sticky sessions on Mcp-Session-Id).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type pg from 'pg';
import { isNarrowed, msUntilExpiry, type Caller } from '../auth/keys.ts';
import { queryAsCaller } from '../db/as-caller.ts';
import { fromPgError, refusesKey } from '../errors.ts';
import type { Notifier } from '../events/notifier.ts';

export interface Subscription {
  uri: string;
  subjectType: 'issue' | 'project' | 'cycle' | 'workspace';
  subjectId: string;
}

interface Session {
  caller: Caller;
  subs: Map<string, Subscription>;
  streams: Set<ServerResponse>;
  idleSince: number;
  /** Ends the session when its key expires. */
  expiry?: NodeJS.Timeout;
}

const IDLE_MS = 60 * 60 * 1000;
const MAX_SUBSCRIPTIONS = 1000;
/** Sessions one key keeps; past it the key's longest idle session (no open stream) makes room. */
const MAX_SESSIONS_PER_KEY = 20;
/** Unsent bytes a notification stream may hold before it is let go (the client resubscribes on reconnect). */
const MAX_BUFFER_BYTES = 256 * 1024;
/** Ended session ids remembered (oldest forgotten first); each for IDLE_MS. */
export const MAX_ENDED = 1_000;

const keyMark = (keyId: string) => createHash('sha256').update(`mcp-session:${keyId}`).digest('base64url').slice(0, 22);

export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  /**
   * Ids of sessions ended by DELETE, with when, per key (insertion order is time order: an ended id cannot be ended
   * again). One list for all keys let a key that ended 10,001 ids of its own make every other key's ended sessions
   * live again (an outside probe).
   */
  private readonly ended = new Map<string, Map<string, number>>();
  private readonly sweep: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly onEvent = (payload: string) => void this.deliver(payload).catch(() => {});
  // A revoked key's sessions end, streams included (as its SSE streams do).
  private readonly onKeyRevoked = (keyId: string) => {
    for (const [id, s] of this.sessions) if (s.caller.keyId === keyId) this.drop(id, s);
  };

  // The LISTEN connection came back: a key revoked (or its agent archived) meanwhile sent its notice to no one, so each
  // key with a session is asked again (an outside probe's revoked key kept its notification stream for good).
  private readonly onListenAgain = () => void this.recheckKeys();

  /** ownerPool reads an event once for every session; visitorPool asks, as a narrowed key, whether it may see it. */
  constructor(private readonly ownerPool: pg.Pool, private readonly notifier: Notifier, private readonly visitorPool: pg.Pool) {
    notifier.on('svc_events', this.onEvent);
    notifier.on('svc_keys', this.onKeyRevoked);
    notifier.on('connected', this.onListenAgain);
    this.sweep = setInterval(() => this.dropIdle(), 60_000);
    this.sweep.unref();
    this.heartbeat = setInterval(() => this.beat(), 25_000);
    this.heartbeat.unref();
  }

  /**
   * A session id for this key (initialize): random, and marked with the key it was made for, so the key that uses it
   * first cannot take it over (it went to whichever key subscribed or streamed first). The mark is a digest of the
   * key id: knowing it gives nothing without the key. No state until the session is used; after a restart the same
   * id is the same key's session again.
   */
  static mint(caller: Caller): string {
    return `${randomUUID()}.${keyMark(caller.keyId)}`;
  }

  /** Whether this id was made for this key (mint). */
  static owns(id: string, caller: Caller): boolean {
    return id.lastIndexOf('.') > 0 && McpSessions.markOf(id) === keyMark(caller.keyId);
  }

  /** The part of a session id that names its key. */
  private static markOf(id: string): string {
    return id.slice(id.lastIndexOf('.') + 1);
  }

  /** The session of this id for this key; undefined when the id was made for another key. */
  private session(id: string, caller: Caller, create: boolean): Session | undefined {
    if (!McpSessions.owns(id, caller) || this.isEnded(id)) return undefined;
    const s = this.sessions.get(id);
    if (s) return s;
    if (!create) return undefined;
    if (!this.makeRoom(caller.keyId)) return undefined;
    const fresh: Session = { caller, subs: new Map(), streams: new Set(), idleSince: Date.now() };
    const expiresIn = msUntilExpiry(caller);
    if (expiresIn !== undefined) {
      fresh.expiry = setTimeout(() => this.drop(id, fresh), expiresIn);
      fresh.expiry.unref();
    }
    this.sessions.set(id, fresh);
    return fresh;
  }

  /** Whether the key may have one more session: at the cap its longest idle one (no open stream) is dropped. */
  private makeRoom(keyId: string): boolean {
    const own = [...this.sessions].filter(([, s]) => s.caller.keyId === keyId);
    if (own.length < MAX_SESSIONS_PER_KEY) return true;
    const idle = own.filter(([, s]) => s.streams.size === 0).sort(([, a], [, b]) => a.idleSince - b.idleSince)[0];
    if (!idle) return false;
    this.drop(idle[0], idle[1]);
    return true;
  }

  /** Writes to one stream; a client that stopped reading is let go rather than buffered for without end. */
  private write(res: ServerResponse, frame: string) {
    res.write(frame);
    if (res.writableLength > MAX_BUFFER_BYTES) res.destroy();
  }

  private drop(id: string, s: Session) {
    clearTimeout(s.expiry);
    for (const res of s.streams) res.end();
    if (this.sessions.get(id) === s) this.sessions.delete(id);
  }

  subscribe(id: string, caller: Caller, sub: Subscription): boolean {
    const s = this.session(id, caller, true);
    if (!s || (s.subs.size >= MAX_SUBSCRIPTIONS && !s.subs.has(sub.uri))) return false;
    s.subs.set(sub.uri, sub);
    return true;
  }

  unsubscribe(id: string, caller: Caller, uri: string): void {
    this.session(id, caller, false)?.subs.delete(uri);
  }

  /** Serves the session's notification stream on an open response; false when the session is another key's. */
  attach(id: string, caller: Caller, res: ServerResponse): boolean {
    const s = this.session(id, caller, true);
    if (!s) return false;
    s.streams.add(res);
    res.on('close', () => {
      s.streams.delete(res);
      s.idleSince = Date.now();
    });
    return true;
  }

  /**
   * Ends the session (DELETE): its streams close, its subscriptions go, and its id is refused from then on (isEnded),
   * whether or not this process held state for it. False when the id is not this key's or already ended.
   */
  end(id: string, caller: Caller): boolean {
    if (!McpSessions.owns(id, caller) || this.isEnded(id)) return false;
    const s = this.sessions.get(id);
    if (s) this.drop(id, s);
    const mark = McpSessions.markOf(id);
    const ofKey = this.ended.get(mark) ?? new Map<string, number>();
    this.ended.set(mark, ofKey);
    ofKey.set(id, Date.now());
    if (ofKey.size > MAX_ENDED) ofKey.delete(ofKey.keys().next().value!);
    return true;
  }

  /** Whether this id's session was ended by DELETE (in this process, within the last IDLE_MS). */
  isEnded(id: string): boolean {
    const ofKey = this.ended.get(McpSessions.markOf(id));
    const at = ofKey?.get(id);
    if (at === undefined) return false;
    if (Date.now() - at <= IDLE_MS) return true;
    ofKey!.delete(id);
    return false;
  }

  /** The stream a notification of the session goes on: the most recently opened one still open (a Set keeps insertion order). */
  private newestStream(s: Session): ServerResponse | undefined {
    let newest: ServerResponse | undefined;
    for (const res of s.streams) if (!res.destroyed && !res.writableEnded) newest = res;
    return newest;
  }

  private async deliver(payload: string) {
    let msg: { id: string; workspaceId: string };
    try {
      msg = JSON.parse(payload);
    } catch {
      return;
    }
    const targets = [...this.sessions.values()].filter((s) => s.caller.workspaceId === msg.workspaceId && s.subs.size > 0 && s.streams.size > 0);
    if (targets.length === 0) return;
    // An issue's change is also a change of the project and cycle it is in (project://'s open issues, cycle://'s
    // issues), and of those it left (payload before).
    const { rows } = await this.ownerPool.query<{ subject_type: string; subject_id: string | null; issue_id: string | null; scopes: string[] }>(
      `select e.subject_type, e.subject_id, e.payload->>'issueId' as issue_id,
              array_remove(array['project:' || i.project_id, 'cycle:' || i.cycle_id,
                                 'project:' || (e.payload->'before'->>'projectId'), 'cycle:' || (e.payload->'before'->>'cycleId')], null) as scopes
         from app_public.activity_events e
         left join app_public.issues i on i.workspace_id = e.workspace_id and e.subject_type = 'issue' and i.id = e.subject_id
        where e.id = $1 and e.workspace_id = $2`, [msg.id, msg.workspaceId]);
    const e = rows[0];
    if (!e) return;
    const touched = new Set<string>(e.scopes);
    if (e.subject_id) touched.add(`${e.subject_type}:${e.subject_id}`);
    if (e.issue_id) touched.add(`issue:${e.issue_id}`);
    for (const s of targets) {
      if (!this.newestStream(s)) continue;
      const uris = [...s.subs.values()].filter((sub) => touched.has(`${sub.subjectType}:${sub.subjectId}`)).map((sub) => sub.uri);
      if (uris.length === 0) continue;
      if (isNarrowed(s.caller) && !(await this.mayRead(s.caller, msg.id))) continue;
      for (const uri of uris) {
        const frame = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } })}\n\n`;
        // One stream only (MCP: not broadcast across a session's streams); it may have closed meanwhile.
        const res = this.newestStream(s);
        if (res) this.write(res, frame);
      }
    }
  }

  /** Whether the key may read the event (events policy, as for events.recent and SSE); false if the check fails. */
  private async mayRead(caller: Caller, eventId: string): Promise<boolean> {
    const visible = await queryAsCaller(this.visitorPool, caller, 'read:mcp_event_visible',
      'exists(select 1 from app_public.activity_events e where e.id = $2::uuid)', [eventId]).catch(() => null);
    return visible === 'true';
  }

  /** Ends the sessions of every key that set_request_context now refuses (revoked, expired, agent archived). */
  private async recheckKeys() {
    const callers = new Map<string, Caller>();
    for (const s of this.sessions.values()) callers.set(s.caller.keyId, s.caller);
    await Promise.all([...callers.values()].map(async (caller) => {
      try {
        await queryAsCaller(this.visitorPool, caller, 'read:mcp_key_live', 'true', [], { inShare: false });
      } catch (err) {
        // Anything else (the database went again) says nothing of the key: the next reconnection asks again.
        if (refusesKey(fromPgError(err))) this.onKeyRevoked(caller.keyId);
      }
    }));
  }

  private beat() {
    for (const s of this.sessions.values()) for (const res of s.streams) this.write(res, ': heartbeat\n\n');
  }

  private dropIdle() {
    const now = Date.now();
    for (const [id, s] of this.sessions) if (s.streams.size === 0 && now - s.idleSince > IDLE_MS) this.drop(id, s);
    for (const [mark, ofKey] of this.ended) {
      for (const [id, at] of ofKey) {
        if (now - at <= IDLE_MS) break;
        ofKey.delete(id);
      }
      if (ofKey.size === 0) this.ended.delete(mark);
    }
  }

  close() {
    clearInterval(this.sweep);
    clearInterval(this.heartbeat);
    this.notifier.off('svc_events', this.onEvent);
    this.notifier.off('svc_keys', this.onKeyRevoked);
    this.notifier.off('connected', this.onListenAgain);
    for (const [id, s] of this.sessions) this.drop(id, s);
  }
}
