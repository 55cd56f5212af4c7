// Lengths as the service counts them: in characters (code points). A string's `.length`, `.slice` and an input's
// `maxLength` count UTF-16 units, two for an emoji: `.slice(0, 200)` cut a search of "a" + 150 emoji inside one
// (a lone surrogate, which GraphQL refuses), and a title of 300 emoji took no more keystrokes under maxLength 500.

/** A title's limit in the service (issues.create, issues.update), in characters. */
export const TITLE_MAX = 500;

/** The number of characters (code points) in a text. */
export function chars(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The first `max` characters of a text (never half of one). */
export const cut = (text: string, max: number): string => (chars(text) <= max ? text : Array.from(text).slice(0, max).join(''));

/** What a field longer than the service takes says ("A title can be at most 500 characters long (this one has 512)."). */
export const tooLong = (text: string, max: number, noun: string): string | undefined => {
  const n = chars(text);
  return n > max ? `A ${noun} can be at most ${max.toLocaleString('en')} characters long (this one has ${n.toLocaleString('en')}).` : undefined;
};
