/**
 * Attachment blobs live in an object store behind this one small interface. Two implementations:
 * S3 (any S3-compatible store, through the AWS SDK v3 and its request presigner; src/blobs/s3.ts) and the
 * embedded default (files under SVC_DATA_DIR, served by the service itself at HMAC-signed, expiring
 * URLs; src/blobs/embedded.ts). Keys are `<workspace id>/<upload id>`, made by SQL (initUpload).
 */
export interface PresignedRequest {
  url: string;
  method: 'PUT' | 'GET';
  /** Headers the client must send with the request (none for either store today). */
  headers: Record<string, string>;
  expiresAt: string;
}

export interface BlobStore {
  readonly kind: 'embedded' | 's3';
  /**
   * A URL that accepts a PUT of the object (e.g. `curl -T file <url>`) until expiresAt; the embedded store's, only until
   * the upload is finalized and while the key `keyId` that asked for it acts (S3's cannot be recalled before it expires).
   */
  presignPut(key: string, opts: { sizeBytes: number; mimeType: string; expiresAt: Date; keyId?: string }): Promise<PresignedRequest>;
  /** A URL that GETs the object with its filename and type until now + expiresInSeconds (embedded: while `keyId` acts). */
  presignGet(key: string, opts: { filename: string; mimeType: string; expiresInSeconds: number; keyId?: string }): Promise<PresignedRequest>;
  /** Size of the stored object, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** The object's bytes (at most maxBytes are read; callers check the size first), or null when there is none. */
  read(key: string, maxBytes: number): Promise<Buffer | null>;
  /** Stores the object's bytes (attachments.upload: bytes that came in the call itself, not through a presigned PUT). */
  write(key: string, bytes: Buffer, mimeType: string): Promise<void>;
  /** Deletes the object; no error when it is already gone. */
  delete(key: string): Promise<void>;
}

/** Keys are made by SQL: `<workspace uuid>/<upload uuid>`. Anything else never reaches a store. */
export const BLOB_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const MAX_FILE_BYTES = 25 * 1024 * 1024;

export function assertKey(key: string): void {
  if (!BLOB_KEY.test(key)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
}

/** RFC 8187 attr-char: what may stand unencoded in an ext-value (`filename*`). Every other byte is %XX. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;
const HEX = '0123456789ABCDEF';

/**
 * The `filename*` value of RFC 8187 (6266): `UTF-8''` and the name's UTF-8 bytes, each outside attr-char
 * percent-encoded. encodeURIComponent is not that: it leaves ' ( ) * as they are, and `'` ends the language part, so
 * wget --content-disposition saved "O'Brien (copy) *1*.txt" as "Brien (copy) *1*.txt".
 */
export function extValue(text: string): string {
  let out = "UTF-8''";
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR.test(c) ? c : `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/**
 * The plain `filename="..."` fallback for clients that do not read `filename*`: a quoted-string of printable ASCII.
 * Accents are dropped (Café → Cafe), anything else outside ASCII is one `_` per character; `"` and `\` (which clients
 * unescape differently) are `_`, and so is a `%` before two hex digits (some clients percent-decode this parameter,
 * RFC 6266 appendix D).
 */
export function asciiFilename(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/gu, '_').replace(/["\\]/g, '_').replace(/%(?=[0-9A-Fa-f]{2})/g, '_');
}

/** attachment; filename="..." (printable ASCII) and the exact name in an RFC 8187 filename*. */
export function contentDisposition(filename: string): string {
  return `attachment; filename="${asciiFilename(filename)}"; filename*=${extValue(filename)}`;
}
