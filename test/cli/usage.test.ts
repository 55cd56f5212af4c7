/**
 * Usage mistakes are exit 2 with a message naming the flag (and the closest known one); every
 * command's --help comes from its declaration. No database is touched by any of these.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ADMIN_SPECS } from '../../src/cli/admin.ts';
import { closest, parseCommand, usage, UsageError, validate } from '../../src/cli/flags.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase } from '../support/harness.ts';
import { svc } from './support.ts';

/** Runs svc commands a few at a time (the machine is shared). */
async function each<T, R>(items: T[], fn: (item: T) => Promise<R>, width = 3): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }));
  return out;
}

// A data directory that must never be created: usage errors stop before any database work.
const env = { SVC_DATA_DIR: '/nonexistent/svc-usage-test', DATABASE_URL: '' };
let testDatabase: Promise<string> | undefined;
const database = () => (testDatabase ??= createTestDatabase());

describe('typos and usage errors (exit 2)', () => {
  it('a misspelt flag names the flag and the closest known one, and nothing runs', async () => {
    const r = await svc(['admin', 'create-key', '--workspace', 'ENG', '--user', 'you@example.com', '--scope', 'READ_ISSUES',
      '--expire-in-days', '1', '--json'], env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown flag --scope; did you mean --scopes?');
    expect(r.stderr).toContain('unknown flag --expire-in-days; did you mean --expires-in-days?');
  });

  it('missing required flags are named', async () => {
    const r = await svc(['admin', 'create-workspace', '--name', 'X', '--json'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing required flags --key, --owner-email/);
  });

  it('unknown commands, positional arguments, bad values and values for switches', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['strat'], /unknown command "strat"; did you mean start\?/],
      [['admin', 'list-key'], /unknown admin command "list-key"; did you mean list-keys\?/],
      [['start', '--no-workr'], /unknown flag --no-workr; did you mean --no-worker\?/],
      [['migrate', '--force'], /unknown flag --force: svc migrate takes no flags/],
      [['admin', 'list-agents', 'ENG'], /unexpected argument "ENG"/],
      [['admin', 'list-workspaces', '--json=yes'], /--json takes no value/],
      [['admin', 'create-agent', '--workspace', 'E', '--profile-key', 'p', '--name', 'n', '--max-concurrent', 'two'],
        /--max-concurrent must be a whole number 0 or more, got "two"/],
      [['admin', 'update-workspace', '--workspace', 'E', '--auto-dispatch', 'yes'], /--auto-dispatch must be true or false/],
      [['admin', 'update-workspace', '--workspace', 'E', '--auto-dispatch-mode', 'ROUND_ROBINN'],
        /--auto-dispatch-mode must be one of .*; did you mean ROUND_ROBIN\?/],
      [['admin', 'add-member', '--workspace', 'E', '--email', 'a@b.c', '--role', 'owmer'], /did you mean OWNER\?/],
      [['admin', 'create-key', '--workspace', 'E', '--user', 'a@b.c', '--expires-in-seconds', '0'], /--expires-in-seconds must be a whole number from 1 to 3153600000/],
      [['admin', 'create-key', '--workspace', 'E', '--user'], /--user needs a value/],
      // The last of a repeated flag would silently win: another workspace's keys, a key with fewer scopes.
      [['admin', 'list-keys', '--workspace', 'ENG', '--workspace', 'OTH', '--json'], /--workspace given more than once/],
      [['admin', 'create-key', '--workspace', 'E', '--user', 'a@b.c', '--scopes', 'READ_ISSUES', '--scopes', 'WRITE_ISSUES'],
        /--scopes given more than once: give each flag once \(a list takes comma-separated values\)/],
      // Past what PostgreSQL's integer holds: the flag's usage error, not the database's "out of range".
      [['admin', 'update-workspace', '--workspace', 'E', '--assignment-sla-minutes', '99999999999'],
        /--assignment-sla-minutes must be a whole number 0 or more \(at most 2147483647\), got "99999999999"/],
    ];
    const results = await each(cases, ([args]) => svc(args, env));
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(2);
      expect(r.stderr, cases[i]![0].join(' ')).toMatch(cases[i]![1]);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    });
  }, 120_000);

  it('PORT=abc and a bad LOG_LEVEL are one-line errors with exit 2, not stack traces', async () => {
    const port = await svc(['start'], { ...env, PORT: 'abc' });
    expect(port.code).toBe(2);
    expect(port.stderr).toBe('svc: PORT must be a whole number from 0 to 65535, got "abc"\n');
    const level = await svc(['start'], { ...env, LOG_LEVEL: 'loud' });
    expect(level.code).toBe(2);
    expect(level.stderr.trim().split('\n')).toHaveLength(1);
    expect(level.stderr).toMatch(/LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"/);
    const big = await svc(['migrate'], { ...env, PORT: '70000' });
    expect(big.code).toBe(2);
  });

  it('a DATABASE_URL that is not a postgres URL and an SVC_EGRESS_ALLOW_PRIVATE that is neither on nor off are exit 2', async () => {
    // They failed later as "getaddrinfo ENOTFOUND base" (exit 1), and as private egress silently off.
    const url = await svc(['admin', 'list-workspaces', '--json'], { ...env, DATABASE_URL: 'not-a-url' });
    expect([url.code, url.stderr]).toEqual([2, expect.stringMatching(/^svc: DATABASE_URL must be a postgres:\/\/ \(or postgresql:\/\/\) connection URL/)]);
    // Shaped like one but not a URL (a port past 65535): the same line, not "Invalid URL".
    const port = await svc(['admin', 'list-workspaces', '--json'], { ...env, DATABASE_URL: 'postgres://u@h:99999/db' });
    expect([port.code, port.stderr]).toEqual([2, expect.stringMatching(/^svc: DATABASE_URL must be a postgres:\/\//)]);
    // libpq's Unix-socket form with a user and no host is taken (it was refused as "not a postgres URL").
    for (const socket of ['postgres://svc@/svc?host=/run/postgresql', 'postgresql://svc:pw@/svc?host=%2Frun%2Fpostgresql&port=5433', 'postgres:///svc?host=/tmp']) {
      expect(loadConfig({ DATABASE_URL: socket }).databaseUrl).toBe(socket);
    }
    expect(() => loadConfig({ DATABASE_URL: 'postgres://svc@:99999/svc' })).toThrow(/DATABASE_URL must be/);
    const egress = await svc(['admin', 'list-workspaces', '--json'], { ...env, SVC_EGRESS_ALLOW_PRIVATE: 'yes' });
    expect([egress.code, egress.stderr]).toEqual([2, 'svc: SVC_EGRESS_ALLOW_PRIVATE must be 1 (or true) to allow private addresses, 0 (or false, or unset) to refuse them, got "yes"\n']);
  });
});

describe("the database's own refusals, in its words", () => {
  it('a server not listening, and a role without the rights, are said as PostgreSQL says them (they were "try again shortly" and "Not permitted for this key")', async () => {
    const down = await svc(['admin', 'list-workspaces', '--json'], { ...env, DATABASE_URL: 'postgres://svc:pw@127.0.0.1:1/svc' });
    expect([down.code, down.stderr]).toEqual([1, expect.stringMatching(/^svc: the database is not reachable \(connect ECONNREFUSED 127\.0\.0\.1:1\)\n$/)]);
    const noSocket = await svc(['admin', 'list-workspaces', '--json'], { ...env, DATABASE_URL: 'postgres://svc@/svc?host=/nonexistent-socket-dir&port=5999' });
    expect([noSocket.code, noSocket.stderr]).toEqual([1, expect.stringMatching(/^svc: the database is not reachable \(connect ENOENT \/nonexistent-socket-dir\/\.s\.PGSQL\.5999\)\n$/)]);
    const url = new URL(await database());
    const role = `svc_t_plain_${crypto.randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    try {
      await admin.query(`create role ${role} login password 'pw'`);
      const plain = new URL(url);
      plain.username = role;
      plain.password = 'pw';
      const refused = await svc(['admin', 'list-workspaces', '--json'], { ...env, DATABASE_URL: plain.toString() });
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/^svc: PostgreSQL refused: permission denied for /)]);
    } finally {
      await admin.query(`drop role if exists ${role}`).catch(() => {});
      await admin.end();
    }
  });
});

describe('SVC_PUBLIC_URL, SVC_CORS_ORIGINS and an IPv6 HOST', () => {
  it('the default public URL brackets an IPv6 host, so the links handed out parse', () => {
    expect(loadConfig({ HOST: '::1', PORT: '3113' }).publicUrl).toBe('http://[::1]:3113');
    expect(new URL(`${loadConfig({ HOST: '::1' }).publicUrl}/blobs/x`).hostname).toBe('[::1]');
    expect(loadConfig({ HOST: '0.0.0.0' }).publicUrl).toBe('http://0.0.0.0:3000');
    expect(loadConfig({ SVC_PUBLIC_URL: 'https://svc.example.com/' }).publicUrl).toBe('https://svc.example.com');
  });

  it('a public URL or a CORS origin that is not http(s) stops the start with a one-line error', () => {
    for (const bad of ['notaurl', 'ftp://x', 'https://']) {
      expect(() => loadConfig({ SVC_PUBLIC_URL: bad })).toThrow(/^SVC_PUBLIC_URL must be an http:\/\/ or https:\/\/ URL/);
    }
    for (const bad of ['notanorigin', '*', 'https://ok.example.com,file:///etc']) {
      expect(() => loadConfig({ SVC_CORS_ORIGINS: bad })).toThrow(/^SVC_CORS_ORIGINS takes a comma list of browser origins/);
    }
    expect(loadConfig({ SVC_CORS_ORIGINS: 'https://a.example.com, http://localhost:5173/' }).corsOrigins)
      .toEqual(['https://a.example.com', 'http://localhost:5173']);
  });

  it('a public URL with a user, a password, a query or a fragment is refused (they went into every link), a path is kept', () => {
    for (const bad of ['http://user:secret@svc.example.com', 'http://user@svc.example.com', 'https://svc.example.com/base?x=1',
      'https://svc.example.com/base#frag', 'https://svc.example.com/?']) {
      expect(() => loadConfig({ SVC_PUBLIC_URL: bad }), bad).toThrow(/^SVC_PUBLIC_URL must be .* with no user, password, query or fragment/);
    }
    expect(loadConfig({ SVC_PUBLIC_URL: 'https://svc.example.com/tracker/' }).publicUrl).toBe('https://svc.example.com/tracker');
    // What URL parsing would drop or turn around is refused, not handed out as written (re-test).
    for (const bad of ['https:\\\\example.com\\svc', 'https://@example.com', 'https://exa\tmple.com/s\nvc', 'https://example.com/a b']) {
      expect(() => loadConfig({ SVC_PUBLIC_URL: bad }), bad).toThrow(/^SVC_PUBLIC_URL must be/);
    }
    expect(loadConfig({ SVC_PUBLIC_URL: 'HTTPS://SVC.Example.com:443/t' }).publicUrl).toBe('https://svc.example.com/t');
  });

  it('a CORS entry with more than an origin (a path, a user, a query) is refused, not cut down to its origin', () => {
    for (const bad of ['https://app.example.com/some/path', 'https://user:pw@app.example.com', 'https://app.example.com?x=1',
      'https://app.example.com/#a']) {
      expect(() => loadConfig({ SVC_CORS_ORIGINS: bad }), bad).toThrow(/^SVC_CORS_ORIGINS takes a comma list of browser origins/);
    }
    expect(loadConfig({ SVC_CORS_ORIGINS: 'HTTPS://App.Example.com:443' }).corsOrigins).toEqual(['https://app.example.com']);
    for (const bad of ['https://app.exa\tmple.com', 'https:\\\\app.example.com']) {
      expect(() => loadConfig({ SVC_CORS_ORIGINS: bad }), bad).toThrow(/^SVC_CORS_ORIGINS takes/);
    }
  });
});

describe('SVC_DB_POOL_SIZE', () => {
  it('defaults to 2 × CPUs + 1, takes a whole number, refuses anything else with a one-line error', () => {
    expect(loadConfig({}).dbPoolSize).toBe(2 * os.availableParallelism() + 1);
    expect(loadConfig({ SVC_DB_POOL_SIZE: '12' }).dbPoolSize).toBe(12);
    expect(() => loadConfig({ SVC_DB_POOL_SIZE: 'many' })).toThrow(/SVC_DB_POOL_SIZE must be a whole number from 1 to 1000, got "many"/);
  });

  it('a value under a setting\'s least is refused, not raised to it; a HOST or S3 endpoint that is no address says so', () => {
    for (const [name, least] of [['SVC_DB_POOL_SIZE', 1], ['SVC_WORKER_CONCURRENCY', 1], ['SVC_STREAMS_PER_KEY', 1],
      ['SVC_STREAMS_PER_WORKSPACE', 1], ['SVC_WEBHOOK_TIMEOUT_MS', 100]] as const) {
      expect(() => loadConfig({ [name]: String(least - 1) })).toThrow(new RegExp(`^${name} must be a whole number (from ${least} to|${least} or more)`));
      expect(() => loadConfig({ [name]: String(least) })).not.toThrow();
    }
    expect(() => loadConfig({ HOST: '256.1.1.1' })).toThrow(/^HOST must be a host name or an IP address/);
    for (const bad of ['notaurl', 'http://bad host', 'http://:9000', 'ftp://x']) {
      expect(() => loadConfig({ SVC_S3_BUCKET: 'b', SVC_S3_ENDPOINT: bad })).toThrow(/^SVC_S3_ENDPOINT must be an http/);
    }
    expect(loadConfig({ SVC_S3_BUCKET: 'b', SVC_S3_ENDPOINT: 'http://127.0.0.1:9000' }).s3).toMatchObject({ endpoint: 'http://127.0.0.1:9000' });
  });
});

describe('svc psql without psql', () => {
  it('says how to install it, before touching any database', async () => {
    // A PATH holding only node.
    const bin = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-path-'));
    await fs.symlink(process.execPath, path.join(bin, 'node'));
    const r = await svc(['psql'], { ...env, PATH: bin });
    await fs.rm(bin, { recursive: true, force: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^svc: psql is not installed \(Debian\/Ubuntu: apt-get install postgresql-client/);
    expect(r.stderr).toMatch(/svc db url/);
  });
});

describe('svc db url with DATABASE_URL', () => {
  it('says whether that server answers, rather than assuming it runs', async () => {
    const r = await svc(['db', 'url', '--json'], { ...env, DATABASE_URL: 'postgres://u:p@127.0.0.1:1/x' });
    expect([r.code, JSON.parse(r.stdout)]).toEqual([0, { url: 'postgres://u:p@127.0.0.1:1/x', embedded: false, running: false }]);
    const text = await svc(['db', 'url'], { ...env, DATABASE_URL: 'postgres://u:p@127.0.0.1:1/x' });
    expect(text.stderr).toMatch(/does not answer/);
  });
});

describe('--help', () => {
  it('svc --help and svc admin --help list the commands, one line each', async () => {
    const main = await svc(['--help'], env);
    expect(main.code).toBe(0);
    for (const c of ['start', 'worker', 'migrate', 'admin', 'psql', 'db url']) expect(main.stdout).toMatch(new RegExp(`^  ${c} +\\S`, 'm'));
    const admin = await svc(['admin', '--help'], env);
    expect(admin.code).toBe(0);
    for (const [name, spec] of Object.entries(ADMIN_SPECS)) {
      expect(admin.stdout.split('\n').find((l) => l.trim().startsWith(`${name} `))?.trim()).toMatch(new RegExp(`^${name} +${spec.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    }
    expect(admin.stdout.trim().split('\n')).toHaveLength(Object.keys(ADMIN_SPECS).length + 2);
  });

  it('svc admin <command> --help prints that command\'s usage, from its declaration, for every command', async () => {
    const names = Object.keys(ADMIN_SPECS);
    const results = await each(names, (name) => svc(['admin', name, '--help'], env));
    results.forEach((r, i) => {
      const spec = ADMIN_SPECS[names[i]!]!;
      expect(r.code, names[i]).toBe(0);
      expect(r.stdout).toBe(`${usage(spec)}\n`);
      expect(r.stdout).toMatch(new RegExp(`^usage: svc admin ${names[i]} `));
      for (const [flag, f] of Object.entries(spec.flags)) {
        expect(r.stdout).toContain(`--${flag}`);
        expect(r.stdout).toContain(f.description);
      }
    });
    // -h works too, and --help wins over missing required flags
    expect((await svc(['admin', 'create-key', '-h'], env)).stdout).toBe(`${usage(ADMIN_SPECS['create-key']!)}\n`);
  }, 120_000);

  it('a missing command is a usage mistake: the usage on stderr, exit 2 (svc, svc admin, svc db)', async () => {
    const results = await each([[], ['admin'], ['db']], (args) => svc(args, env));
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^svc: .*needs a command|^svc: no command given/);
      expect(r.stderr).toMatch(/usage: svc/);
    }
  }, 60_000);

  it('an empty value is exit 2, not "unset": no FULL key from --scopes "" and no unrestricted one from --projects ""', async () => {
    const r = await svc(['admin', 'create-key', '--workspace', 'E', '--user', 'a@b.c', '--scopes', '', '--projects', ' '], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: --scopes, --projects are empty: give a value or leave the flag out/);
  }, 30_000);

  it('a text flag is refused when too long or holding control characters; a multiline one takes line breaks', async () => {
    const [long, nul, newline] = await each([
      ['admin', 'create-workspace', '--name', 'x'.repeat(100_000), '--key', 'ENG', '--owner-email', 'a@b.c'],
      ['admin', 'create-workspace', '--name', 'bad\u0007bell', '--key', 'ENG', '--owner-email', 'a@b.c'],
      ['admin', 'create-workspace', '--name', 'two\nlines', '--key', 'ENG', '--owner-email', 'a@b.c'],
    ], (args) => svc(args, env));
    expect(long!.code).toBe(2);
    expect(long!.stderr).toBe('svc: --name is 100000 characters long; at most 200\n');
    expect(nul!.code).toBe(2);
    expect(nul!.stderr).toMatch(/^svc: --name holds a control character or a line break/);
    expect(newline!.code).toBe(2);
    // The chat's first message may span lines (still no other control characters).
    const open = ADMIN_SPECS['open-chat']!;
    const base = { workspace: 'ENG', agent: 'a', user: 'a@b.c' };
    expect(validate(open, { ...base, message: 'line one\nline two' }).message).toBe('line one\nline two');
    expect(() => validate(open, { ...base, message: 'nul\u0000' })).toThrow(/--message holds a control character/);
  }, 60_000);

  it('list flags are checked too (ids are UUIDs, no control characters); C1 controls and line separators are refused; errors quote at most 60 characters', () => {
    const key = ADMIN_SPECS['create-key']!;
    const agent = ADMIN_SPECS['create-agent']!;
    const base = { workspace: 'ENG', user: 'a@b.c' };
    expect(() => validate(key, { ...base, projects: 'not-a-uuid' })).toThrow(/--projects takes UUIDs: .*got "not-a-uuid"/);
    expect(validate(key, { ...base, projects: '5F3C6B9E-1111-4222-8333-944445555666' }).projects).toEqual(['5f3c6b9e-1111-4222-8333-944445555666']);
    expect(() => validate(agent, { workspace: 'ENG', 'profile-key': 'p', name: 'n', capabilities: 'ok,a\u001b[2Jb' })).toThrow(/--capabilities holds a control character/);
    expect(() => validate(agent, { workspace: 'ENG', 'profile-key': 'p', name: 'n', capabilities: 'z'.repeat(100_000) })).toThrow(/--capabilities is 100000 characters long/);
    for (const name of ['a\u0085b', 'a\u009b31mb', 'a\u2028b']) {
      expect(() => validate(agent, { workspace: 'ENG', 'profile-key': 'p', name })).toThrow(/--name holds a control character or a line break/);
    }
    expect(() => validate(key, { ...base, 'expires-in-days': '99999999' })).toThrow(/--expires-in-days must be a whole number from 1 to 36500/);
    const long = (() => { try { validate(key, { ...base, 'expires-in-days': '9'.repeat(100_000) }); } catch (e) { return (e as Error).message; } })()!;
    expect(long.length).toBeLessThan(200);
  });

  it('lengths are counted in characters as the service counts them (code points, not UTF-16 units); text is taken composed (NFC)', async () => {
    const agent = ADMIN_SPECS['create-agent']!;
    const user = ADMIN_SPECS['update-user']!;
    const key = ADMIN_SPECS['create-key']!;
    const base = { workspace: 'ENG', 'profile-key': 'p' };
    // 150 robots are 150 characters (300 UTF-16 units): GraphQL's agentsCreate takes them, so does the CLI.
    expect(validate(agent, { ...base, name: '🤖'.repeat(150) }).name).toBe('🤖'.repeat(150));
    expect(validate(agent, { ...base, name: '🤖'.repeat(200) }).name).toBe('🤖'.repeat(200));
    expect(() => validate(agent, { ...base, name: '🤖'.repeat(201) })).toThrow(/^--name is 201 characters long; at most 200$/);
    // update-user --name takes 100: 60 smileys are 60 characters, not 120.
    expect(validate(user, { email: 'a@b.c', name: '🙂'.repeat(60) }).name).toBe('🙂'.repeat(60));
    expect(() => validate(user, { email: 'a@b.c', name: '🙂'.repeat(101) })).toThrow(/^--name is 101 characters long; at most 100$/);
    // A decomposed é (e + U+0301) is taken composed, as the service stores text, and counted as one character.
    const composed = validate(agent, { ...base, name: 'Cafe\u0301'.repeat(50) }).name;
    expect(composed).toBe('Caf\u00e9'.repeat(50));
    expect(validate(agent, { ...base, name: 'e\u0301'.repeat(200) }).name).toBe('\u00e9'.repeat(200));
    // An error quotes at most 60 characters and never half of a pair.
    const quoted = (() => { try { validate(key, { workspace: 'ENG', user: 'a@b.c', projects: '🤖'.repeat(100) }); } catch (e) { return (e as Error).message; } })()!;
    expect(quoted).toContain(`"${'🤖'.repeat(60)}…"`);
    // Through the binary: the tester's command is no longer a usage mistake (exit 2); it goes on to the database,
    // here one that is not there (exit 1).
    const r = await svc(['admin', 'create-agent', '--workspace', 'ENG', '--profile-key', 'robots', '--name', '🤖'.repeat(150), '--json'],
      { ...env, DATABASE_URL: 'postgres://svc:svc@127.0.0.1:1/none' });
    expect(r.stderr).not.toMatch(/characters long/);
    expect(r.code).toBe(1);
  }, 30_000);

  it('an id flag takes a UUID: anything else is exit 2 naming the flag (a raw key is recognised)', async () => {
    const [bad, raw] = await each([['admin', 'revoke-key', '--id', 'nope'], ['admin', 'revoke-key', '--id', 'svc_sk_abcdefsecret']], (args) => svc(args, env));
    expect(bad!.code).toBe(2);
    expect(bad!.stderr).toBe('svc: --id must be a UUID: key id (see list-keys); got "nope"\n');
    expect(raw!.code).toBe(2);
    expect(raw!.stderr).toMatch(/that is a raw key, not its id/);
    // The secret is not repeated in the error (terminal scrollback, CI logs), wherever it was pasted.
    expect(raw!.stderr).not.toContain('abcdefsecret');
    expect(raw!.stderr).toContain('"svc_sk_…"');
    const pasted = await each([['admin', 'list-members', '--workspace', 'svc_sk_abcdefsecret'], ['admin', 'revoke-key', '--id', 'xsvc_sk_abcdefsecret'],
      ['admin', 'list-members', '--workspace', 'OPS', '--svc_sk_abcdefsecret'], ['admin', 'create-key', '--workspace', 'OPS', '--scopes', 'svc_sk_abcdefsecret'],
      ['admin', 'list-members', '--workspace', 'whsec_abcdefsecret']],
    // A workspace is looked up (key, slug or id): in a database of its own, not an embedded one made on the way.
    async (args) => svc(args, { ...env, DATABASE_URL: await database() }));
    for (const r of pasted) {
      expect(r!.code, r!.stderr).toBe(2);
      expect(r!.stderr.toLowerCase()).not.toContain('abcdefsecret');
    }
  }, 60_000);

  it('a value of the wrong shape is exit 2 too: a workspace key, a webhook URL', async () => {
    const [key, url] = await each([
      ['admin', 'create-workspace', '--name', 'N', '--key', 'eng-lower', '--owner-email', 'a@b.c', '--json'],
      ['admin', 'create-webhook', '--workspace', 'ENG', '--url', 'ftp://x', '--json'],
    ], (args) => svc(args, env));
    expect([key!.code, key!.stderr]).toEqual([2, 'svc: --key must be 2-10 letters or digits, starting with a letter (ENG), got "eng-lower"\n']);
    expect([url!.code, url!.stderr]).toEqual([2, 'svc: --url must be an http(s) URL without credentials (https://hooks.example.com/svc), got "ftp://x"\n']);
    // A lower-case key is the key in capitals, as before; credentials in a URL are refused by the same check.
    const spec = ADMIN_SPECS['create-workspace']!;
    expect(validate(spec, { name: 'N', key: 'eng', 'owner-email': 'a@b.c' }).key).toBe('eng');
    expect(() => validate(ADMIN_SPECS['create-webhook']!, { workspace: 'ENG', url: 'https://user:pw@host/x' })).toThrow(/--url must be an http\(s\) URL without credentials/);
    // ... and not said back (stderr lands in scrollback and CI logs).
    expect(() => validate(ADMIN_SPECS['create-webhook']!, { workspace: 'ENG', url: 'https://user:pw@host/x' })).toThrow(/got "https:\/\/…@host\/x"$/);
    expect(validate(ADMIN_SPECS['create-webhook']!, { workspace: 'ENG', url: 'https://hooks.example.com/in?k=1#x' }).url).toBe('https://hooks.example.com/in?k=1#x');
  }, 60_000);

  it('top-level commands have --help too', async () => {
    const results = await each(['start', 'worker', 'migrate', 'psql'], (c) => svc([c, '--help'], env));
    for (const r of results) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^usage: svc \w+/);
    }
    expect(results[0]!.stdout).toContain('--no-worker');
    const db = await svc(['db', 'url', '--help'], env);
    expect(db.stdout).toMatch(/^usage: svc db url/);
  }, 60_000);
});

describe('the declarations', () => {
  it('every command declares --json and a description for every flag', () => {
    for (const spec of Object.values(ADMIN_SPECS)) {
      expect(spec.flags.json?.kind).toBe('switch');
      for (const f of Object.values(spec.flags)) expect(f.description.length).toBeGreaterThan(3);
    }
  });

  it('calling a command from code is validated by the same declaration', () => {
    const spec = ADMIN_SPECS['create-key']!;
    expect(() => validate(spec, { workspace: 'E', user: 'a@b.c', scope: 'X' })).toThrow(/unknown flag --scope; did you mean --scopes\?/);
    expect(validate(spec, { workspace: 'E', user: 'a@b.c', scopes: 'A, B', 'expires-in-seconds': '5' }))
      .toMatchObject({ scopes: ['A', 'B'], 'expires-in-seconds': 5, json: false });
    expect(() => parseCommand(spec, ['--workspace', 'E'])).toThrow(UsageError);
    expect(closest('scope', ['scopes', 'projects'])).toBe('scopes');
    expect(closest('zzzzzz', ['scopes', 'projects'])).toBeUndefined();
  });
});
