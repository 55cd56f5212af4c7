/**
 * Ranking for catalog.search: an agent asks in words ("claim an issue", "upload a file", "who am I") and the tool it
 * needs should come first. Plain substring matching ranked on noise: "a" and "an" matched every description, so
 * "claim an issue" listed issues.createMany before issues.claim and "who am I" found nothing useful.
 *
 * Words are compared whole, after a light stemming (files → file, claiming → claim); words every description has
 * count for little (inverse document frequency); a word in the tool's own name (its namespace, or a part of its
 * camelCase method) counts more than one in its description; and tools that match more of the query's words come
 * first. A few everyday words map to the catalog's own (done → complete, sprint → cycle, file → attachment).
 */

export interface Searchable { name: string; description: string }

const STOP_WORDS = new Set((
  'a an the to of for on in into at by from with without and or not is are be been was were it its this that these those ' +
  'i me my mine we our us you your do does did can could should would will shall may might must how what which when where ' +
  'who whom why there here some any all each every one as so than then just also about want need like please'
).split(' '));

/** Everyday words an agent uses → the catalog's words for the same thing (added to the query at a lower weight). */
const SYNONYMS: Record<string, string[]> = {
  done: ['transition', 'status'], finish: ['complete'], close: ['complete', 'transition', 'cancel'],
  complete: ['transition'], move: ['transition', 'status'], progress: ['transition', 'status', 'usage'],
  file: ['attachment', 'upload'], upload: ['attachment'], attach: ['attachment'], download: ['attachment'],
  sprint: ['cycle'], iteration: ['cycle'], task: ['issue'], ticket: ['issue'], bug: ['issue'], work: ['workload', 'claim', 'assigned'],
  todo: ['issue', 'assigned'], message: ['chat'], approval: ['approve', 'gate', 'request'], approve: ['gate', 'request'],
  block: ['relation', 'blocked'], blocked: ['relation', 'block'], depend: ['relation'], dependency: ['relation'],
  tag: ['label'], note: ['comment'], reply: ['comment', 'chat'], whoami: ['me', 'caller'], who: ['me', 'caller'],
  self: ['me'], notify: ['notification', 'webhook'], subscribe: ['watch', 'webhook'], search: ['query', 'list'], find: ['list', 'search'],
  delete: ['remove', 'archive'], remove: ['delete'], rename: ['update'], edit: ['update'], change: ['update'], alive: ['heartbeat'],
  plan: ['executionplan', 'step'], step: ['executionplan'], history: ['event', 'activity'], log: ['event', 'activity'],
  assign: ['dispatch'], add: ['create'], new: ['create'], make: ['create'], post: ['create', 'append'], write: ['create', 'update'], pick: ['claim'], take: ['claim'], grab: ['claim'], release: ['unassign'],
};

/** Light stemming, the same for the query and the catalog: plurals and -ing/-ed forms meet their stem. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(ss|sh|ch|x)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) w = w.slice(0, -2);
  // "claiming" → "claim", "queued" → "queu": strip a final e too, so "queue" and "queued" meet.
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Lower-case words of a text, camelCase and dotted names split ("issues.claimNext" → issues, claim, next). */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

interface Entry<T> { tool: T; name: Set<string>; namespace: Set<string>; text: Set<string> }

export class CatalogIndex<T extends Searchable> {
  private readonly entries: Array<Entry<T>>;
  private readonly documentFrequency = new Map<string, number>();

  constructor(tools: readonly T[]) {
    this.entries = tools.map((tool) => {
      const [namespace = '', ...rest] = tool.name.split('.');
      const name = new Set(words(rest.join('.')).map(stem));
      const ns = new Set([...words(namespace).map(stem), stem(namespace.toLowerCase())]);
      const text = new Set([...name, ...ns, ...words(tool.description).map(stem)]);
      return { tool, name, namespace: ns, text };
    });
    for (const e of this.entries) for (const w of e.text) this.documentFrequency.set(w, (this.documentFrequency.get(w) ?? 0) + 1);
  }

  /** Tools matching the query, best first; `allowed` filters before ranking (what the key may call). */
  search(query: string, limit: number, allowed: (tool: T) => boolean = () => true): T[] {
    const concepts = this.concepts(query);
    if (!concepts.length) return [];
    const n = this.entries.length;
    const idf = (w: string) => Math.log(1 + n / (this.documentFrequency.get(w) ?? n));
    const ranked: Array<{ tool: T; score: number }> = [];
    for (const e of this.entries) {
      if (!allowed(e.tool)) continue;
      let score = 0;
      let matched = 0;
      for (const concept of concepts) {
        // A query word scores by its best match: itself, or one of its synonyms at a lower weight.
        let best = 0;
        for (const [w, weight] of concept) {
          const inName = e.name.has(w) || e.namespace.has(w) ? 3 : 0;
          const inText = e.text.has(w) ? 1 : 0;
          best = Math.max(best, weight * idf(w) * (inName + inText));
        }
        if (best > 0) matched++;
        score += best;
      }
      // Matching more of the query's words beats matching one of them strongly.
      if (score > 0) ranked.push({ tool: e.tool, score: score * (1 + matched) });
    }
    return ranked
      .sort((a, b) => b.score - a.score || a.tool.name.length - b.tool.name.length || a.tool.name.localeCompare(b.tool.name))
      .slice(0, limit)
      .map((r) => r.tool);
  }

  /** One map (stem → weight) per word of the query: the word at 1, its synonyms at 0.6; stop words only by their synonyms. */
  private concepts(query: string): Array<Map<string, number>> {
    const concepts: Array<Map<string, number>> = [];
    const seen = new Set<string>();
    for (const word of words(query)) {
      const own = stem(word);
      if (seen.has(own)) continue;
      seen.add(own);
      const concept = new Map<string, number>();
      if (!STOP_WORDS.has(word)) concept.set(own, 1);
      for (const synonym of SYNONYMS[word] ?? SYNONYMS[own] ?? []) if (!concept.has(stem(synonym))) concept.set(stem(synonym), 0.6);
      if (concept.size) concepts.push(concept);
    }
    return concepts;
  }
}
