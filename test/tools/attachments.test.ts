/**
 * attachments.* on both blob stores: the embedded one (files under a data directory, signed URLs served by
 * the service) and S3 (a real s3rver started here). Uploads go through `curl -T`, as a user would.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey, createWorkspace, ok, rest, rpc, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';
import { fetchPageTitle, OutboundTimeout } from '../../src/outbound/http.ts';
import { startPages, startS3 } from '../support/outside.ts';

const run = promisify(execFile);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-attach-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function fileOf(name: string, bytes: Buffer): string {
  const p = path.join(tmp, name);
  fs.writeFileSync(p, bytes);
  return p;
}
/** `curl -T file url`: the upload a user would do with the URL from initUpload. */
async function curlPut(file: string, url: string): Promise<number> {
  const { stdout } = await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-T', file, url]);
  return Number(stdout);
}
async function curlGet(url: string): Promise<Buffer> {
  const out = path.join(tmp, `dl-${crypto.randomBytes(4).toString('hex')}`);
  await run('curl', ['-sS', '-f', '-o', out, url]);
  return fs.readFileSync(out);
}
function expect400(r: { status: number; body: any }, field: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.error).toBe('invalid_input');
  expect(Object.keys(r.body.issues)).toContain(field);
}

/** initUpload → curl -T → finalize → bytes back from getDownloadUrl and getInline. */
async function roundTrip(t: TestApp, ws: Workspace, issueId: string, bytes: Buffer, filename = 'shot.png', mimeType = 'image/png') {
  const up = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: issueId, filename, mimeType, sizeBytes: bytes.length });
  expect(up).toMatchObject({ method: 'PUT', key: expect.stringMatching(new RegExp(`^${ws.id}/`)), sizeBytes: bytes.length });
  expect(await curlPut(fileOf(`${crypto.randomBytes(3).toString('hex')}-${filename}`, bytes), up.uploadUrl)).toBe(200);
  const att = await ok(t, ws.token, 'attachments.finalize', { key: up.key });
  expect(att).toMatchObject({ kind: 'FILE', targetType: 'issue', targetId: issueId, filename, mimeType, size: bytes.length, sizeBytes: bytes.length });
  const dl = await ok(t, ws.token, 'attachments.getDownloadUrl', { id: att.id });
  expect(dl).toMatchObject({ id: att.id, kind: 'FILE', method: 'GET', filename, sizeBytes: bytes.length });
  expect((await curlGet(dl.url)).equals(bytes)).toBe(true);
  const inline = await ok(t, ws.token, 'attachments.getInline', { id: att.id });
  expect(inline).toMatchObject({ id: att.id, mimeType, sizeBytes: bytes.length, filename });
  expect(Buffer.from(inline.base64, 'base64').equals(bytes)).toBe(true);
  return { up, att, dl };
}

describe('attachments on the embedded store', () => {
  let t: TestApp;
  let ws: Workspace;
  let other: Workspace;
  let pages: Awaited<ReturnType<typeof startPages>>;
  beforeAll(async () => {
    t = await startTestApp({ worker: {} });
    await t.listen();
    ws = await createWorkspace(t);
    other = await createWorkspace(t);
    pages = await startPages({
      // A line break and a direction override (U+202E) in a page's title: the link title is one line without it.
      '/titled': { body: '<html><head><title>  The &amp; Page\n \u202eTitle </title></head><body>x</body></html>' },
      '/moved': { status: 302, headers: { location: '/titled' } },
      '/untitled': { body: '<html><body>no title</body></html>' },
      // Named references beyond the five of XML, as browsers show them.
      '/entities': { body: '<title>What&rsquo;s new &mdash; Caf&eacute;&nbsp;&middot; v2 &hellip; &#x1F600; &bogus;</title>' },
      '/late-title': { body: `<html><head>${' '.repeat(70 * 1024)}<title>too far</title></head></html>` },
      '/hang': { hang: true },
      // "Café" in single-byte charsets (é is 0xE9), named by the header or, without a charset there, by a <meta>.
      '/latin1': { headers: { 'content-type': 'text/html; charset=iso-8859-1' }, body: Buffer.from('<html><head><title>Caf\xe9</title></head></html>', 'latin1') },
      '/cp1252': { headers: { 'content-type': 'text/html; charset="windows-1252"' }, body: Buffer.from('<html><head><title>Caf\xe9</title></head></html>', 'latin1') },
      '/meta-latin1': { headers: { 'content-type': 'text/html' }, body: Buffer.from('<html><head><meta charset="ISO-8859-1"><title>Caf\xe9</title></head></html>', 'latin1') },
      '/meta-cp1252': { headers: { 'content-type': 'text/html' }, body: Buffer.from('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><title>Caf\xe9</title></head></html>', 'latin1') },
      // A charset TextDecoder does not know: read as UTF-8.
      '/bogus-charset': { headers: { 'content-type': 'text/html; charset=x-no-such' }, body: '<html><head><title>Café</title></head></html>' },
      // Windows-1252's own characters at 0x80-0x9F (en dash, curly quotes): Node 20 decoded them as control characters.
      '/cp1252-high': { headers: { 'content-type': 'text/html; charset=iso-8859-1' }, body: Buffer.from([...Buffer.from('<title>Caf\xe9 ', 'latin1'), 0x96, 0x20, 0x93, 0x4f, 0x4b, 0x94, ...Buffer.from('</title>')]) },
      // A byte-order mark wins over the header; a <meta> naming UTF-16 means UTF-8 (HTML).
      '/bom': { headers: { 'content-type': 'text/html; charset=iso-8859-1' }, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<title>Café</title>')]) },
      '/meta-utf16': { headers: { 'content-type': 'text/html' }, body: '<html><head><meta charset="utf-16"><title>Café</title></head></html>' },
    });
  });
  afterAll(async () => {
    await pages?.close();
    await t?.close();
  });

  it('a file PUT with curl -T and finalized comes back byte for byte (download URL and inline); issues.get shows it; ISSUE_UPDATED', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'with a screenshot' });
    const bytes = crypto.randomBytes(70_000);
    const { att, dl } = await roundTrip(t, ws, issue.id, bytes);
    expect(dl.url.startsWith(`${(t.blobs as any).base}/blobs/`)).toBe(true);
    const got = await ok(t, ws.token, 'issues.get', { id: issue.key, include: { attachments: true } });
    expect(got.attachments).toEqual([expect.objectContaining({ id: att.id, kind: 'FILE', sizeBytes: bytes.length })]);
    const ev = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id, limit: 1 })).items[0];
    expect(ev).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['attachments'], attachmentId: att.id, attachmentChange: 'added' } });
    expect(await ok(t, ws.token, 'attachments.list', { targetType: 'issue', targetId: issue.key })).toEqual([expect.objectContaining({ id: att.id })]);
  });

  it('signed URLs: a tampered or expired link is 403, an upload larger than declared is 413, and finalize checks existence and size', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'uploads' });
    const up = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 10 });
    const missing = await rest(t, ws.token, 'attachments.finalize', { key: up.key });
    expect(missing.status).toBe(409);
    expect(missing.body.error).toBe('upload_missing');
    expect(await curlPut(fileOf('big.txt', Buffer.alloc(11, 'x')), up.uploadUrl)).toBe(413);
    expect(await curlPut(fileOf('a.txt', Buffer.from('0123456789')), up.uploadUrl.replace('max=10', 'max=99'))).toBe(403);
    const expired = new URL(up.uploadUrl);
    expired.searchParams.set('exp', '1000');
    expect(await curlPut(fileOf('a.txt', Buffer.from('0123456789')), expired.toString())).toBe(403);
    expect(await curlPut(fileOf('short.txt', Buffer.from('0123')), up.uploadUrl)).toBe(200);
    const mismatch = await rest(t, ws.token, 'attachments.finalize', { key: up.key });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.error).toBe('size_mismatch');
    expect(await curlPut(fileOf('a.txt', Buffer.from('0123456789')), up.uploadUrl)).toBe(200);
    const att = await ok(t, ws.token, 'attachments.finalize', { key: up.key });
    expect(att.sizeBytes).toBe(10);
    expect((await rest(t, ws.token, 'attachments.finalize', { key: up.key })).status).toBe(404);
    // Finalized: the link takes no more bytes (they would replace a file others may have read), nor once deleted.
    expect(await curlPut(fileOf('swap.txt', Buffer.from('BBBBBBBBBB')), up.uploadUrl)).toBe(409);
    expect((await t.blobs.read(up.key, 100))?.toString()).toBe('0123456789');
    await ok(t, ws.token, 'attachments.delete', { id: att.id });
    expect(await curlPut(fileOf('back.txt', Buffer.from('CCC')), up.uploadUrl)).toBe(409);
    expect(await t.blobs.size(up.key)).toBeNull();
  });

  it('a link ends with the key that asked for it: revoked, a download and an upload link are 403 link_revoked; never past the key\'s expiry', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'links of a key about to go' });
    const { att } = await roundTrip(t, ws, issue.id, Buffer.from('kept bytes'), 'kept.txt', 'text/plain');
    const leaving = await createKey(t, ws);
    const dl = await ok(t, leaving.token, 'attachments.getDownloadUrl', { id: att.id, expiresInSeconds: 604_800 });
    const up = await ok(t, leaving.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'b.txt', mimeType: 'text/plain', sizeBytes: 3 });
    const staying = await ok(t, ws.token, 'attachments.getDownloadUrl', { id: att.id });
    expect((await curlGet(dl.url)).toString()).toBe('kept bytes');
    await t.pools.owner.query('select app_private.revoke_api_key($1)', [leaving.id]);
    const refused = await fetch(dl.url);
    expect([refused.status, (await refused.json()).error]).toEqual([403, 'link_revoked']);
    expect(await curlPut(fileOf('b.txt', Buffer.from('abc')), up.uploadUrl)).toBe(403);
    // Dropping kid from the link breaks its signature, and so does moving it into another field (a re-probe shifted
    // kid into ct and ct into fn, as the fields were once joined by newlines); another key's link works on.
    const unkeyed = new URL(dl.url);
    unkeyed.searchParams.delete('kid');
    expect((await fetch(unkeyed)).status).toBe(403);
    const shifted = new URL(dl.url);
    const [fn, ct, kid] = ['fn', 'ct', 'kid'].map((k) => shifted.searchParams.get(k) ?? '');
    shifted.searchParams.delete('kid');
    shifted.searchParams.set('fn', `${fn}\n${ct}`);
    shifted.searchParams.set('ct', kid!);
    const forged = await fetch(shifted);
    expect([forged.status, (await forged.json()).error]).toEqual([403, 'invalid_signature']);
    const badHeader = new URL(dl.url);
    badHeader.searchParams.set('ct', `${ct}\n${kid}`);
    expect((await fetch(badHeader)).status).toBe(403);
    expect((await curlGet(staying.url)).toString()).toBe('kept bytes');
    // A key that expires in two minutes gets links that expire with it, whatever was asked.
    const brief = (await admin(t, 'create-key', { workspace: ws.key, user: ws.ownerEmail, scopes: 'FULL', 'expires-in-seconds': '120', json: true })).apiKey;
    const short = await ok(t, brief.rawKey, 'attachments.getDownloadUrl', { id: att.id, expiresInSeconds: 604_800 });
    expect(Date.parse(short.expiresAt)).toBeLessThanOrEqual(Date.parse(brief.expiresAt));
    const shortUp = await ok(t, brief.rawKey, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'c.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect(Date.parse(shortUp.expiresAt)).toBeLessThanOrEqual(Date.parse(brief.expiresAt));
  });

  it('bad input is 400 naming the field; the 25 MB limit and the workspace quota are checked at initUpload', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'limits' });
    const base = { targetType: 'issue', targetId: issue.id, filename: 'f.bin', mimeType: 'application/octet-stream', sizeBytes: 5 };
    expect400(await rest(t, ws.token, 'attachments.initUpload', { ...base, filename: '../etc/passwd' }), 'filename');
    expect400(await rest(t, ws.token, 'attachments.initUpload', { ...base, filename: 'a\u0000b' }), 'filename');
    // A direction override makes "\u202Egnp.exe" read "exe.png".
    expect400(await rest(t, ws.token, 'attachments.initUpload', { ...base, filename: '\u202Egnp.exe' }), 'filename');
    expect400(await rest(t, ws.token, 'attachments.initUpload', { ...base, filename: 'a\u0085b' }), 'filename');
    expect400(await rest(t, ws.token, 'attachments.initUpload', { ...base, mimeType: 'nonsense' }), 'mimeType');
    expect400(await rest(t, ws.token, 'attachments.initUpload', { ...base, sizeBytes: 25 * 1024 * 1024 + 1 }), 'sizeBytes');
    expect400(await rest(t, ws.token, 'attachments.initUpload', { ...base, targetType: 'project' }), 'targetType');
    expect400(await rest(t, ws.token, 'attachments.finalize', { key: 'x/../../etc' }), 'key');
    expect400(await rest(t, ws.token, 'attachments.getInline', { id: crypto.randomUUID(), maxBytes: 26 * 1024 * 1024 }), 'maxBytes');
    expect400(await rest(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'ftp://x.example/y' }), 'externalUrl');
    expect400(await rest(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'javascript:alert(1)' }), 'externalUrl');
    // Not a URL (a space in the host), or one carrying a password that every reader would see.
    expect400(await rest(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'https://exa mple.com' }), 'externalUrl');
    expect400(await rest(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'https://user:pass@example.com/' }), 'externalUrl');
    // Nor one a browser opens elsewhere than it reads: `\` is a slash to it, so this opens evil.example, and its
    // title fell back to github.com.
    expect400(await rest(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'https://evil.example\\@github.com/login' }), 'externalUrl');
    expect((await t.pools.owner.query("select app_hidden.url_hostname($1) as h", ['https://evil.example\\@github.com/login'])).rows[0].h).toBe('evil.example');
    // The scheme in any case is a URL (stored in lower case), and a MIME type may carry parameters.
    const upper = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'HTTPS://EXAMPLE.COM/A', linkTitle: 'A' });
    expect(upper.externalUrl).toBe('https://EXAMPLE.COM/A');
    expect((await ok(t, ws.token, 'attachments.initUpload', { ...base, mimeType: 'text/plain; charset=utf-8' })).mimeType).toBe('text/plain; charset=utf-8');
    expect400(await rest(t, ws.token, 'attachments.initUpload', { ...base, mimeType: 'text/plain; charset=utf-8\r\nX-Evil: 1' }), 'mimeType');

    const quotaWs = await createWorkspace(t);
    await t.pools.owner.query('update app_public.workspaces set attachment_quota_mb = 1 where id = $1', [quotaWs.id]);
    const qi = await ok(t, quotaWs.token, 'issues.create', { title: 'q' });
    await ok(t, quotaWs.token, 'attachments.initUpload', { ...base, targetId: qi.id, sizeBytes: 700_000 });
    const over = await rest(t, quotaWs.token, 'attachments.initUpload', { ...base, targetId: qi.id, sizeBytes: 400_000 });
    expect(over.status).toBe(422);
    expect(over.body.error).toBe('quota_exceeded');
    // Parallel uploads do not pass the quota together: of ten 204,800-byte uploads into 1 MB, five fit (an outside
    // probe got eight, each call reading the usage before any other had inserted).
    const parallelWs = await createWorkspace(t);
    await t.pools.owner.query('update app_public.workspaces set attachment_quota_mb = 1 where id = $1', [parallelWs.id]);
    const pi = await ok(t, parallelWs.token, 'issues.create', { title: 'parallel' });
    const tries = await Promise.all(Array.from({ length: 10 }, () =>
      rest(t, parallelWs.token, 'attachments.initUpload', { ...base, targetId: pi.id, sizeBytes: 204_800 })));
    expect(tries.filter((r) => r.status === 200)).toHaveLength(5);
    expect(tries.filter((r) => r.status === 422)).toHaveLength(5);
  });

  it('getInline: types outside the allowlist are 403 with a pointer to getDownloadUrl; files above maxBytes are 400', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'inline' });
    const up = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'a.zip', mimeType: 'application/zip', sizeBytes: 7 });
    expect(await curlPut(fileOf('a.zip', Buffer.from('PK12345')), up.uploadUrl)).toBe(200);
    const zip = await ok(t, ws.token, 'attachments.finalize', { key: up.key });
    const refused = await rest(t, ws.token, 'attachments.getInline', { id: zip.id });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('mime_not_inline');
    expect(refused.body.message).toContain('getDownloadUrl');
    expect((await curlGet((await ok(t, ws.token, 'attachments.getDownloadUrl', { id: zip.id })).url)).toString()).toBe('PK12345');

    const md = Buffer.from('# hello\n'.repeat(100));
    const { att: note } = await roundTrip(t, ws, issue.id, md, 'notes.md', 'text/markdown');
    const tooBig = await rest(t, ws.token, 'attachments.getInline', { id: note.id, maxBytes: 100 });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body).toMatchObject({ error: 'too_large', issues: { maxBytes: expect.stringContaining('getDownloadUrl') } });
    expect(tooBig.body.message).toContain('getDownloadUrl');

    // Its bytes gone from the store (a data directory restored without its blobs): 404 saying so, not a 500.
    await t.blobs.delete((await t.pools.owner.query('select storage_key from app_public.attachments where id = $1', [note.id])).rows[0].storage_key);
    const missing = await rest(t, ws.token, 'attachments.getInline', { id: note.id });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'not_found', field: 'id', message: expect.stringContaining('missing from the blob store') });
  });

  it('delete removes the row and the blob; an upload never finalized is removed by its expiry job', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'delete me' });
    const { up, att } = await roundTrip(t, ws, issue.id, Buffer.from('hello world'), 'h.txt', 'text/plain');
    expect(await t.blobs.size(up.key)).toBe(11);
    const del = await ok(t, ws.token, 'attachments.delete', { id: att.id });
    expect(del).toMatchObject({ id: att.id, deleted: true });
    expect(await t.blobs.size(up.key)).toBeNull();
    expect(await ok(t, ws.token, 'attachments.list', { targetType: 'issue', targetId: issue.id })).toEqual([]);
    expect((await rest(t, ws.token, 'attachments.getDownloadUrl', { id: att.id })).status).toBe(404);
    const ev = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id, limit: 1 })).items[0];
    expect(ev.payload).toMatchObject({ attachmentId: att.id, attachmentChange: 'removed' });

    const orphan = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'o.txt', mimeType: 'text/plain', sizeBytes: 3 });
    expect(await curlPut(fileOf('o.txt', Buffer.from('abc')), orphan.uploadUrl)).toBe(200);
    const { rows: jobs } = await t.pools.owner.query(
      `select j.run_at from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
       where k.identifier = 'svc_attachment_upload_expire' and j.payload->>'uploadId' = $1`, [orphan.uploadId]);
    expect(Math.abs(new Date(jobs[0].run_at).getTime() - (new Date(orphan.expiresAt).getTime() + 60_000))).toBeLessThan(1000);
    // Time passes: the upload expires, and its job comes due.
    await t.pools.owner.query("update app_public.attachment_uploads set expires_at = now() - interval '1 second' where id = $1", [orphan.uploadId]);
    await t.pools.owner.query("update graphile_worker._private_jobs set run_at = now() where task_id = (select id from graphile_worker._private_tasks where identifier = 'svc_attachment_upload_expire') and payload->>'uploadId' = $1", [orphan.uploadId]);
    await expect.poll(() => t.blobs.size(orphan.key), { timeout: 10_000 }).toBeNull();
    const { rowCount } = await t.pools.owner.query('select 1 from app_public.attachment_uploads where id = $1', [orphan.uploadId]);
    expect(rowCount).toBe(0);
    expect((await rest(t, ws.token, 'attachments.finalize', { key: orphan.key })).status).toBe(404);
  });

  it('attachLink: with a title as given; without, the hostname until the job fetched the page title (redirects followed), else the hostname stays', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'links' });
    const given = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'https://example.com/spec', linkTitle: 'The spec' });
    expect(given).toMatchObject({ kind: 'LINK', mimeType: 'text/url', size: 0, sizeBytes: 0, linkTitle: 'The spec', externalUrl: 'https://example.com/spec' });
    const scraped = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: `${pages.url}/moved` });
    expect(scraped.linkTitle).toBe('127.0.0.1');
    const bare = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: `${pages.url}/untitled` });
    await expect.poll(async () => (await ok(t, ws.token, 'attachments.list', { targetType: 'issue', targetId: issue.id, kind: 'LINK' }))
      .find((a: any) => a.id === scraped.id).linkTitle, { timeout: 10_000 }).toBe('The & Page Title');
    await expect.poll(async () => (await t.pools.owner.query("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'svc_attachment_link_title'")).rows[0].n, { timeout: 10_000 }).toBe(0);
    const links = await ok(t, ws.token, 'attachments.list', { targetType: 'issue', targetId: issue.id });
    expect(links.find((a: any) => a.id === bare.id).linkTitle).toBe('127.0.0.1');
    // The fetched title names the attachment too, as a given linkTitle does (the hostname stood in for both).
    expect(links.find((a: any) => a.id === scraped.id).filename).toBe('The & Page Title');
    expect(links.find((a: any) => a.id === given.id).filename).toBe('The spec');
    expect(links.find((a: any) => a.id === bare.id).filename).toBe('127.0.0.1');
    const dl = await ok(t, ws.token, 'attachments.getDownloadUrl', { id: given.id });
    expect(dl).toMatchObject({ kind: 'LINK', url: 'https://example.com/spec', expiresAt: null });
  });

  it('attachLink: the fetched title is decoded in the page\'s charset, from the Content-Type header or else a <meta>', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'charsets' });
    const paths = ['/latin1', '/cp1252', '/meta-latin1', '/meta-cp1252', '/bogus-charset', '/cp1252-high', '/bom', '/meta-utf16'];
    const ids: string[] = [];
    for (const p of paths) ids.push((await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: `${pages.url}${p}` })).id);
    await expect.poll(async () => {
      const links = await ok(t, ws.token, 'attachments.list', { targetType: 'issue', targetId: issue.id, kind: 'LINK' });
      return ids.map((id) => links.find((a: any) => a.id === id).linkTitle);
    }, { timeout: 10_000 }).toEqual(paths.map((p) => (p === '/cp1252-high' ? 'Café – \u201cOK\u201d' : 'Café')));
  });

  it('a workspace whose link fetch timed out fetches no titles for a while, at any address; another workspace\'s go on', async () => {
    const slowApp = await startTestApp({ worker: { linkTitleTimeoutMs: 300 } }); // a database of its own: one worker takes its jobs
    try {
      const w = await createWorkspace(slowApp);
      const other = await createWorkspace(slowApp);
      const issue = await ok(slowApp, w.token, 'issues.create', { title: 'hanging links' });
      const theirs = await ok(slowApp, other.token, 'issues.create', { title: 'fine links' });
      const jobsLeft = async () => (await slowApp.pools.owner.query("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'svc_attachment_link_title'")).rows[0].n;
      await ok(slowApp, w.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: `${pages.url}/hang` });
      await expect.poll(jobsLeft, { timeout: 10_000 }).toBe(0);
      // Another address of the same workspace: not fetched (the hostname stays), though the page has a title.
      const skipped = await ok(slowApp, w.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: `${pages.url.replace('127.0.0.1', 'localhost')}/moved` });
      const fetched = await ok(slowApp, other.token, 'attachments.attachLink', { targetType: 'issue', targetId: theirs.id, externalUrl: `${pages.url}/moved` });
      await expect.poll(async () => (await ok(slowApp, other.token, 'attachments.list', { targetType: 'issue', targetId: theirs.id })).find((a: any) => a.id === fetched.id).linkTitle, { timeout: 10_000 }).toBe('The & Page Title');
      await expect.poll(jobsLeft, { timeout: 10_000 }).toBe(0);
      expect((await ok(slowApp, w.token, 'attachments.list', { targetType: 'issue', targetId: issue.id })).find((a: any) => a.id === skipped.id).linkTitle).toBe('localhost');
    } finally {
      await slowApp.close();
    }
  });

  it('title fetching: the egress guard refuses private addresses, at most 64 KB are read, a slow page times out', async () => {
    await expect(fetchPageTitle(`${pages.url}/titled`, { allowPrivate: false })).rejects.toThrow(/egress denied/);
    await expect(fetchPageTitle(`http://localhost:${new URL(pages.url).port}/moved`, { allowPrivate: false })).rejects.toThrow(/egress denied/);
    expect(await fetchPageTitle(`${pages.url}/moved`, { allowPrivate: true })).toBe('The & Page Title');
    expect(await fetchPageTitle(`${pages.url}/late-title`, { allowPrivate: true })).toBeNull();
    expect(await fetchPageTitle(`${pages.url}/entities`, { allowPrivate: true })).toBe('What\u2019s new \u2014 Caf\u00e9 \u00b7 v2 \u2026 \u{1F600} &bogus;');
    await expect(fetchPageTitle(`${pages.url}/hang`, { allowPrivate: true, timeoutMs: 300 })).rejects.toThrow(OutboundTimeout);
  });

  it('files of several MB stream through the embedded store (no request body limit applies)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'big file' });
    const bytes = crypto.randomBytes(5 * 1024 * 1024 + 3);
    const up = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'big.pdf', mimeType: 'application/pdf', sizeBytes: bytes.length });
    expect(await curlPut(fileOf('big.pdf', bytes), up.uploadUrl)).toBe(200);
    const att = await ok(t, ws.token, 'attachments.finalize', { key: up.key });
    expect((await curlGet((await ok(t, ws.token, 'attachments.getDownloadUrl', { id: att.id })).url)).equals(bytes)).toBe(true);
    const inline = await ok(t, ws.token, 'attachments.getInline', { id: att.id, maxBytes: 6_000_000 });
    expect(Buffer.from(inline.base64, 'base64').equals(bytes)).toBe(true);
  });

  it('scopes: reads need READ_ISSUES, writes WRITE_ISSUES (403 scope_required)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'scopes' });
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    const writerOnly = await createKey(t, ws, { scopes: ['WRITE_ISSUES'] });
    for (const [token, tool, input, scope] of [
      [reader.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'a', mimeType: 'text/plain', sizeBytes: 1 }, 'WRITE_ISSUES'],
      [reader.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'https://x.example' }, 'WRITE_ISSUES'],
      [reader.token, 'attachments.finalize', { key: `${ws.id}/${crypto.randomUUID()}` }, 'WRITE_ISSUES'],
      [reader.token, 'attachments.delete', { id: crypto.randomUUID() }, 'WRITE_ISSUES'],
      [writerOnly.token, 'attachments.list', { targetType: 'issue', targetId: issue.id }, 'READ_ISSUES'],
      [writerOnly.token, 'attachments.getDownloadUrl', { id: crypto.randomUUID() }, 'READ_ISSUES'],
      [writerOnly.token, 'attachments.getInline', { id: crypto.randomUUID() }, 'READ_ISSUES'],
    ] as const) {
      const r = await rest(t, token, tool, input);
      expect(r.status, tool).toBe(403);
      expect(r.body).toMatchObject({ error: 'scope_required', scope });
    }
  });

  it('another workspace sees nothing: 404 for targets, attachments and uploads', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'private' });
    const { up, att } = await roundTrip(t, ws, issue.id, Buffer.from('secret'), 's.txt', 'text/plain');
    expect((await rest(t, other.token, 'attachments.list', { targetType: 'issue', targetId: issue.id })).status).toBe(404);
    expect((await rest(t, other.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'x', mimeType: 'text/plain', sizeBytes: 1 })).status).toBe(404);
    expect((await rest(t, other.token, 'attachments.attachLink', { targetType: 'issue', targetId: issue.id, externalUrl: 'https://x.example' })).status).toBe(404);
    for (const tool of ['attachments.getDownloadUrl', 'attachments.getInline', 'attachments.delete']) {
      expect((await rest(t, other.token, tool, { id: att.id })).status, tool).toBe(404);
    }
    const second = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'y', mimeType: 'text/plain', sizeBytes: 1 });
    expect((await rest(t, other.token, 'attachments.finalize', { key: second.key })).status).toBe(404);
    expect(await t.blobs.size(up.key)).toBe(6);
  });

  it("a deleted comment's files go with it: out of the quota, the row with its event, the blob by a job (they stayed on disk for good)", async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'comment files' });
    const comment = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'with a file' });
    const used = async () => Number((await t.pools.owner.query(
      `select app_hidden.attachment_bytes_used() as b from (select set_config('svc.workspace_id', $1, true)) as ws`, [ws.id])).rows[0].b);
    const before = await used();
    const up = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'comment', targetId: comment.id, filename: 'c.txt', mimeType: 'text/plain', sizeBytes: 5 });
    expect(await curlPut(fileOf('c.txt', Buffer.from('ccccc')), up.uploadUrl)).toBe(200);
    await ok(t, ws.token, 'attachments.finalize', { key: up.key });
    expect(await used()).toBe(before + 5);
    const att = (await ok(t, ws.token, 'attachments.list', { targetType: 'comment', targetId: comment.id }))[0];
    expect(await t.blobs.size(up.key)).toBe(5);
    await ok(t, ws.token, 'comments.delete', { id: comment.id });
    expect(await used()).toBe(before);
    expect((await t.pools.owner.query('select count(*)::int as n from app_public.attachments where id = $1', [att.id])).rows[0].n).toBe(0);
    const removed = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id, kinds: ['ISSUE_UPDATED'], limit: 5 })).items;
    expect(removed.some((e: { payload: { attachmentId?: string; attachmentChange?: string } }) => e.payload.attachmentId === att.id && e.payload.attachmentChange === 'removed')).toBe(true);
    await expect.poll(() => t.blobs.size(up.key), { timeout: 10_000 }).toBeNull();
  });

  it('attachments of a deleted issue (direct, or through its comments) and of a deleted comment are 404 in every tool', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'to be deleted' });
    const { up, att } = await roundTrip(t, ws, issue.id, Buffer.from('gone soon'), 'g.txt', 'text/plain');
    const comment = await ok(t, ws.token, 'comments.create', { issueId: issue.id, body: 'with a link' });
    const onComment = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'comment', targetId: comment.id, externalUrl: 'https://e.example', linkTitle: 'e' });
    const live = await ok(t, ws.token, 'issues.create', { title: 'stays' });
    const liveComment = await ok(t, ws.token, 'comments.create', { issueId: live.id, body: 'to delete' });
    const onDeletedComment = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'comment', targetId: liveComment.id, externalUrl: 'https://f.example', linkTitle: 'f' });
    const onLive = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: live.id, externalUrl: 'https://g.example', linkTitle: 'g' });
    for (const a of [att, onComment, onDeletedComment]) expect((await rest(t, ws.token, 'attachments.get', { id: a.id })).status).toBe(200);

    await ok(t, ws.token, 'issues.delete', { id: issue.id });
    await ok(t, ws.token, 'comments.delete', { id: liveComment.id });
    for (const a of [att, onComment, onDeletedComment]) {
      for (const tool of ['attachments.get', 'attachments.getInline', 'attachments.getDownloadUrl', 'attachments.delete']) {
        const r = await rest(t, ws.token, tool, { id: a.id });
        expect([r.status, r.body.message], `${tool} ${a.id}`).toEqual([404, 'Attachment not found']);
      }
    }
    expect((await rest(t, ws.token, 'attachments.list', { targetType: 'issue', targetId: issue.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'attachments.list', { targetType: 'comment', targetId: comment.id })).status).toBe(404);
    expect((await rest(t, ws.token, 'attachments.list', { targetType: 'comment', targetId: liveComment.id })).status).toBe(404);
    // The refused delete left the blob alone; attachments of the live issue still answer.
    expect(await t.blobs.size(up.key)).toBe(9);
    expect(await ok(t, ws.token, 'attachments.get', { id: onLive.id })).toMatchObject({ id: onLive.id });
    expect(await ok(t, ws.token, 'attachments.getDownloadUrl', { id: onLive.id })).toMatchObject({ url: 'https://g.example' });
    expect(await ok(t, ws.token, 'attachments.list', { targetType: 'issue', targetId: live.id })).toEqual([expect.objectContaining({ id: onLive.id })]);
  });

  it('narrowed keys: attachments follow their issue (also through comments) and initiative narrowing', async () => {
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [ws.id, 'Attach P']);
    const projectId = rows[0].id;
    const inside = await ok(t, ws.token, 'issues.create', { title: 'inside', projectId });
    const outside = await ok(t, ws.token, 'issues.create', { title: 'outside' });
    const comment = await ok(t, ws.token, 'comments.create', { issueId: outside.id, body: 'has a file' });
    const hiddenLink = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'comment', targetId: comment.id, externalUrl: 'https://a.example', linkTitle: 'a' });
    const outsideLink = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'issue', targetId: outside.id, externalUrl: 'https://b.example', linkTitle: 'b' });
    const key = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [projectId] });
    expect((await rest(t, key.token, 'attachments.list', { targetType: 'issue', targetId: outside.id })).status).toBe(404);
    expect((await rest(t, key.token, 'attachments.list', { targetType: 'comment', targetId: comment.id })).status).toBe(404);
    for (const a of [hiddenLink, outsideLink]) {
      expect((await rest(t, key.token, 'attachments.getDownloadUrl', { id: a.id })).status).toBe(404);
      expect((await rest(t, key.token, 'attachments.delete', { id: a.id })).status).toBe(404);
    }
    const { att } = await roundTrip(t, { ...ws, token: key.token }, inside.id, Buffer.from('%PDF-1.4 inside'), 'in.pdf', 'application/pdf');
    expect(await ok(t, key.token, 'attachments.list', { targetType: 'issue', targetId: inside.id })).toEqual([expect.objectContaining({ id: att.id })]);
    // Another person's upload to an issue it may not see: not found as an upload (it said "Issue not found" on
    // targetId, a field finalize does not have, telling the upload was there).
    const theirs = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: outside.id, filename: 'o.txt', mimeType: 'text/plain', sizeBytes: 1 });
    expect(await curlPut(fileOf('o.txt', Buffer.from('o')), theirs.uploadUrl)).toBe(200);
    const refused = await rest(t, key.token, 'attachments.finalize', { key: theirs.key });
    expect([refused.status, refused.body.field, refused.body.message]).toEqual([404, 'key', 'Upload not found (already finalized, expired, or never started)']);
    expect(await ok(t, ws.token, 'attachments.finalize', { key: theirs.key })).toMatchObject({ filename: 'o.txt' });

    const i1 = await ok(t, ws.token, 'initiatives.create', { name: 'Visible initiative' });
    const i2 = await ok(t, ws.token, 'initiatives.create', { name: 'Hidden initiative' });
    const onI2 = await ok(t, ws.token, 'attachments.attachLink', { targetType: 'initiative', targetId: i2.id, externalUrl: 'https://c.example', linkTitle: 'c' });
    const ikey = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], initiatives: [i1.id] });
    expect((await rest(t, ikey.token, 'attachments.list', { targetType: 'initiative', targetId: i2.id })).status).toBe(404);
    expect((await rest(t, ikey.token, 'attachments.getDownloadUrl', { id: onI2.id })).status).toBe(404);
    const onI1 = await ok(t, ikey.token, 'attachments.attachLink', { targetType: 'initiative', targetId: i1.id, externalUrl: 'https://d.example', linkTitle: 'd' });
    expect(await ok(t, ikey.token, 'attachments.list', { targetType: 'initiative', targetId: i1.id })).toEqual([expect.objectContaining({ id: onI1.id })]);
    const ev = (await ok(t, ws.token, 'events.recent', { subjectType: 'initiative', subjectId: i1.id, limit: 1 })).items[0];
    expect(ev).toMatchObject({ kind: 'INITIATIVE_UPDATED', payload: { changes: ['attachments'], attachmentId: onI1.id } });
  });

  it('attachments.upload: bytes in the call (MCP), checked as initUpload checks them, nothing left of a refused call', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'an MCP-only agent attaches a log' });
    const bytes = Buffer.concat([Buffer.from('log line\n'), crypto.randomBytes(300_000)]);
    const r = await rpc(t, ws.token, 'tools/call', { name: 'attachments.upload', arguments: { targetType: 'issue', targetId: issue.key, filename: 'run.log', mimeType: 'text/plain', base64: bytes.toString('base64') } });
    expect(r.body.result.isError, JSON.stringify(r.body.result)).toBeFalsy();
    const att = r.body.result.structuredContent;
    expect(att).toMatchObject({ kind: 'FILE', targetType: 'issue', targetId: issue.id, filename: 'run.log', mimeType: 'text/plain', sizeBytes: bytes.length });
    expect(Buffer.from((await ok(t, ws.token, 'attachments.getInline', { id: att.id })).base64, 'base64').equals(bytes)).toBe(true);
    expect((await curlGet((await ok(t, ws.token, 'attachments.getDownloadUrl', { id: att.id })).url)).equals(bytes)).toBe(true);
    const ev = (await ok(t, ws.token, 'events.recent', { subjectType: 'issue', subjectId: issue.id, limit: 1 })).items[0];
    expect(ev).toMatchObject({ kind: 'ISSUE_UPDATED', payload: { changes: ['attachments'], attachmentId: att.id, attachmentChange: 'added' } });

    const openUploads = async () => Number((await t.pools.owner.query(
      'select count(*) from app_public.attachment_uploads where workspace_id = $1', [ws.id])).rows[0].count);
    const before = await openUploads();
    const args = { targetType: 'issue', targetId: issue.id, filename: 'x.bin', mimeType: 'application/octet-stream' };
    for (const base64 of ['not base64!', 'QUJD\nREVG', 'QUJ', '']) expect400(await rest(t, ws.token, 'attachments.upload', { ...args, base64 }), 'base64');
    const tooBig = await rest(t, ws.token, 'attachments.upload', { ...args, base64: Buffer.alloc(1_000_003).toString('base64') });
    expect400(tooBig, 'base64');
    expect(tooBig.body.issues.base64).toMatch(/initUpload/);
    expect400(await rest(t, ws.token, 'attachments.upload', { ...args, filename: '../x', base64: 'QUJD' }), 'filename');
    expect((await rest(t, other.token, 'attachments.upload', { ...args, base64: 'QUJD' })).status).toBe(404);
    const reader = await createKey(t, ws, { scopes: ['READ_ISSUES'] });
    expect((await rest(t, reader.token, 'attachments.upload', { ...args, base64: 'QUJD' })).body).toMatchObject({ error: 'scope_required', scope: 'WRITE_ISSUES' });
    const { rows } = await t.pools.owner.query('insert into app_public.projects (workspace_id, name) values ($1, $2) returning id', [ws.id, 'Upload P']);
    const narrowed = await createKey(t, ws, { scopes: ['READ_ISSUES', 'WRITE_ISSUES'], projects: [rows[0].id] });
    expect((await rest(t, narrowed.token, 'attachments.upload', { ...args, base64: 'QUJD' })).status).toBe(404);
    const inside = await ok(t, ws.token, 'issues.create', { title: 'inside', projectId: rows[0].id });
    expect(await ok(t, narrowed.token, 'attachments.upload', { ...args, targetId: inside.id, base64: 'QUJD' })).toMatchObject({ sizeBytes: 3, targetId: inside.id });
    expect(await openUploads()).toBe(before);
  });

  it('answers over JSON-RPC too', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'rpc' });
    const r = await rpc(t, ws.token, 'tools/call', { name: 'attachments.attachLink', arguments: { targetType: 'issue', targetId: issue.id, externalUrl: 'https://rpc.example/x', linkTitle: 'rpc' } });
    expect(r.body.result.isError).toBeFalsy();
    expect(r.body.result.structuredContent).toMatchObject({ kind: 'LINK', linkTitle: 'rpc' });
    const list = await rpc(t, ws.token, 'tools/call', { name: 'attachments.list', arguments: { targetType: 'issue', targetId: issue.id } });
    expect(list.body.result.structuredContent.items).toHaveLength(1);
    const bad = await rpc(t, ws.token, 'tools/call', { name: 'attachments.getInline', arguments: { id: list.body.result.structuredContent.items[0].id } });
    expect(bad.body.result.isError).toBe(true);

    const call = async (name: string, args: object) => {
      const r = await rpc(t, ws.token, 'tools/call', { name, arguments: args });
      expect(r.body.result.isError, `${name}: ${JSON.stringify(r.body.result)}`).toBeFalsy();
      return r.body.result.structuredContent;
    };
    const bytes = Buffer.from('uploaded over MCP');
    const up = await call('attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'mcp.txt', mimeType: 'text/plain', sizeBytes: bytes.length });
    expect(await curlPut(fileOf('mcp.txt', bytes), up.uploadUrl)).toBe(200);
    const att = await call('attachments.finalize', { key: up.key });
    expect((await curlGet((await call('attachments.getDownloadUrl', { id: att.id })).url)).equals(bytes)).toBe(true);
    expect(Buffer.from((await call('attachments.getInline', { id: att.id })).base64, 'base64').equals(bytes)).toBe(true);
    expect(await call('attachments.delete', { id: att.id })).toMatchObject({ id: att.id, deleted: true });
  });
});

describe('attachments on S3 (s3rver)', () => {
  let s3: Awaited<ReturnType<typeof startS3>>;
  let t: TestApp;
  let ws: Workspace;
  beforeAll(async () => {
    s3 = await startS3();
    t = await startTestApp({ blobs: s3.store, worker: {} });
    ws = await createWorkspace(t);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('a file PUT with curl -T to the presigned URL and finalized comes back byte for byte; delete removes the object', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'on s3' });
    const bytes = crypto.randomBytes(200_000);
    const { up, att, dl } = await roundTrip(t, ws, issue.id, bytes, 'photo.jpg', 'image/jpeg');
    expect(up.uploadUrl.startsWith(`${s3.endpoint}/svc-test/${ws.id}/`)).toBe(true);
    expect(up.uploadUrl).toContain('X-Amz-Signature=');
    expect(dl.url).toContain('X-Amz-Signature=');
    expect(await s3.store.size(up.key)).toBe(bytes.length);
    await ok(t, ws.token, 'attachments.delete', { id: att.id });
    expect(await s3.store.size(up.key)).toBeNull();
  });

  it('attachments.upload stores the bytes in the bucket', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'uploaded in the call, on s3' });
    const bytes = crypto.randomBytes(5_000);
    const att = await ok(t, ws.token, 'attachments.upload', { targetType: 'issue', targetId: issue.id, filename: 'b.png', mimeType: 'image/png', base64: bytes.toString('base64') });
    expect(Buffer.from((await ok(t, ws.token, 'attachments.getInline', { id: att.id })).base64, 'base64').equals(bytes)).toBe(true);
  });

  it('finalize before the upload is 409 upload_missing; a wrong size is 409 size_mismatch', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'on s3 2' });
    const up = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename: 'x.txt', mimeType: 'text/plain', sizeBytes: 4 });
    expect((await rest(t, ws.token, 'attachments.finalize', { key: up.key })).body.error).toBe('upload_missing');
    expect(await curlPut(fileOf('x5.txt', Buffer.from('12345')), up.uploadUrl)).toBe(200);
    expect((await rest(t, ws.token, 'attachments.finalize', { key: up.key })).body.error).toBe('size_mismatch');
  });
});
