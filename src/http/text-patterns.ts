// The characters text may hold (issue 36: a counterparty's title with a line break or a bidi
// override could make the terms an owner confirms read otherwise). The spec states one of these
// patterns on every free-text string a request carries, and Ajv enforces them (with the `u` flag,
// as JSON Schema reads patterns); here each is named, with what it means in words for the 400's
// issue. tests/spec/spec-strictness.test.ts checks that every such string has the one its kind needs.
//
// Single-line text (names, titles, key names, a search) refuses control and format characters
// and line separators (Unicode Cc, Cf, Zl, Zp). Multi-line text (descriptions, notes, messages)
// keeps line feeds and tabs, and refuses the other control and format characters. A tag refuses
// controls and line separators and may hold format characters, which normalizing it removes
// (src/domain/gig.ts). The `line`, `text` and `tag` kinds need a visible character too.

export const TEXT_PATTERNS = {
  line: {
    pattern: '^\\p{Zs}*[^\\s\\p{Cc}\\p{Cf}][^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]*$',
    means: 'must be one line of text with a visible character: no line breaks, control or format characters (Unicode Cc, Cf, Zl, Zp)',
  },
  optionalLine: {
    pattern: '^[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]*$',
    means: 'must be one line of text: no line breaks, control or format characters (Unicode Cc, Cf, Zl, Zp)',
  },
  text: {
    pattern: '^[\\p{Zs}\\p{Zl}\\p{Zp}\\t\\n]*[^\\s\\p{Cc}\\p{Cf}][^\\x00-\\x08\\x0B-\\x1F\\x7F-\\x9F\\p{Cf}]*$',
    means: 'must have a visible character, and no control or format characters (Unicode Cc, Cf) but line feeds and tabs',
  },
  optionalText: {
    pattern: '^[^\\x00-\\x08\\x0B-\\x1F\\x7F-\\x9F\\p{Cf}]*$',
    means: 'must have no control or format characters (Unicode Cc, Cf) but line feeds and tabs',
  },
  tag: {
    pattern: '^[\\p{Zs}\\p{Cf}]*[^\\s\\p{Cc}\\p{Cf}][^\\p{Cc}\\p{Zl}\\p{Zp}]*$',
    means: 'must be one line with a visible character: no line breaks or control characters (Unicode Cc, Zl, Zp)',
  },
  tagInList: {
    pattern: '^[\\p{Zs}\\p{Cf}]*[^\\s\\p{Cc}\\p{Cf},][^\\p{Cc}\\p{Zl}\\p{Zp},]*$',
    means: 'must be one tag with a visible character: no commas, line breaks or control characters (Unicode Cc, Zl, Zp)',
  },
} as const;

export type TextKind = keyof typeof TEXT_PATTERNS;

/** Each pattern's meaning, by the pattern as the spec writes it (Ajv's error names the pattern). */
export const TEXT_PATTERN_MEANS: Record<string, string> = Object.fromEntries(
  Object.values(TEXT_PATTERNS).map(({ pattern, means }) => [pattern, means]),
);
