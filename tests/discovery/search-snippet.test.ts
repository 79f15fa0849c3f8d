// snippet() flattens whitespace lazily (only the head of a long description, only when needed):
// it must give exactly what flattening the whole text first gives.
import { describe, expect, it } from 'vitest';
import { snippet } from '../../src/search/service.ts';

/** The definition: every run of whitespace becomes one space, then the head is cut at a word. */
function reference(text: string, max = 280): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s.,;:!?-]+$/, '')}…`;
}

const word = (i: number) => ['build', 'a', 'React', 'dashboard,', 'fast.', 'Rust', 'é', 'payments-api'][i % 8]!;
const gaps = [' ', '  ', '\n', '\t', '\u00a0', ' \n\n ', '\r\n'];

describe('snippet', () => {
  it('equals flattening the whole text first, for clean and messy whitespace, short and long', () => {
    const texts: string[] = ['', '   ', 'one', '  padded  ', 'line\nbreak', `${'x'.repeat(400)}`, `${'word '.repeat(300)}`];
    for (let seed = 0; seed < 300; seed++) {
      const n = 1 + ((seed * 37) % 400);
      const parts: string[] = [];
      for (let i = 0; i < n; i++) parts.push(word(i + seed), seed % 3 === 0 ? ' ' : gaps[(i * seed) % gaps.length]!);
      texts.push((seed % 5 === 0 ? '\n  ' : '') + parts.join(''));
    }
    // Uneven whitespace right at the edge of the head that is flattened (4 x 280 characters).
    for (const at of [1115, 1119, 1120, 1121, 1125]) texts.push(`${'ab '.repeat(at / 3)}`.slice(0, at) + '\n\n\t  ' + 'tail '.repeat(50));
    for (const t of texts) {
      expect(snippet(t)).toBe(reference(t));
      expect(snippet(t, 40)).toBe(reference(t, 40));
    }
  });
});
