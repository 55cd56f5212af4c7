/**
 * A TCP proxy in front of the test PostgreSQL that plays what a database does to its clients when it goes away:
 * `cut()` drops every connection and refuses new ones (a restart) until `restore()`; `freeze()` keeps connections
 * open but passes nothing either way, and holds new ones unanswered (a server that stopped answering) until `thaw()`.
 */
import net from 'node:net';

export interface DbProxy {
  /** The database URL, through the proxy. */
  url: string;
  cut(): void;
  /** As cut, but the service's side of each connection is reset (TCP RST: ECONNRESET), as a network device may. */
  reset(): void;
  restore(): void;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startDbProxy(databaseUrl: string): Promise<DbProxy> {
  const target = new URL(databaseUrl);
  let open = true;
  let frozen = false;
  const pairs = new Set<[net.Socket, net.Socket]>();
  const waiting: net.Socket[] = [];
  const flow = ([a, b]: [net.Socket, net.Socket]) => { a.pipe(b); b.pipe(a); };
  const hold = ([a, b]: [net.Socket, net.Socket]) => { a.unpipe(b); b.unpipe(a); a.pause(); b.pause(); };
  const connect = (inbound: net.Socket) => {
    const outbound = net.connect(Number(target.port), target.hostname);
    const pair: [net.Socket, net.Socket] = [inbound, outbound];
    pairs.add(pair);
    flow(pair);
    const drop = () => { inbound.destroy(); outbound.destroy(); pairs.delete(pair); };
    inbound.on('error', drop).on('close', drop);
    outbound.on('error', drop).on('close', drop);
  };
  const server = net.createServer((inbound) => {
    if (!open) return inbound.destroy();
    if (frozen) {
      inbound.on('error', () => {});
      waiting.push(inbound);
      return;
    }
    connect(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const dropAll = () => {
    for (const [a, b] of pairs) { a.destroy(); b.destroy(); }
    pairs.clear();
    for (const s of waiting.splice(0)) s.destroy();
  };
  return {
    url: url.toString(),
    cut() {
      open = false;
      dropAll();
    },
    reset() {
      open = false;
      for (const [a] of pairs) a.resetAndDestroy();
      for (const s of waiting) s.resetAndDestroy();
      dropAll();
    },
    restore() {
      open = true;
    },
    freeze() {
      frozen = true;
      for (const pair of pairs) hold(pair);
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) flow(pair);
      for (const s of waiting.splice(0)) if (!s.destroyed) connect(s);
    },
    async close() {
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
