/**
 * attachments.* (spec 4.7, 2.6). SQL does the authorization, narrowing, quota and rows (one function per
 * tool, one transaction); the `run` hooks do the object-store half: presign the PUT after initUpload
 * recorded it, measure the object before finalize records it, presign the GET, read bytes for getInline,
 * delete the blob after the row is gone.
 */
import { z } from 'zod';
import type { BlobStore } from '../blobs/store.ts';
import { BLOB_KEY, MAX_FILE_BYTES } from '../blobs/store.ts';
import { ApiError } from '../errors.ts';
import { msUntilExpiry } from '../auth/keys.ts';
import { defineTools, httpUrl, id, line, tool, type ToolContext } from './define.ts';
import { AttachmentOut, attachmentTargetType as targetType } from './shapes.ts';
import { NOT_IN_A_LINE } from './text-guard.ts';

/** Spec 8: getInline serves only these; anything else → use getDownloadUrl. */
export const INLINE_MIME_ALLOWLIST = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain', 'text/markdown'];

/** attachments.upload carries the bytes in the call (JSON bodies stop at 2 MB; base64 is 4/3 of the bytes). */
export const INLINE_UPLOAD_BYTES = 1_000_000;

const targetId = z.string().min(1).max(64).describe('Id of the target (UUID; an issue may also be given by key, e.g. ENG-12)');
const filename = z.string().min(1).max(255)
  .refine((s) => s.trim() === s, 'must not start or end with spaces')
  .refine((s) => !/[/\\]/.test(s), 'must not contain / or \\')
  // Controls, and direction overrides: "\u202Egnp.exe" shows as "exe.png".
  .refine((s) => !s.includes('\u0000') && !NOT_IN_A_LINE.test(s), 'must not contain control or direction-override characters')
  .refine((s) => s !== '.' && s !== '..', 'is not a file name');
// type/subtype with optional parameters (text/plain; charset=utf-8), RFC 6838 tokens: nothing that could break the
// Content-Type header it is served with.
const mimeType = z.string().max(255).regex(
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=([A-Za-z0-9!#$&^_.+-]+|"[^"\\\x00-\x1f\x7f]*"))*$/,
  'must be a MIME type such as image/png or text/plain; charset=utf-8');

function blobsOf(ctx: ToolContext): BlobStore {
  const b = ctx.services.blobs;
  if (!b) throw new ApiError(503, { error: 'blob_store_unavailable', message: 'No blob store is configured on this server' });
  return b;
}

interface BlobRef { attachment: z.infer<typeof AttachmentOut> & { filename: string | null; externalUrl: string | null }; storageKey: string | null }

const DownloadOut = z.looseObject({
  id: z.string(), kind: z.enum(['FILE', 'LINK']), url: z.string(), method: z.literal('GET'),
  expiresAt: z.string().nullable(), filename: z.string().nullable(), mimeType: z.string(), sizeBytes: z.number(),
});

export const attachmentTools = defineTools(
  tool({
    name: 'attachments.initUpload',
    scopes: ['WRITE_ISSUES'],
    description: 'Start a file upload to an issue, comment, cycle or initiative: returns {uploadUrl, key}. PUT the bytes to uploadUrl (e.g. curl -T file "<uploadUrl>") before expiresAt, then call attachments.finalize with the key. 25 MB per file; the workspace quota (attachmentQuotaMb) counts finalized files and open uploads.',
    input: z.strictObject({
      targetType, targetId, filename, mimeType,
      sizeBytes: z.number().int().min(1).max(MAX_FILE_BYTES, { message: `must be at most ${MAX_FILE_BYTES} bytes (25 MB)` }),
    }),
    output: z.looseObject({
      uploadUrl: z.string(), key: z.string(), method: z.literal('PUT'), headers: z.record(z.string(), z.string()),
      expiresAt: z.string(), sizeBytes: z.number(), filename: z.string(), mimeType: z.string(),
      targetType, targetId: z.string(), uploadId: z.string().describe('The open upload (removed with its blob if never finalized)'),
    }),
    sql: true,
    run: async (ctx, input) => {
      const blobs = blobsOf(ctx);
      const granted = await ctx.sql<{ key: string; uploadId: string; expiresAt: string; sizeBytes: number; mimeType: string }>(input);
      // The link ends no later than the key that asked for it (and, embedded, works only while that key does).
      const expiresAt = Math.min(Date.parse(granted.expiresAt), ctx.caller.expiresAt?.getTime() ?? Infinity);
      const put = await blobs.presignPut(granted.key, { sizeBytes: granted.sizeBytes, mimeType: granted.mimeType, expiresAt: new Date(expiresAt), keyId: ctx.caller.keyId });
      return { uploadUrl: put.url, method: put.method, headers: put.headers, ...granted, expiresAt: put.expiresAt };
    },
  }),
  tool({
    name: 'attachments.upload',
    scopes: ['WRITE_ISSUES'],
    description: `Attach a small file sent as base64 in the call (at most ${INLINE_UPLOAD_BYTES.toLocaleString('en')} bytes), for clients that cannot PUT to a URL (an MCP-only agent): initUpload and finalize in one. Larger: attachments.initUpload.`,
    input: z.strictObject({
      targetType, targetId, filename, mimeType,
      base64: z.string().min(1).max(Math.ceil(INLINE_UPLOAD_BYTES / 3) * 4, { message: `must be at most ${INLINE_UPLOAD_BYTES} bytes once decoded; use attachments.initUpload for larger files` })
        .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be base64 (A–Z, a–z, 0–9, + and /, padded with =; no line breaks)')
        .describe('The file\'s bytes, base64'),
    }),
    output: AttachmentOut,
    sql: true,
    run: async (ctx, input) => {
      const { base64, ...target } = input;
      const bytes = Buffer.from(base64, 'base64');
      // Its SQL records the open upload as initUpload's does (authorization, narrowing, quota), without a signed URL;
      // finalize checks the stored size. Bytes that never arrive (a store failure in between) leave an open upload,
      // removed when it expires, as an abandoned PUT does.
      const up = await ctx.sql<{ key: string; mimeType: string }>({ ...target, sizeBytes: bytes.length });
      await blobsOf(ctx).write(up.key, bytes, up.mimeType);
      return ctx.invoke('attachments.finalize', { key: up.key });
    },
  }),
  tool({
    name: 'attachments.finalize',
    scopes: ['WRITE_ISSUES'],
    description: 'Register an uploaded file as an Attachment (kind FILE): checks the object exists with the size declared at initUpload. An upload never finalized is removed (row and blob) after it expires.',
    input: z.strictObject({ key: z.string().regex(BLOB_KEY, 'must be the key returned by attachments.initUpload') }),
    output: AttachmentOut,
    sql: true,
    run: async (ctx, input) => {
      const blobs = blobsOf(ctx);
      // Only objects of the caller's own workspace are looked at; SQL answers 404 for the rest.
      const storedSize = input.key.startsWith(`${ctx.caller.workspaceId}/`) ? await blobs.size(input.key) : null;
      return ctx.sql({ key: input.key, storedSize });
    },
  }),
  tool({
    name: 'attachments.attachLink',
    scopes: ['WRITE_ISSUES'],
    // Without linkTitle a background job fetches the page: it reaches outside the service.
    openWorld: true,
    description: 'Attach a link (kind LINK, mimeType text/url, size 0) to an issue, comment, cycle or initiative. Without linkTitle the hostname stands in until a background job has fetched the page title (5 s, redirects followed, 64 KB read).',
    input: z.strictObject({
      targetType, targetId,
      externalUrl: httpUrl(2000),
      linkTitle: line(500).optional(),
    }),
    output: AttachmentOut.extend({ titlePending: z.boolean().describe('true while the page title is being fetched (linkTitle is the hostname until then)') }),
  }),
  tool({
    name: 'attachments.list',
    scopes: ['READ_ISSUES'],
    description: 'Attachments (files and links) of an issue, comment, cycle or initiative, oldest first.',
    input: z.strictObject({ targetType, targetId, kind: z.enum(['FILE', 'LINK']).optional() }),
    output: z.array(AttachmentOut),
    readOnly: true,
  }),
  tool({
    name: 'attachments.get',
    scopes: ['READ_ISSUES'],
    description: 'One attachment by id (metadata; fetch bytes with getDownloadUrl).',
    input: z.strictObject({ id: id('id') }),
    output: AttachmentOut,
    readOnly: true,
  }),
  tool({
    name: 'attachments.getDownloadUrl',
    scopes: ['READ_ISSUES'],
    description: 'A presigned GET URL for a file attachment (valid expiresInSeconds, default 900, and never past the calling key\'s own expiry; the built-in store\'s link also stops when the key is revoked); for a LINK, its externalUrl.',
    input: z.strictObject({ id: id('id'), expiresInSeconds: z.number().int().min(60).max(604_800).default(900) }),
    output: DownloadOut,
    readOnly: true,
    sql: true,
    run: async (ctx, input) => {
      const ref = await ctx.sql<BlobRef>({ id: input.id });
      const a = ref.attachment;
      const base = { id: a.id, kind: a.kind, method: 'GET' as const, filename: a.filename, mimeType: a.mimeType, sizeBytes: a.sizeBytes };
      if (a.kind === 'LINK' || !ref.storageKey) return { ...base, url: a.externalUrl, expiresAt: null };
      const keyLeft = msUntilExpiry(ctx.caller);
      const expiresInSeconds = keyLeft === undefined ? input.expiresInSeconds : Math.max(1, Math.min(input.expiresInSeconds, Math.floor(keyLeft / 1000)));
      const get = await blobsOf(ctx).presignGet(ref.storageKey, { filename: a.filename ?? 'file', mimeType: a.mimeType, expiresInSeconds, keyId: ctx.caller.keyId });
      return { ...base, url: get.url, expiresAt: get.expiresAt };
    },
  }),
  tool({
    name: 'attachments.getInline',
    scopes: ['READ_ISSUES'],
    description: `A file attachment's bytes as base64, for files up to maxBytes (default 1,000,000; at most 25 MB) of an allowed type (${INLINE_MIME_ALLOWLIST.join(', ')}). Other types and larger files: use attachments.getDownloadUrl.`,
    input: z.strictObject({ id: id('id'), maxBytes: z.number().int().min(1).max(MAX_FILE_BYTES).default(1_000_000) }),
    output: z.looseObject({ id: z.string(), mimeType: z.string(), sizeBytes: z.number(), filename: z.string().nullable(), base64: z.string() }),
    readOnly: true,
    sql: true,
    run: async (ctx, input) => {
      const ref = await ctx.sql<BlobRef>({ id: input.id });
      const a = ref.attachment;
      if (a.kind !== 'FILE' || !ref.storageKey) {
        throw new ApiError(400, { error: 'not_a_file', message: 'A LINK attachment has no bytes; open its externalUrl', issues: { id: 'is a LINK attachment' } });
      }
      const mime = a.mimeType.split(';')[0]!.trim().toLowerCase();
      if (!INLINE_MIME_ALLOWLIST.includes(mime)) {
        throw new ApiError(403, {
          error: 'mime_not_inline',
          message: `${a.mimeType} is not served inline (allowed: ${INLINE_MIME_ALLOWLIST.join(', ')}); use attachments.getDownloadUrl`,
        });
      }
      if (a.sizeBytes > input.maxBytes) {
        throw new ApiError(400, {
          error: 'too_large',
          message: `The file has ${a.sizeBytes} bytes, more than maxBytes ${input.maxBytes}; raise maxBytes (up to ${MAX_FILE_BYTES}) or use attachments.getDownloadUrl`,
          issues: { maxBytes: `the file has ${a.sizeBytes} bytes; use attachments.getDownloadUrl` },
        });
      }
      const bytes = await blobsOf(ctx).read(ref.storageKey, a.sizeBytes);
      if (!bytes) {
        // The record is there, its bytes are not (a data directory restored without its blobs/): a 500 said nothing.
        throw new ApiError(404, { error: 'not_found', field: 'id',
          message: "This file's bytes are missing from the blob store (restored without them?); its record remains: attachments.delete removes it" });
      }
      return { id: a.id, mimeType: a.mimeType, sizeBytes: a.sizeBytes, filename: a.filename, base64: bytes.toString('base64') };
    },
  }),
  tool({
    name: 'attachments.delete',
    scopes: ['WRITE_ISSUES'],
    description: 'Delete an attachment: its row, and for a file its blob in the object store.',
    input: z.strictObject({ id: id('id') }),
    output: AttachmentOut.extend({ deleted: z.literal(true) }),
    sql: true,
    run: async (ctx, input) => {
      const ref = await ctx.sql<BlobRef & { deleted: true }>({ id: input.id });
      if (ref.storageKey) await blobsOf(ctx).delete(ref.storageKey);
      return { ...ref.attachment, deleted: true };
    },
  }),
);
