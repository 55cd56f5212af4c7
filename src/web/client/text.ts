// Lengths as the service counts them: in characters (code points) of the text composed (NFC), which is how the
// service stores and measures it. A string's `.length`, `.slice` and an input's `maxLength` count UTF-16 units, two
// for an emoji: `.slice(0, 200)` cut a search of "a" + 150 emoji inside one (a lone surrogate, which GraphQL
// refuses), and a title of 300 emoji took no more keystrokes under maxLength 500. Counted as typed, "o" + U+0308
// (ö decomposed, as some keyboards and pastes give it) was two: a title of 300 ö was refused at "600 characters"
// that the service takes as 300, and a search of 150 é decomposed was cut to 100.

/** A title's limit in the service (issues.create, issues.update), in characters. */
export const TITLE_MAX = 500;

/** The text as the service stores it: composed (NFC). What the board sends, counts and cuts. */
export const composed = (text: string): string => text.normalize('NFC');

/** The number of characters (code points) in a text once composed. */
export function chars(text: string): number {
  let n = 0;
  for (const _ of composed(text)) n++;
  return n;
}

/** The first `max` characters of a text, composed (never half of one). */
export const cut = (text: string, max: number): string => {
  const whole = composed(text);
  return chars(whole) <= max ? whole : Array.from(whole).slice(0, max).join('');
};

/** What a field longer than the service takes says ("A title can be at most 500 characters long (this one has 512)."). */
export const tooLong = (text: string, max: number, noun: string): string | undefined => {
  const n = chars(text);
  return n > max ? `A ${noun} can be at most ${max.toLocaleString('en')} characters long (this one has ${n.toLocaleString('en')}).` : undefined;
};
