/**
 * The embedded blob store: files under <SVC_DATA_DIR>/blobs, uploaded and downloaded through the service
 * itself (src/blobs/routes.ts) at URLs signed with HMAC-SHA256 and expiring. The signing key is made once
 * per data directory (<SVC_DATA_DIR>/blob-signing.key, mode 0600), so every process on that directory
 * signs and verifies alike.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertKey, type BlobStore, type PresignedRequest } from './store.ts';

export interface SignedParams {
  method: 'PUT' | 'GET';
  key: string;
  exp: number;
  /** PUT: the most bytes accepted. */
  max?: number;
  /** GET: Content-Disposition filename and Content-Type. */
  fn?: string;
  ct?: string;
  /** The API key that asked for the link: the link works only while it does (routes.ts). */
  kid?: string;
}

export class EmbeddedBlobStore implements BlobStore {
  readonly kind = 'embedded' as const;
  readonly dir: string;
  private readonly secret: Buffer;
  private base: string;

  constructor(opts: { dataDir: string; publicUrl: string }) {
    this.dir = path.join(opts.dataDir, 'blobs');
    fs.mkdirSync(this.dir, { recursive: true });
    this.secret = signingKey(opts.dataDir);
    this.base = opts.publicUrl.replace(/\/+$/, '');
  }

  /** The base URL links start with (tests learn their port after listening). */
  setPublicUrl(url: string): void {
    this.base = url.replace(/\/+$/, '');
  }

  fileOf(key: string): string {
    assertKey(key);
    return path.join(this.dir, ...key.split('/'));
  }

  sign(p: SignedParams): string {
    // A link with a kid is signed over a JSON array: fields joined by newlines could be shifted into one another (a
    // re-probe moved the kid into ct and the old ct into fn, dropped kid, and the signature held). Links made before
    // kid existed carry none and keep their old form until they expire (7 days at most).
    const text = p.kid
      ? `v2${JSON.stringify([p.method, p.key, p.exp, p.max ?? null, p.fn ?? null, p.ct ?? null, p.kid])}`
      : [p.method, p.key, p.exp, p.max ?? '', p.fn ?? '', p.ct ?? ''].join('\n');
    return crypto.createHmac('sha256', this.secret).update(text).digest('hex');
  }

  /** True when sig is this store's signature of the parameters and they have not expired. */
  verify(p: SignedParams, sig: string | undefined, nowMs = Date.now()): 'ok' | 'expired' | 'bad_signature' {
    const expected = Buffer.from(this.sign(p), 'hex');
    const given = Buffer.from(typeof sig === 'string' && /^[0-9a-f]{64}$/.test(sig) ? sig : '', 'hex');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return 'bad_signature';
    if (!Number.isInteger(p.exp) || p.exp * 1000 < nowMs) return 'expired';
    return 'ok';
  }

  private url(p: SignedParams): string {
    const q = new URLSearchParams({ exp: String(p.exp) });
    if (p.max !== undefined) q.set('max', String(p.max));
    if (p.fn !== undefined) q.set('fn', p.fn);
    if (p.ct !== undefined) q.set('ct', p.ct);
    if (p.kid) q.set('kid', p.kid);
    q.set('sig', this.sign(p));
    return `${this.base}/blobs/${p.key}?${q}`;
  }

  async presignPut(key: string, opts: { sizeBytes: number; mimeType: string; expiresAt: Date; keyId?: string }): Promise<PresignedRequest> {
    assertKey(key);
    const exp = Math.floor(opts.expiresAt.getTime() / 1000);
    return { url: this.url({ method: 'PUT', key, exp, max: opts.sizeBytes, kid: opts.keyId }), method: 'PUT', headers: {}, expiresAt: new Date(exp * 1000).toISOString() };
  }

  async presignGet(key: string, opts: { filename: string; mimeType: string; expiresInSeconds: number; keyId?: string }): Promise<PresignedRequest> {
    assertKey(key);
    const exp = Math.floor(Date.now() / 1000) + opts.expiresInSeconds;
    return { url: this.url({ method: 'GET', key, exp, fn: opts.filename, ct: opts.mimeType, kid: opts.keyId }), method: 'GET', headers: {}, expiresAt: new Date(exp * 1000).toISOString() };
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await fs.promises.stat(this.fileOf(key))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async read(key: string, maxBytes: number): Promise<Buffer | null> {
    const handle = await fs.promises.open(this.fileOf(key), 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (!handle) return null;
    try {
      const buf = Buffer.alloc(Math.min(maxBytes, (await handle.stat()).size));
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      return buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async write(key: string, bytes: Buffer): Promise<void> {
    await this.writeFrom(key, [Readable.from([bytes])]);
  }

  /**
   * Writes what `stages` (a source and any transforms, as for `pipeline`) yield aside, then renames it into place, so a
   * reader never sees half a file; `keep`, asked once the bytes are in, may refuse them (false: nothing is written).
   */
  async writeFrom(key: string, stages: [NodeJS.ReadableStream, ...NodeJS.ReadWriteStream[]], keep: () => Promise<boolean> = async () => true): Promise<boolean> {
    const file = this.fileOf(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.part-${crypto.randomBytes(6).toString('hex')}`;
    try {
      await pipeline([...stages, fs.createWriteStream(tmp, { mode: 0o600 })]);
      if (!(await keep())) {
        await fs.promises.rm(tmp, { force: true });
        return false;
      }
      await fs.promises.rename(tmp, file);
      return true;
    } catch (err) {
      await fs.promises.rm(tmp, { force: true });
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.fileOf(key), { force: true });
    await fs.promises.rmdir(path.dirname(this.fileOf(key))).catch(() => {});
  }
}

function signingKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'blob-signing.key');
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    // Written aside and linked into place: a process starting at the same time never reads half a key.
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, crypto.randomBytes(32).toString('hex'), { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const hex = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} is not a 32-byte hex key; delete it to make a new one`);
  return Buffer.from(hex, 'hex');
}
