/**
 * The fields of a tool's answer that its declared output schema does not name. Output schemas are loose (a client
 * must accept more), so the SDK's validation never fails on an undeclared field: an agent reading outputSchema just
 * never learns of it. The harness's rest() runs every 200 answer of every test through this, so a field a shaper
 * starts returning fails the suite until the tool's output declares it.
 */
import { findTool, restOutputSchema } from '../../src/tools/catalog.ts';

type Schema = Record<string, any>;

function resolve(schema: Schema, root: Schema): Schema {
  let s = schema;
  for (let hops = 0; typeof s?.$ref === 'string' && hops < 10; hops++) {
    const ref: string = s.$ref;
    s = ref === '#' ? root : ref.split('/').slice(1).reduce((node: any, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], root);
  }
  return s ?? {};
}

function walk(schema: Schema, value: unknown, path: string, root: Schema, out: string[]): void {
  const s = resolve(schema, root);
  const branches: Schema[] | undefined = s.anyOf ?? s.oneOf;
  if (branches) {
    // The branch that names most of the value (a null branch names nothing of an object).
    // Branches whose required fields the value all has come first (an issue bundle is not read as a thread bundle).
    const has = (r: Schema) => value !== null && typeof value === 'object' && !Array.isArray(value)
      && (r.required ?? []).every((k: string) => k in value);
    const resolved = branches.map((b) => resolve(b, root));
    const fitting = resolved.filter(has);
    let best: string[] | undefined;
    for (const r of fitting.length ? fitting : resolved) {
      const found: string[] = [];
      if (value !== null && typeof value === 'object' && r.type === 'null') continue;
      walk(r, value, path, root, found);
      if (!best || found.length < best.length) best = found;
      if (!found.length) break;
    }
    out.push(...(best ?? []));
    return;
  }
  if (Array.isArray(value)) {
    if (s.items && typeof s.items === 'object') value.forEach((v, i) => walk(s.items, v, `${path}[${i}]`, root, out));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const properties: Schema | undefined = s.properties;
  const extra = s.additionalProperties;
  if (!properties && (extra === undefined || extra === true)) return; // a record or anything: nothing to name
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (properties && key in properties) walk(properties[key], v, at, root, out);
    else if (extra && typeof extra === 'object') walk(extra, v, at, root, out);
    else out.push(at);
  }
}

/**
 * What is wrong with a tool's 200 answer against its declared output: fields the schema leaves out (items[].foo.bar)
 * and fields it declares that the answer breaks (missing, wrong type: `!path: message`).
 */
export function outputProblems(tool: string, body: unknown): string[] {
  const t = findTool(tool);
  if (!t) return [];
  const schema = restOutputSchema(t);
  const out: string[] = [];
  walk(schema, body, '', schema, out);
  const parsed = t.output.safeParse(body);
  if (!parsed.success) out.push(...parsed.error.issues.map((i) => `!${i.path.join('.')}: ${i.message}`));
  // One line per field, however many items carry it.
  return [...new Set(out.map((p) => p.replace(/\[\d+\]|(?<=[.!])\d+(?=\.|:)/g, '[]')))];
}
