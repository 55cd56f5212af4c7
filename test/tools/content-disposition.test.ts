/**
 * The Content-Disposition of a download (src/blobs/store.ts, both stores): `filename*` is an RFC 8187 ext-value, every
 * byte outside attr-char percent-encoded (an outside tester's `O'Brien (copy) *1*.txt` went out with ' ( ) * as they
 * are, from encodeURIComponent, and wget --content-disposition saved it as "Brien (copy) *1*.txt"); the plain
 * `filename=` is a quoted-string of printable ASCII without `"`, `\` or a %XX a client might decode.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asciiFilename, contentDisposition, extValue } from '../../src/blobs/store.ts';
import { createWorkspace, ok, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

const run = promisify(execFile);
const TESTER = "O'Brien (copy) *1*.txt";
const NAMES = [
  TESTER, 'plain.txt', '"quoted".txt', 'back\\slash.txt', '100%25 done.txt', 'a;b,c=d [e]{f}.txt', 'Caf\u00e9.txt', 'Cafe\u0301.txt',
  '日本語のファイル.pdf', '🤖 report.png', "it's 50% off! #1 $5 & +^`|~.txt", 'tab\u00a0nbsp.txt',
];
// RFC 8187: ext-value = charset "'" [ language ] "'" value-chars; value-chars = *( pct-encoded / attr-char ).
const EXT_VALUE = /^UTF-8''(?:%[0-9A-F]{2}|[A-Za-z0-9!#$&+\-.^_`|~])*$/;
// RFC 9110 quoted-string without quoted-pairs, limited to printable ASCII.
const QUOTED = /^"[\x20\x21\x23-\x5b\x5d-\x7e]*"$/;

describe('contentDisposition', () => {
  it("percent-encodes everything outside attr-char in filename*: ' ( ) * too", () => {
    expect(contentDisposition(TESTER)).toBe(`attachment; filename="O'Brien (copy) *1*.txt"; filename*=UTF-8''O%27Brien%20%28copy%29%20%2A1%2A.txt`);
    for (const name of NAMES) {
      const ext = extValue(name);
      expect(ext, name).toMatch(EXT_VALUE);
      expect(decodeURIComponent(ext.slice("UTF-8''".length)), name).toBe(name);
    }
    expect(extValue('Caf\u00e9')).toBe("UTF-8''Caf%C3%A9");
    expect(extValue('🤖')).toBe("UTF-8''%F0%9F%A4%96");
  });

  it('the plain filename is a quoted-string of printable ASCII: no " or \\, accents dropped, no %XX a client would decode', () => {
    for (const name of NAMES) {
      const header = contentDisposition(name);
      const plain = /^attachment; filename=("[^"]*"); filename\*=(\S+)$/.exec(header);
      expect(plain, header).not.toBeNull();
      expect(plain![1], name).toMatch(QUOTED);
      expect(plain![1]).not.toMatch(/%[0-9A-Fa-f]{2}/);
    }
    expect(asciiFilename('"quoted".txt')).toBe('_quoted_.txt');
    expect(asciiFilename('back\\slash.txt')).toBe('back_slash.txt');
    expect(asciiFilename('100%25 done.txt')).toBe('100_25 done.txt');
    expect(asciiFilename('50% off.txt')).toBe('50% off.txt');
    expect(asciiFilename('Caf\u00e9.txt')).toBe('Cafe.txt');
    expect(asciiFilename('Cafe\u0301.txt')).toBe('Cafe.txt');
    // One _ per character, a pair included; a line break (never in a stored name) could not end the header either.
    expect(asciiFilename('🤖 日本.png')).toBe('_ __.png');
    expect(asciiFilename('a\r\nb')).toBe('a__b');
  });
});

describe('a download saved by wget --content-disposition', () => {
  let t: TestApp;
  let ws: Workspace;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-disposition-'));
  beforeAll(async () => {
    t = await startTestApp();
    await t.listen();
    ws = await createWorkspace(t);
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the name as uploaded (the tester\'s name, and one outside ASCII)', async () => {
    const issue = await ok(t, ws.token, 'issues.create', { title: 'downloads' });
    for (const [i, filename] of [TESTER, 'Résumé 日本 🤖.txt'].entries()) {
      const bytes = Buffer.from(`bytes of ${i}`);
      const up = await ok(t, ws.token, 'attachments.initUpload', { targetType: 'issue', targetId: issue.id, filename, mimeType: 'text/plain', sizeBytes: bytes.length });
      const put = await fetch(up.uploadUrl, { method: 'PUT', body: bytes });
      expect(put.status).toBe(200);
      const att = await ok(t, ws.token, 'attachments.finalize', { key: up.key });
      const dl = await ok(t, ws.token, 'attachments.getDownloadUrl', { id: att.id });
      const into = fs.mkdtempSync(path.join(dir, 'dl-'));
      // nocontrol: wget's default escapes bytes 128-159, which UTF-8 continuation bytes are, whatever the header says.
      await run('wget', ['-q', '--content-disposition', '--restrict-file-names=nocontrol', '-P', into, dl.url]);
      expect(fs.readdirSync(into)).toEqual([filename]);
      expect(fs.readFileSync(path.join(into, filename)).equals(bytes)).toBe(true);
    }
  }, 60_000);
});
