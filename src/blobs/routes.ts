/**
 * HTTP side of the embedded blob store: PUT and GET /blobs/<workspace>/<upload>?exp&sig..., checked
 * against the HMAC signature and expiry made by EmbeddedBlobStore. No API key: the signed URL is the
 * credential (like a presigned S3 URL). Bodies stream to disk; a PUT larger than its signed size is refused.
 * A link takes PUTs only while its upload is in progress (a second PUT replaces a wrong first one before
 * finalize): once the upload was finalized, deleted or expired, the bytes others may have read cannot be swapped (409).
 * Browser apps at SVC_CORS_ORIGINS (and SVC_PUBLIC_URL's origin) may PUT and GET these links with fetch: the CORS
 * preflight and headers are answered by the origin guard (src/http/origin-guard.ts), before these routes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type pg from 'pg';
import type { EmbeddedBlobStore, SignedParams } from './embedded.ts';
import { contentDisposition } from './store.ts';

interface BlobQuery { exp?: string; max?: string; fn?: string; ct?: string; kid?: string; sig?: string }

class TooLarge extends Error {}

export function registerBlobRoutes(app: FastifyInstance, store: EmbeddedBlobStore, ownerPool: pg.Pool): void {
  // A link ends with the key that asked for it (revoked, expired, its member removed, its agent archived).
  const keyLive = async (kid: string, workspaceId: string) =>
    (await ownerPool.query<{ ok: boolean }>('select app_private.blob_link_key_live($1, $2) as ok', [kid, workspaceId])).rows[0]?.ok === true;
  const uploadOpen = async (key: string) =>
    (await ownerPool.query<{ ok: boolean }>('select app_private.attachment_upload_open($1) as ok', [key])).rows[0]?.ok === true;
  app.register(async (scope) => {
    // Uploads are raw bytes of any type: no JSON parsing, no body limit here (the signed size is the limit).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

    const check = async (method: 'PUT' | 'GET', params: { ws: string; id: string }, q: BlobQuery, reply: FastifyReply) => {
      const p: SignedParams = { method, key: `${params.ws}/${params.id}`, exp: Number(q.exp) };
      if (typeof q.kid === 'string' && q.kid) p.kid = q.kid;
      if (method === 'PUT') p.max = Number(q.max);
      else {
        p.fn = q.fn ?? '';
        p.ct = q.ct ?? '';
      }
      let verdict: string;
      // A filename or type with a control character is no link the service made (and is no header value: a 500).
      if (/[\u0000-\u001f\u007f]/.test(`${p.fn ?? ''}${p.ct ?? ''}`)) verdict = 'bad_signature';
      else try {
        store.fileOf(p.key);
        verdict = store.verify(p, q.sig);
      } catch {
        verdict = 'bad_signature';
      }
      if (verdict !== 'ok') {
        reply.code(403).send({ error: verdict === 'expired' ? 'url_expired' : 'invalid_signature', message: verdict === 'expired' ? 'This link has expired' : 'Invalid or tampered link' });
        return undefined;
      }
      // Signed, so kid is the id the service wrote (a uuid) and params.ws the link's workspace.
      if (p.kid && !(await keyLive(p.kid, params.ws))) {
        reply.code(403).send({ error: 'link_revoked', message: 'The API key that asked for this link was revoked or has expired (or its agent archived): ask for a new link with a live key' });
        return undefined;
      }
      return p;
    };

    scope.put<{ Params: { ws: string; id: string }; Querystring: BlobQuery }>('/blobs/:ws/:id', async (req, reply) => {
      const p = await check('PUT', req.params, req.query, reply);
      if (!p) return reply;
      const max = p.max!;
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > max) {
        req.raw.resume();
        return reply.code(413).send({ error: 'too_large', message: `At most ${max} bytes may be uploaded to this URL` });
      }
      const spent = () => {
        req.raw.resume();
        return reply.code(409).send({ error: 'upload_closed', message: 'The upload of this link was finalized, deleted or has expired: start a new one with attachments.initUpload' });
      };
      if (!(await uploadOpen(p.key))) return spent();
      let seen = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          seen += chunk.length;
          if (seen > max) return cb(new TooLarge());
          cb(null, chunk);
        },
      });
      try {
        // Asked again once the bytes are in: a finalize during a slow PUT must not see its bytes swapped after it.
        if (!(await store.writeFrom(p.key, [(req.body as Readable | undefined) ?? req.raw, limit], () => uploadOpen(p.key)))) return spent();
      } catch (err) {
        if (err instanceof TooLarge) return reply.code(413).send({ error: 'too_large', message: `At most ${max} bytes may be uploaded to this URL` });
        throw err;
      }
      return reply.code(200).header('etag', `"${p.key.split('/')[1]}"`).send();
    });

    scope.get<{ Params: { ws: string; id: string }; Querystring: BlobQuery }>('/blobs/:ws/:id', async (req, reply) => {
      const p = await check('GET', req.params, req.query, reply);
      if (!p) return reply;
      const file = store.fileOf(p.key);
      let size: number;
      try {
        size = (await fs.promises.stat(file)).size;
      } catch {
        return reply.code(404).send({ error: 'not_found', message: 'No such object' });
      }
      return reply
        .header('content-type', p.ct || 'application/octet-stream')
        .header('content-length', String(size))
        .header('content-disposition', contentDisposition(p.fn || path.basename(file)))
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        // Uploaded HTML must never run as this origin (the board and GraphiQL live here).
        .header('content-security-policy', "sandbox; default-src 'none'")
        .send(fs.createReadStream(file));
    });
  });
}
