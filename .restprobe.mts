// Server-side CPU per REST request vs backend CPU per request.
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import pg from 'pg';
import { openEmbeddedCluster, ensureDatabase } from './src/db/embedded.ts';
import { applyMigrations } from './src/db/migrate.ts';
import { ADMIN_COMMANDS } from './src/cli/admin.ts';
const dir = '/tmp/benchdev/rest';
const cluster = await openEmbeddedCluster(dir);
await ensureDatabase(cluster.url('postgres'), 'svc');
await applyMigrations(cluster.url('svc'), { includeCurrent: true });
const owner = new pg.Client({ connectionString: cluster.url('svc') }); await owner.connect();
let created: any;
try { created = (await ADMIN_COMMANDS['create-workspace']!(owner, { name: 'R', key: 'REST', 'owner-email': 'r@example.com' })).json; } catch { created = null; }
const token = created?.apiKey.rawKey ?? fs.readFileSync(dir + '/token', 'utf8');
fs.writeFileSync(dir + '/token', token);
const ws = (await owner.query(`select id from app_public.workspaces where key = 'REST'`)).rows[0].id;
if (created) await owner.query(`insert into app_public.issues (workspace_id, title, status_id) select $1, 'x' || g, (select id from app_public.statuses where workspace_id = $1 and is_default) from generate_series(1, 200) g`, [ws]);
const ids = (await owner.query('select id from app_public.issues where workspace_id = $1', [ws])).rows.map((r) => r.id);
const child = spawn('node', [...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/benchdev/prof'] : []), 'bin/svc.js', 'start', '--no-worker'], { env: { ...process.env, DATABASE_URL: process.env.UNIX ? cluster.url('svc').replace('@127.0.0.1:', '@%2Ftmp%2Fbenchdev%2Frest%2Fpg:') : cluster.url('svc'), PORT: '0', SVC_RATE_LIMIT_REST_PER_MIN: '0', SVC_RATE_LIMIT_RPC_PER_MIN: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
const url = await new Promise<string>((res) => { let out = ''; const on = (d: Buffer) => { out += d; const m = out.match(/listening on (http:\/\/[^\s"]+)/); if (m) res(m[1]!); }; child.stdout.on('data', on); child.stderr.on('data', on); });
const cpuOf = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const sysOf = (pid: number) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return Number(f[12]) * 10; };
const pgCpu = async () => { const { rows } = await owner.query(`select pid from pg_stat_activity where application_name = 'svc-api'`); let t = 0; for (const r of rows) { try { t += Number(fs.readFileSync(`/proc/${r.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6; } catch {} } return t; };
for (const tool of (process.env.TOOLS ?? 'issues.get').split(',')) {
  const body = () => JSON.stringify(tool === 'issues.get' ? { id: ids[Math.floor(Math.random() * ids.length)] } : {});
  await autocannon({ url: `${url}/api/mcp/${tool}`, connections: 8, duration: 2, requests: [{ method: 'POST', setupRequest: (r) => ({ ...r, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body() }) }] });
  const s0 = sysOf(child.pid!), c0 = cpuOf(child.pid!), p0 = await pgCpu(), me0 = process.cpuUsage();
  const r = await autocannon({ url: `${url}/api/mcp/${tool}`, connections: 8, duration: 5, requests: [{ method: 'POST', setupRequest: (r) => ({ ...r, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body() }) }] });
  const n = r.requests.total; const me = process.cpuUsage(me0);
  console.log(tool, 'req/s', (n / r.duration).toFixed(0), 'non2xx', r.non2xx, '| node server cpu/req', ((cpuOf(child.pid!) - c0) * 1000 / n).toFixed(0), 'us (kernel', ((sysOf(child.pid!) - s0) * 1000 / n).toFixed(0), 'us) | postgres cpu/req', (((await pgCpu()) - p0) * 1000 / n).toFixed(0), 'us | autocannon cpu/req', ((me.user + me.system) / n).toFixed(0), 'us');
}
child.kill('SIGTERM'); await new Promise((r) => child.on('exit', r));
await owner.end(); await cluster.stop();
process.exit(0);
