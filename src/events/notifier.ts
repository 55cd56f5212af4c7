/**
 * One LISTEN connection per process. Channels: svc_keys (a key was revoked, or its agent archived or restored: drop it from caches),
 * svc_events (an ActivityEvent got its stream position: wake the SSE fan-out; payload {id, seq, pos,
 * workspaceId}) and svc_stream (an ephemeral, never-stored event for SSE: {workspaceId, event}).
 * Reconnects with backoff if the connection drops and emits 'connected' again, so listeners can catch up.
 *
 * The same connection sequences the event stream: it calls app_private.sequence_events, which gives
 * committed events their positions and sends svc_events (one sequencer runs at a time across processes).
 * Writers send no NOTIFY, so they do not queue on its database-wide commit lock; the price is a short
 * delay before an event streams: it polls every SEQUENCE_MIN_MS while events arrive, backing off to
 * SEQUENCE_MAX_MS when idle. An ephemeral event (svc_stream) is emitted after the next pass, so it follows the stored
 * events committed before it.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';

export const CHANNELS = ['svc_keys', 'svc_events', 'svc_stream'] as const;
const SEQUENCE_MIN_MS = 2;
const SEQUENCE_MAX_MS = 50;
const SEQUENCE_BATCH = 1000;
export type Channel = (typeof CHANNELS)[number];

export class Notifier extends EventEmitter {
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = 250;
  private sequenceTimer: NodeJS.Timeout | undefined;
  private sequenceDelayMs = SEQUENCE_MIN_MS;
  private sequenceFailing = false;
  /** svc_stream payloads waiting for the next sequencing pass (see start). */
  private pendingStream: string[] = [];

  /** onSequenceError: told once when sequencing starts failing (events then do not stream), not at every retry. */
  constructor(private readonly connectionString: string, private readonly onSequenceError: (err: Error) => void = () => {}) {
    super();
    this.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'svc-listen', connectionTimeoutMillis: 10_000 });
    client.on('notification', (msg) => {
      if (msg.channel !== 'svc_stream') return this.emit(msg.channel, msg.payload ?? '');
      // An ephemeral event (a chat draft) waits for one sequencing pass: the stored events committed before it get
      // their positions, and their svc_events are emitted, first. Sent at once, a draft's `finalized` reached SSE
      // before the stored message it names, and a draft started after a message went out before it.
      this.pendingStream.push(msg.payload ?? '');
      this.scheduleSequencing(0);
    });
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    try {
      await client.connect();
      for (const channel of CHANNELS) await client.query(`listen ${channel}`);
    } catch (err) {
      client.removeAllListeners('end');
      client.end().catch(() => {});
      throw err;
    }
    this.client = client;
    this.retryMs = 250;
    // A pass that failed with the old connection says nothing of this one (its next pass says if it fails too).
    this.sequenceFailing = false;
    this.emit('connected');
    this.scheduleSequencing(0);
  }

  private scheduleSequencing(delayMs: number) {
    clearTimeout(this.sequenceTimer);
    if (this.closed) return;
    this.sequenceTimer = setTimeout(() => void this.sequence(), delayMs);
    this.sequenceTimer.unref();
  }

  private async sequence() {
    const client = this.client;
    // Those that arrived before this pass: emitted once it is through (its own svc_events come first, as the
    // notifications of the pass's own transaction arrive before its answer), or failed.
    const ready = this.pendingStream.splice(0);
    const release = () => { for (const payload of ready) this.emit('svc_stream', payload); };
    if (!client) return release(); // reconnecting: start() schedules again
    try {
      const { rows } = await client.query<{ n: number }>('select app_private.sequence_events($1) as n', [SEQUENCE_BATCH]);
      release();
      // A full batch: more are waiting. Some: poll soon. None: back off.
      this.sequenceDelayMs = rows[0]!.n > 0 ? SEQUENCE_MIN_MS : Math.min(this.sequenceDelayMs * 2, SEQUENCE_MAX_MS);
      this.sequenceFailing = false;
      this.scheduleSequencing(rows[0]!.n >= SEQUENCE_BATCH ? 0 : this.sequenceDelayMs);
    } catch (err) {
      release();
      // The connection failed (reconnect() takes over) or the query did: try again later.
      if (this.client !== client || this.closed) return;
      if (!this.sequenceFailing) this.onSequenceError(err as Error);
      this.sequenceFailing = true;
      this.scheduleSequencing(SEQUENCE_MAX_MS);
    }
  }

  /** The live connection dropped: let it go and connect again. */
  private reconnect(client: pg.Client) {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('end');
    client.end().catch(() => {});
    this.retryLater();
  }

  /**
   * Tries again after a growing pause until a connection listens, however many tries fail. (A failed try once went
   * back through reconnect(), which saw no live client of its own and stopped: after a database restart longer than
   * the first pause, events never streamed again until the process restarted.)
   */
  private retryLater() {
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
    setTimeout(() => {
      if (!this.closed) this.start().catch(() => this.retryLater());
    }, delay).unref();
  }

  /**
   * Whether events stream from this process: its connection listens and sequencing works (GET /ready). While not,
   * its SSE and MCP streams get nothing new (they catch up once it is back) and it hears no key revocation.
   */
  get listening(): boolean {
    return this.client !== undefined && !this.sequenceFailing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.sequenceTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
