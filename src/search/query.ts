// Reading the free-text `q`: its words, the skills it names, and what Postgres full-text search
// should look for. Pure: the database stems the words later (websearch_to_tsquery, 'english').
import { recognizeSkills, type RecognizedSkill } from './skills.ts';

/** Postgres' 'english' stop words (tsearch_data/english.stop): they carry no lexeme. */
export const ENGLISH_STOP_WORDS = new Set(
  `i me my myself we our ours ourselves you your yours
yourself yourselves he him his himself she her hers herself it its itself they them their theirs
themselves what which who whom this that these those am is are was were be been being have has had
having do does did doing a an the and but if or because as until while of at by for with about
against between into through during before after above below to from up down in out on off over
under again further then once here there when where why how all any both each few more most other
some such no nor not only own same so than too very s t can will just don should now`.split(/\s+/),
);

/**
 * How people phrase a request for work ("need someone who knows ..."): words every posting could
 * contain, so they neither find nor rank anything.
 */
export const REQUEST_WORDS = new Set([
  'need',
  'needs',
  'needed',
  'looking',
  'look',
  'seeking',
  'want',
  'wanted',
  'someone',
  'somebody',
  'anyone',
  'person',
  'people',
  'help',
  'hire',
  'hiring',
  'freelancer',
  'freelance',
  'expert',
  'experienced',
  'knows',
  'know',
  'please',
  'thanks',
  'get',
  'make',
  'us',
  'good',
  'great',
  'job',
  'gig',
  'work',
  'project',
  'able',
  'like',
  'would',
  'could',
]);

const isIgnorable = (word: string) => ENGLISH_STOP_WORDS.has(word) || REQUEST_WORDS.has(word);

/** Words as Postgres' parser would roughly cut them; keeps `c++`, `c#`, `.net`, `node.js`, `go-to-market`. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const match of text.toLowerCase().matchAll(/\.?[\p{L}\p{N}][\p{L}\p{N}+#.'-]*/gu)) {
    const word = match[0].replace(/['.-]+$/, '').replace(/'s$/, '');
    if (word) out.push(word);
  }
  return out;
}

/** websearch syntax the searcher used on purpose: a quoted phrase, `or`, or `-word`. */
export function usesOperators(q: string): boolean {
  return /"/.test(q) || /(^|\s)-[\p{L}\p{N}]/u.test(q) || /\s+or\s+/i.test(` ${q} `.replace(/^\s*or\s+|\s+or\s*$/gi, ' '));
}

export interface TextQuery {
  /** The string for websearch_to_tsquery('english', ...), or null when q has no searchable word. */
  websearch: string | null;
  /** `all`: the searcher's own websearch syntax (AND by default). `any`: any of the words. */
  mode: 'all' | 'any';
  /** In `any` mode, what websearch joins with `or`: single words (`word`) and phrases. */
  pieces: { search: string; word: string | null }[];
  /** The words worth reporting when they match a field, each with the query words it stands for. */
  terms: { term: string; from: string }[];
  skills: RecognizedSkill[];
  /**
   * In `any` mode, two to six words of which a common one was dropped (withoutCommonWords): all of
   * them, for plainto_tsquery. The gigs with them all in their title or tags rank highest (the
   * phrase keeps the dropped word), but are rarely the newest matches of the words left, the
   * order two-phase retrieval reads: they are an arm of their own (candidates-sql.ts).
   */
  allWords: string | null;
}

const join = (pieces: TextQuery['pieces']) => (pieces.length ? pieces.map((p) => p.search).join(' or ') : null);

/**
 * Plain queries become "any of these words" (ranking rewards gigs that match more of them and
 * in better fields): long, natural-language queries would otherwise match nothing. Skills the
 * query names add their synonyms (`k8s` also finds `kubernetes`). Queries with websearch
 * operators go to Postgres as written.
 */
export function parseText(q: string | undefined, vocabulary: ReadonlySet<string>): TextQuery {
  const text = (q ?? '').trim();
  const all = words(text);
  const skills = recognizeSkills(all, vocabulary, isIgnorable);
  const content = [...new Set(all.filter((w) => !isIgnorable(w)))];
  const terms: TextQuery['terms'] = content.map((w) => ({ term: w, from: w }));
  const pieces: TextQuery['pieces'] = content.map((w) => ({ search: w, word: w }));
  // Synonyms of the skills named: a form of several words is searched as a phrase.
  for (const s of skills) {
    for (const form of s.forms) {
      const term = form.includes('-') && !vocabulary.has(form) ? form.replace(/-/g, ' ') : form;
      if (terms.some((t) => t.term === term || t.term === form)) continue;
      terms.push({ term, from: s.from });
      pieces.push(term.includes(' ') ? { search: `"${term}"`, word: null } : { search: term, word: term });
    }
  }
  if (text && usesOperators(text)) {
    return { websearch: content.length ? text : null, mode: 'all', pieces: [], terms, skills, allWords: null };
  }
  // The words together, as typed, rank gigs that have them as a phrase higher.
  const together = content.length >= 2 && all.length <= 6;
  if (together) pieces.push({ search: `"${all.join(' ')}"`, word: null });
  return { websearch: join(pieces), mode: 'any', pieces, terms, skills, allWords: together ? content.join(' ') : null };
}

/** The most words a plain query searches for: the rarest ones, which say the most. */
export const MAX_SEARCH_WORDS = 8;

/**
 * Drops the words that most gigs contain (their share of gigs above `commonShare`), as search
 * engines do with very common terms: they would find most of the corpus, rank little, and cost
 * a score for every gig found. When every word is common, the least common one stays; of a long
 * query, the MAX_SEARCH_WORDS rarest. Phrases stay. `share` maps a word to its share of gigs
 * (0 when rare or unknown).
 */
export function withoutCommonWords(t: TextQuery, share: ReadonlyMap<string, number>, commonShare: number): TextQuery {
  if (t.mode !== 'any') return { ...t, allWords: null };
  const shareOf = (p: TextQuery['pieces'][number]) => share.get(p.word!) ?? 0;
  const words = t.pieces.filter((p) => p.word !== null);
  const rare = words.filter((p) => shareOf(p) <= commonShare);
  const kept = new Set(
    (rare.length ? rare : words)
      .map((p, i) => ({ p, i }))
      .sort((a, b) => shareOf(a.p) - shareOf(b.p) || a.i - b.i)
      .slice(0, rare.length ? MAX_SEARCH_WORDS : 1)
      .map(({ p }) => p.word!),
  );
  if (kept.size === words.length) return { ...t, allWords: null };
  const pieces = t.pieces.filter((p) => p.word === null || kept.has(p.word));
  return { ...t, pieces, websearch: join(pieces) };
}
