/** Requests that arrive while the service shuts down get the spec's 503 (with Retry-After), not Fastify's own body. */
import inject from 'light-my-request';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../support/harness.ts';

describe('shutting down', () => {
  it('answers 503 unavailable with Retry-After on REST and in the JSON-RPC envelope on the MCP endpoint', async () => {
    const t = await startTestApp();
    // Requests on connections the server still holds as the close begins (its preClose hooks have run): Fastify's own
    // inject refuses a closing instance, so they go to its router directly, as the HTTP server hands them over.
    const closed = t.app.close();
    await new Promise((r) => setImmediate(r));
    const send = (url: string, payload: object) => inject((req, res) => t.app.routing(req, res), { method: 'POST', url, payload });
    try {
      const rest = await send('/api/mcp/issues.list', {});
      expect(rest.statusCode).toBe(503);
      expect(rest.headers['retry-after']).toBe('5');
      expect(rest.json()).toMatchObject({ error: 'unavailable' });
      const rpc = await send('/api/mcp/rpc', { jsonrpc: '2.0', id: 7, method: 'tools/list' });
      expect(rpc.statusCode).toBe(503);
      expect(rpc.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { data: { error: 'unavailable', status: 503 } } });
      // An event stream asked for now opens and ends with a retry delay: on a 503 an EventSource gives up for good
      // (an outage probe's reader, reconnecting on a kept-alive socket as a process stopped, never came back).
      const stream = await inject((req, res) => t.app.routing(req, res), { method: 'GET', url: '/api/plugins/events', headers: { accept: 'text/event-stream' } });
      expect(stream.statusCode).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(stream.payload).toMatch(/^retry: 5000\n: the service is shutting down/);
    } finally {
      await closed;
      await t.close().catch(() => {});
    }
  });
});
