/**
 * Developer wrapper around graphile-migrate, against the embedded cluster in SVC_DATA_DIR
 * (or DATABASE_URL / SHADOW_DATABASE_URL / ROOT_DATABASE_URL when set).
 *
 *   npm run gm -- watch     apply committed migrations, then migrations/current/ (once)
 *   npm run gm -- commit [message]   turn current/ into the next committed migration (tested on a shadow db)
 *   npm run gm -- uncommit  move the last committed migration back into current/
 *   npm run gm -- reset     drop and rebuild the dev database from committed migrations
 */
import { commit, reset, uncommit, watch } from 'graphile-migrate';
import { loadConfig } from '../src/config.ts';
import { ensureDatabase, openEmbeddedCluster } from '../src/db/embedded.ts';
import { applyMigrations, migrateSettings } from '../src/db/migrate.ts';

const [command, ...rest] = process.argv.slice(2);
const config = loadConfig();
let stop = async () => {};
let url = config.databaseUrl;
let shadowUrl = process.env.SHADOW_DATABASE_URL;
let rootUrl = process.env.ROOT_DATABASE_URL;
if (!url) {
  const cluster = await openEmbeddedCluster(config.dataDir);
  stop = () => cluster.stop();
  await ensureDatabase(cluster.url('postgres'), 'svc', cluster.ownerRole);
  url = cluster.ownerUrl('svc'); // the same non-superuser owner as `svc start`, so objects have one owner
  // The committed migrations first, as that owner: on a new cluster the shadow database (migrated as the superuser)
  // would otherwise create the request roles, and the owner, lacking ADMIN on them, could not then comment on them.
  await applyMigrations(url);
  shadowUrl = cluster.url('svc_shadow');
  rootUrl = cluster.url('postgres');
}
const settings = migrateSettings(url, { shadowConnectionString: shadowUrl, rootConnectionString: rootUrl });
try {
  switch (command) {
    case 'watch': await watch(settings, true); break;
    // `commit -m MSG` as git has it: the flag is not part of the message.
    case 'commit': await commit(settings, rest.filter((a, i) => !(i === 0 && (a === '-m' || a === '--message'))).join(' ') || undefined); break;
    case 'uncommit': await uncommit(settings); break;
    case 'reset': await reset(settings, false); break;
    default: throw new Error(`unknown command ${command}; use watch | commit | uncommit | reset`);
  }
  console.log(`gm ${command}: done`);
} finally {
  await stop();
}
