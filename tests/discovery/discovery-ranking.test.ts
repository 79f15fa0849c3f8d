// The pure parts of discovery's ranking: reading q, skills and typos, common words, fusion.
import { describe, expect, it } from 'vitest';
import { parseText, usesOperators, withoutCommonWords, words } from '../../src/search/query.ts';
import { isTypoOf, recognizeSkills, skillForms } from '../../src/search/skills.ts';
import {
  applyFeedback,
  compensationFit,
  DEFAULT_WEIGHTS,
  freshness,
  fuse,
  reciprocalRankFusion,
  structuredScore,
} from '../../src/search/scoring.ts';
import { decodeRankedCursor, encodeRankedCursor } from '../../src/search/cursor.ts';
import { sealCursor } from '../../src/cursor-seal.ts';
import { ageReason, money, payReason, textReasons } from '../../src/search/reasons.ts';

const vocabulary = new Set(['python', 'rust', 'react-native', 'kubernetes', 'go-to-market', 'logo', 'design', 'audio', 'writer']);

describe('reading q', () => {
  it('keeps the words Postgres keeps whole', () => {
    expect(words('C++, C#, .NET and Node.js; go-to-market!')).toEqual(['c++', 'c#', '.net', 'and', 'node.js', 'go-to-market']);
  });

  it('searches any of the words, skips request phrasing, and adds the synonyms of named skills', () => {
    const t = parseText('need someone for k8s and react native', vocabulary);
    expect(t.mode).toBe('any');
    expect(t.skills.map((s) => s.skill)).toEqual(['react-native', 'kubernetes']);
    expect(t.websearch).toBe('k8s or react or native or react-native or rn or kubernetes or kube');
    expect(t.terms).toContainEqual({ term: 'kubernetes', from: 'k8s' });
  });

  it('adds the words as a phrase for short queries, and honours websearch syntax as typed', () => {
    expect(parseText('logo design', vocabulary).websearch).toBe('logo or design or "logo design"');
    expect(usesOperators('"logo design" -vector')).toBe(true);
    expect(usesOperators('rust or go')).toBe(true);
    expect(usesOperators('go-to-market')).toBe(false);
    expect(parseText('"logo design" -vector', vocabulary)).toMatchObject({ mode: 'all', websearch: '"logo design" -vector' });
  });

  it('has nothing to search in stop words, punctuation or request phrasing', () => {
    for (const q of ['the of and', '!!! ??', 'looking for someone', '']) expect(parseText(q, vocabulary).websearch).toBeNull();
  });

  it('reads a typo of a known one-word tag as that tag, but not a different word', () => {
    expect(isTypoOf('pyton', 'python')).toBe(true);
    expect(isTypoOf('ruts', 'rust')).toBe(true);
    expect(recognizeSkills(['ruts'], vocabulary, () => false)).toEqual([]); // four letters: too short to guess
    expect(isTypoOf('kubernets', 'kubernetes')).toBe(true);
    expect(isTypoOf('terrafrom', 'terraform')).toBe(true);
    expect(isTypoOf('audit', 'audio')).toBe(false);
    expect(isTypoOf('write', 'writer')).toBe(false);
    const skills = recognizeSkills(['pyton', 'scraper', 'audit'], vocabulary, () => false);
    expect(skills).toEqual([{ skill: 'python', forms: ['python'], from: 'pyton', corrected: true }]);
  });

  it('reads a typo as the first tag it could stand for, in the vocabulary order, whatever their lengths', () => {
    // 'flaks' is one edit from each: a letter missing (flasks), swapped (flask), extra (flak is too short to guess).
    const skillOf = (tags: string[]) => recognizeSkills(['flaks'], new Set(tags), () => false).map((s) => s.skill);
    expect(skillOf(['flasks', 'flask'])).toEqual(['flasks']);
    expect(skillOf(['flask', 'flasks'])).toEqual(['flask']);
    expect(skillOf(['rust', 'flakes', 'flask'])).toEqual(['flakes']);
    expect(skillOf(['rust', 'flame'])).toEqual([]);
  });

  it('reads a typo at either end of a word, and answers each vocabulary for itself', () => {
    // Only tags that share the word's first letter or its last are tried: a slip at one end keeps the other.
    const skillOf = (word: string, tags: ReadonlySet<string> = vocabulary) =>
      recognizeSkills([word], tags, () => false).map((s) => s.skill);
    expect(skillOf('ython')).toEqual(['python']);
    expect(skillOf('tubernetes')).toEqual(['kubernetes']);
    expect(skillOf('pythno')).toEqual(['python']);
    expect(skillOf('kubernetez')).toEqual(['kubernetes']);
    // Answers are kept per vocabulary: another set of tags is asked afresh, both ways.
    expect(skillOf('pyton')).toEqual(['python']);
    expect(skillOf('pyton', new Set(['rust']))).toEqual([]);
    expect(skillOf('pyton', new Set(['rust', 'python']))).toEqual(['python']);
  });

  it('knows the synonyms of a skill', () => {
    expect(skillForms('k8s')).toEqual(['k8s', 'kubernetes', 'kube']);
    expect(skillForms('Ruby on Rails')).toEqual(['ruby-on-rails', 'rails', 'ror']);
    expect(skillForms('elixir')).toEqual(['elixir']);
  });

  it('drops words most gigs contain, keeps the rarest when all are common, and at most eight', () => {
    const t = parseText('senior python developer for data pipelines', vocabulary);
    const share = new Map([
      ['senior', 0.2],
      ['python', 0.12],
      ['developer', 0.3],
      ['data', 0.15],
      ['pipelines', 0.01],
    ]);
    expect(withoutCommonWords(t, share, 0.1).websearch).toBe('pipelines or "senior python developer for data pipelines"');
    expect(withoutCommonWords(parseText('senior developer', vocabulary), share, 0.1).websearch).toBe('senior or "senior developer"');
    const long = parseText('alpha bravo charlie delta echo foxtrot golf hotel india juliet', new Set());
    expect(withoutCommonWords(long, new Map(), 0.1).websearch!.split(' or ')).toHaveLength(8);
  });

  it('keeps all the words of a short query, for an arm of its own, when a common one was dropped', () => {
    const share = new Map([
      ['python', 0.05],
      ['developer', 0.3],
    ]);
    expect(withoutCommonWords(parseText('python developer', vocabulary), share, 0.1)).toMatchObject({
      websearch: 'python or "python developer"',
      allWords: 'python developer',
    });
    // Nothing dropped: the words' own arms read them.
    expect(withoutCommonWords(parseText('python developer', vocabulary), new Map(), 0.1).allWords).toBeNull();
    // Operators: the searcher's own query.
    expect(withoutCommonWords(parseText('"python developer"', vocabulary), share, 0.1).allWords).toBeNull();
    // Longer than a phrase: no such arm.
    const long = parseText('senior python developer for data pipelines and more', vocabulary);
    expect(withoutCommonWords(long, share, 0.1).allWords).toBeNull();
  });
});

describe('scores', () => {
  it('keeps every component in [0, 1] and drops the ones that do not apply', () => {
    const w = DEFAULT_WEIGHTS;
    expect(freshness(0, w)).toBe(1);
    expect(freshness(w.freshnessHalfLifeDays, w)).toBeCloseTo(0.5, 12);
    expect(compensationFit({ low: 9000, high: 12000 }, 8000)).toBe(1);
    expect(compensationFit({ low: 6000, high: 10000 }, 8000)).toBe(0.75);
    expect(structuredScore({ skills: null, compensation: null, freshness: 0.4 }, w)).toBeCloseTo(0.4, 12);
    expect(fuse({ lexical: null, structured: 0.3, semantic: null }, w)).toBeCloseTo(0.3, 12);
    const all = fuse({ lexical: 1, structured: 1, semantic: 1 }, w);
    expect(all).toBeCloseTo(1, 12);
    expect(applyFeedback(0.5, 'up')).toBeCloseTo(0.65, 12);
    expect(applyFeedback(0.5, 'down')).toBe(0.25);
    expect(applyFeedback(0.5, null)).toBe(0.5);
  });

  it('fuses rankings by reciprocal rank, scaled so that first everywhere is 1', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b'],
      ['a', 'c'],
    ]);
    expect(fused.get('a')).toBe(1);
    expect(fused.get('b')).toBeLessThan(1);
  });

  it('says why in words', () => {
    expect(money(8000, 'USD')).toBe('$80');
    expect(money(250050, 'EUR')).toBe('€2,500.50');
    // Formatters are reused per currency and digits: whole and fractional amounts keep their own.
    expect([money(8050, 'USD'), money(8000, 'USD'), money(8050, 'USD')]).toEqual(['$80.50', '$80', '$80.50']);
    // A code Intl refuses (an external gig's currency can be anything) reads as the number and the code, every time.
    expect([money(1250, 'dollars'), money(1250, 'dollars')]).toEqual(['12.50 dollars', '12.50 dollars']);
    expect(payReason('hourly', 'USD', { low: 9000, high: 9000 }, 8000)).toBe('pays at least $80/h');
    expect(payReason('fixed', 'GBP', { low: 100000, high: 300000 }, 200000)).toBe('pays up to £3,000 fixed, at least £2,000 fixed asked');
    expect(ageReason(0.2)).toBe('posted today');
    expect(ageReason(2.5)).toBe('posted 2 days ago');
    expect(textReasons({ title: ['rust'], tags: ['rust', 'kubernetes'], description: [] }, new Map([['kubernetes', 'k8s']]))).toEqual([
      'title matches "rust"',
      'tags match "kubernetes" (for "k8s")',
    ]);
    // Several words in a field, each reported once, in its best field: "k8s" and "webassembly"
    // stand for words already reported.
    const origin = new Map([
      ['kubernetes', 'k8s'],
      ['webassembly', 'wasm'],
    ]);
    expect(
      textReasons({ title: ['rust', 'wasm'], tags: ['rust', 'kubernetes', 'k8s', 'go'], description: ['webassembly', 'tokio'] }, origin),
    ).toEqual(['title matches "rust", "wasm"', 'tags match "kubernetes" (for "k8s"), "go"', 'description mentions "tokio"']);
  });
});

describe('ranked cursors', () => {
  it('continue only the query they came from', () => {
    const cursor = encodeRankedCursor('abc', { asOf: 1, score: 0.5, id: '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f' });
    expect(decodeRankedCursor(cursor, 'abc')).toEqual({ asOf: 1, score: 0.5, id: '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f' });
    expect(() => decodeRankedCursor(cursor, 'other')).toThrow(/different query/);
    expect(() => decodeRankedCursor('bm9wZQ', 'abc')).toThrow(/not a cursor/);
  });

  it("carry the first page's database time, so that later pages rank the same candidates", () => {
    const position = { asOf: 1, score: 0.5, id: '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f', createdBefore: 1_795_400_000_123_456 };
    const cursor = encodeRankedCursor('abc', position);
    expect(cursor.length).toBeLessThanOrEqual(200);
    expect(decodeRankedCursor(cursor, 'abc')).toEqual(position);
    const made = sealCursor({ f: 'abc', t: 1, s: 0.5, i: position.id, c: 'yesterday' });
    expect(() => decodeRankedCursor(made, 'abc')).toThrow(/not a cursor/);
  });
});
