// Skills: the synonyms everyone in the trade uses, and recognising skills in free text against
// the tags that gigs actually carry (the vocabulary). Pure: no database here.

/**
 * Groups of names for one skill; the first is the canonical tag. Phrases (with spaces) match
 * consecutive words of a query. General knowledge only: nothing here comes from the evaluation
 * set's judgments.
 */
const SYNONYM_GROUPS: string[][] = [
  ['kubernetes', 'k8s', 'kube'],
  ['javascript', 'js', 'ecmascript'],
  ['typescript', 'ts'],
  ['react', 'reactjs', 'react.js'],
  ['react-native', 'rn', 'react native'],
  ['vue', 'vuejs', 'vue.js'],
  ['angular', 'angularjs'],
  ['node', 'nodejs', 'node.js'],
  ['nextjs', 'next.js'],
  ['nuxt', 'nuxtjs', 'nuxt.js'],
  ['postgres', 'postgresql'],
  ['machine-learning', 'ml', 'machine learning'],
  ['ai', 'artificial intelligence'],
  ['rails', 'ror', 'ruby on rails'],
  ['go', 'golang'],
  ['frontend', 'front-end', 'front end'],
  ['backend', 'back-end', 'back end'],
  ['fullstack', 'full-stack', 'full stack'],
  ['ci-cd', 'cicd', 'ci cd'],
  ['seo', 'search engine optimization', 'search engine optimisation'],
  ['aws', 'amazon web services'],
  ['gcp', 'google cloud', 'google cloud platform'],
  ['llm', 'llms', 'large language model', 'large language models'],
  ['dotnet', '.net', 'asp.net'],
  ['csharp', 'c#'],
  ['cpp', 'c++'],
  ['pentest', 'pentesting', 'penetration testing', 'penetration test', 'pen test', 'pen testing'],
  ['smart-contracts', 'smart-contract', 'smart contract', 'smart contracts'],
  ['data-labeling', 'data-labelling', 'data labeling', 'data labelling'],
  ['ui-ux', 'ui ux', 'ux ui'],
  ['nlp', 'natural language processing'],
  ['computer-vision', 'computer vision'],
  ['wordpress', 'wp'],
  ['tailwind', 'tailwindcss'],
];

/** A name (tag form: lowercase, hyphens for spaces) to its synonym group. */
const GROUP_OF = new Map<string, string[]>();
for (const group of SYNONYM_GROUPS) {
  const forms = group.map(tagForm);
  for (const form of forms) GROUP_OF.set(form, forms);
}

/** Lowercase, trimmed, spaces as hyphens: how tags are written. */
export function tagForm(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '-');
}

/** Every tag that means the same skill as `tag`, itself first. */
export function skillForms(tag: string): string[] {
  const form = tagForm(tag);
  const group = GROUP_OF.get(form);
  return group ? [form, ...group.filter((f) => f !== form)] : [form];
}

/** The canonical tag of a skill name (`k8s` -> `kubernetes`), or the name itself. */
export function canonicalSkill(tag: string): string {
  const form = tagForm(tag);
  return GROUP_OF.get(form)?.[0] ?? form;
}

/** A skill recognised in a query: the canonical tag, its forms, and the words it came from. */
export interface RecognizedSkill {
  skill: string;
  forms: string[];
  /** The query's own words, as typed (lowercased). */
  from: string;
  /** Set when the words were read as a near spelling of a known tag (`pyton` -> `python`). */
  corrected: boolean;
}

/**
 * True when `word` reads as a slip in typing `tag`: one edit apart, but not a word that merely
 * extends or shortens it (`write`/`writer`), and a substituted letter only in longer words
 * (`audit` is not a typo of `audio`). Linear time: it runs against every one-word tag.
 */
export function isTypoOf(word: string, tag: string): boolean {
  if (word === tag || Math.abs(word.length - tag.length) > 1 || tag.startsWith(word) || word.startsWith(tag)) return false;
  let i = 0;
  while (word[i] === tag[i]) i++;
  if (word.length === tag.length) {
    // A transposition of two neighbours, or (in words of 7 letters or more) one substitution.
    if (word[i] === tag[i + 1] && word[i + 1] === tag[i] && word.slice(i + 2) === tag.slice(i + 2)) return true;
    return word.length >= 7 && word.slice(i + 1) === tag.slice(i + 1);
  }
  // One letter inserted or deleted.
  return word.length < tag.length ? word.slice(i) === tag.slice(i + 1) : word.slice(i + 1) === tag.slice(i);
}

/** The one-word tags of five letters or more that a typo may stand for, in vocabulary order, by length. */
interface TypoCandidates {
  tags: string[];
  /** Length -> indexes into `tags` of that length, ascending. */
  byLength: Map<number, number[]>;
  /** Word -> the tag it reads as a typo of, or null for none. */
  answers: Map<string, string | null>;
}

/** The most words whose typo answer a vocabulary keeps; past it, they are forgotten together. */
const MAX_TYPO_ANSWERS = 10_000;

const candidatesOf = new WeakMap<ReadonlySet<string>, TypoCandidates>();

function typoCandidates(vocabulary: ReadonlySet<string>): TypoCandidates {
  let candidates = candidatesOf.get(vocabulary);
  if (!candidates) {
    const tags = [...vocabulary].filter((t) => t.length >= 5 && /^[a-z]+$/.test(t));
    const byLength = new Map<number, number[]>();
    tags.forEach((tag, i) => {
      const same = byLength.get(tag.length);
      if (same) same.push(i);
      else byLength.set(tag.length, [i]);
    });
    candidates = { tags, byLength, answers: new Map() };
    candidatesOf.set(vocabulary, candidates);
  }
  return candidates;
}

/**
 * The first tag, in vocabulary order, that `word` reads as a typo of. Only tags one letter
 * longer or shorter or of its length can be (isTypoOf): a query's every word used to be tried
 * against every one-word tag, which grows with the vocabulary. And only those that share its
 * first letter or its last: one edit or one swap of neighbours leaves one end of a word of five
 * letters or more as it was. Answers are kept per vocabulary (a new vocabulary is a new set):
 * the words of requests repeat from one query to the next.
 */
function typoOf(word: string, vocabulary: ReadonlySet<string>): string | undefined {
  const candidates = typoCandidates(vocabulary);
  const known = candidates.answers.get(word);
  if (known !== undefined) return known ?? undefined;
  const { tags, byLength } = candidates;
  const head = word[0];
  const tail = word[word.length - 1];
  let first = Number.POSITIVE_INFINITY;
  for (const length of [word.length - 1, word.length, word.length + 1]) {
    for (const i of byLength.get(length) ?? []) {
      if (i >= first) break;
      const tag = tags[i]!;
      if ((tag[0] === head || tag[tag.length - 1] === tail) && isTypoOf(word, tag)) {
        first = i;
        break;
      }
    }
  }
  if (candidates.answers.size >= MAX_TYPO_ANSWERS) candidates.answers.clear();
  candidates.answers.set(word, tags[first] ?? null);
  return tags[first];
}

/** Words that are never skills on their own, whatever the vocabulary says. */
export type WordFilter = (word: string) => boolean;

/**
 * Skills named in `words` (the query's words in order, lowercased): the longest run of up to
 * three words that is a synonym or a tag in `vocabulary` wins; then a single word of five letters
 * or more that reads as a typo of a known one-word tag (`isTypoOf`) counts as that tag. `ignorable` words (stop words,
 * request phrasing) are never skills alone.
 */
export function recognizeSkills(words: readonly string[], vocabulary: ReadonlySet<string>, ignorable: WordFilter): RecognizedSkill[] {
  const found = new Map<string, RecognizedSkill>();
  const used = new Array<boolean>(words.length).fill(false);
  const add = (tag: string, from: string, corrected: boolean) => {
    const skill = canonicalSkill(tag);
    if (!found.has(skill)) found.set(skill, { skill, forms: skillForms(skill), from, corrected });
  };
  const unused = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (used[k]) return false;
    return true;
  };
  for (let n = 3; n >= 1; n--) {
    for (let i = 0; i + n <= words.length; i++) {
      if (!unused(i, i + n)) continue;
      if (n === 1 && ignorable(words[i]!)) continue;
      // One word is its own run: no array and no joins for the most frequent case.
      const run = n === 1 ? undefined : words.slice(i, i + n);
      const text = run ? run.join(' ') : words[i]!;
      const form = tagForm(text);
      if (run && ignorable(run[0]!) && !GROUP_OF.has(form)) continue;
      const joined = run ? run.join('') : form;
      const known =
        GROUP_OF.has(form) || vocabulary.has(form) ? form : run && (GROUP_OF.has(joined) || vocabulary.has(joined)) ? joined : undefined;
      if (!known) continue;
      add(known, text, false);
      for (let k = i; k < i + n; k++) used[k] = true;
    }
  }
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (used[i] || word.length < 5 || ignorable(word) || !/^[a-z]+$/.test(word)) continue;
    const tag = typoOf(word, vocabulary);
    if (tag) {
      add(tag, word, true);
      used[i] = true;
    }
  }
  return [...found.values()];
}
