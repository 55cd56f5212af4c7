/**
 * One LISTEN connection per process. Channels: svc_keys (a key was revoked: drop it from caches),
 * svc_events (an ActivityEvent committed: wake the SSE fan-out; payload {id, seq, pos, workspaceId})
 * and svc_stream (an ephemeral, never-stored event for SSE: {workspaceId, event}). Reconnects with
 * backoff if the connection drops and emits 'connected' again, so listeners can catch up.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';

export const CHANNELS = ['svc_keys', 'svc_events', 'svc_stream'] as const;
export type Channel = (typeof CHANNELS)[number];

export class Notifier extends EventEmitter {
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = 250;

  constructor(private readonly connectionString: string) {
    super();
    this.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, application_name: 'svc-listen' });
    client.on('notification', (msg) => this.emit(msg.channel, msg.payload ?? ''));
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    await client.connect();
    for (const channel of CHANNELS) await client.query(`listen ${channel}`);
    this.client = client;
    this.retryMs = 250;
    this.emit('connected');
  }

  private reconnect(client: pg.Client) {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('end');
    client.end().catch(() => {});
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
    setTimeout(() => {
      if (!this.closed) this.start().catch(() => this.reconnect(client));
    }, delay).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
