/** How many committed migrations this code ships (read once): GET /ready compares it with what the database applied. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const committedFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations/committed');
let count: number | undefined;

export async function committedMigrationCount(): Promise<number> {
  count ??= (await fs.readdir(committedFolder)).filter((f) => f.endsWith('.sql')).length;
  return count;
}
