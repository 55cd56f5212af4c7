/**
 * The description of a tool lives in its catalog entry (src/tools/<ns>.ts). This writes it into the
 * `comment on function` of the tool's SQL function (sql/<ns>/tools/<tool>.sql), so a DBA's `\df+` shows
 * the same text. test/db/sql-layout.test.ts fails until the comment and the catalog agree.
 *
 *   npm run sql:comments     then --! include the changed tool files from migrations/current/
 */
import fs from 'node:fs';
import path from 'node:path';
import { TOOLS } from '../src/tools/catalog.ts';

const COMMENT = /^comment on function (app_tools\.\w+)\(args jsonb\) is '(?:[^']|'')*';$/ms;
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
let changed = 0;
for (const t of TOOLS) {
  if (!t.hasSql) continue;
  const file = path.resolve('sql', t.sqlFile);
  const text = fs.readFileSync(file, 'utf8');
  const statement = `comment on function ${t.sqlFunction}(args jsonb) is ${literal(`${t.name}: ${t.description}`)};`;
  const next = COMMENT.test(text) ? text.replace(COMMENT, () => statement) : `${text.trimEnd()}\n${statement}\n`;
  if (next !== text) {
    fs.writeFileSync(file, next);
    changed++;
    console.log(`sql/${path.relative(path.resolve('sql'), file)}`);
  }
}
console.error(`${changed} tool comment(s) rewritten`);
