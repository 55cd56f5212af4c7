/**
 * One PostgreSQL per test run: DATABASE_URL when set, else a testcontainers container when a container
 * runtime answers, else an embedded cluster in a temporary directory. The schema is migrated once into
 * a template database; each test file clones it (CREATE DATABASE ... TEMPLATE, ~30 ms).
 */
import { readFileSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openEmbeddedCluster } from '../../src/db/embedded.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { installEventAudit } from './event-audit.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    adminUrl: string;
    templateDb: string;
  }
}

const withDatabase = (url: string, db: string) => {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
};

async function startContainer(): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  try {
    const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    const container = await new GenericContainer('postgres:17-alpine')
      .withEnvironment({ POSTGRES_PASSWORD: 'postgres' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    return {
      url: `postgres://postgres:postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`,
      stop: async () => void (await container.stop()),
    };
  } catch {
    return undefined; // no container runtime here
  }
}

export default async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  let teardown = async () => {};
  if (!adminUrl) {
    const container = await startContainer();
    if (container) {
      adminUrl = container.url;
      teardown = container.stop;
    } else {
      const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'svc-test-'));
      await fs.chmod(parent, 0o755);
      const cluster = await openEmbeddedCluster(path.join(parent, 'data'));
      adminUrl = cluster.url('postgres');
      teardown = async () => {
        process.off('exit', abandoned);
        await cluster.stop({ force: true }); // private to this run, whoever is still connected
        await fs.rm(parent, { recursive: true, force: true });
      };
      // Interrupted (Ctrl-C, a timeout's SIGTERM), vitest exits without running the teardown, and the postmaster,
      // detached from our process group, stayed running with its directory. Ended here at exit: an immediate
      // shutdown (SIGQUIT), which needs no waiting.
      const abandoned = () => {
        try {
          const pid = Number(readFileSync(path.join(parent, 'data', 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
          if (pid > 0) process.kill(pid, 'SIGQUIT');
        } catch { /* not running */ }
        rmSync(parent, { recursive: true, force: true });
      };
      process.on('exit', abandoned);
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(130));
    }
  }

  const templateDb = `svc_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${templateDb}`);
  await admin.query(`create database ${templateDb}`);
  // Committed migrations plus work in progress in migrations/current/, so tests cover what is being built.
  await applyMigrations(withDatabase(adminUrl, templateDb), { includeCurrent: true });
  await admin.end();
  // SVC_EVENT_AUDIT=/path/file: which tables each transaction changes, recorded in every test database (event-audit.ts).
  if (process.env.SVC_EVENT_AUDIT) {
    const template = new pg.Client({ connectionString: withDatabase(adminUrl, templateDb) });
    await template.connect();
    try {
      await installEventAudit(template);
    } finally {
      await template.end();
    }
  }

  project.provide('adminUrl', adminUrl);
  project.provide('templateDb', templateDb);

  return async () => {
    // On a server of the developer's (DATABASE_URL), leave nothing behind; a private cluster or container is
    // thrown away whole (dropping some 65 databases first took longer than vitest waits for a teardown on a
    // loaded machine, and the cluster was left running).
    if (process.env.DATABASE_URL) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      const { rows } = await client.query("select datname from pg_database where datname like 'svc_t_%' or datname = $1", [templateDb]);
      for (const r of rows) await client.query(`drop database if exists "${r.datname}" with (force)`).catch(() => {});
      await client.end();
    }
    await teardown();
  };
}
