// Characters that can forge what a person reads (issue 36): a counterparty's title or tag with a
// line break, a zero-width character or a bidi override (U+202E) could make the terms an owner
// confirms read otherwise. Single-line text (names, titles, tags, display names, milestone titles,
// key names, a search) refuses control and format characters and line separators (Unicode Cc, Cf,
// Zl, Zp); multi-line text (descriptions, notes, messages) keeps line feeds and tabs, and refuses
// the other control and format characters. Tags are normalized instead: NFKC, format characters
// removed, so `ｒｕｓｔ`, `ru\u200bst` and `rust` are one tag. Each refusal is 400 naming the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectInvalid } from '../helpers/expect-error.ts';
import { shortlistedGig } from '../helpers/lifecycle.ts';
import { testFileServer, type TestUser } from '../helpers/server.ts';
import { cookieClient, signInDev } from '../helpers/session.ts';

const server = testFileServer();
let client: TestUser;
beforeAll(async () => {
  client = await server.user('Text Client');
});

/** Line breaks, controls, a zero-width space, a bidi override, a BOM: none belongs on one line. */
const NOT_ON_ONE_LINE = [
  'two\nlines',
  'cr\rhere',
  'tab\there',
  'nel\u0085here',
  'ls\u2028here',
  'ps\u2029here',
  'zw\u200bsp',
  'evil\u202etxt',
  '\ufeffbom',
  'del\u007f',
];
/** Multi-line text keeps these. */
const MULTI_LINE_KEEPS = ['First line.\nSecond line.', 'Indented:\n\t- item', 'Paragraphs\u2029too'];
/** And refuses these. */
const NOT_IN_TEXT = ['cr\r\nlf', 'bell\u0007', 'evil\u202etxt', 'zw\u200bsp', 'c1\u009bcontrol'];

const createGig = (body: Record<string, unknown>) => client.api.POST('/api/gigs', { body: { title: 'A gig', ...body } as never });

describe('single-line text', () => {
  it('refuses control and format characters and line separators in a gig title, naming it', async () => {
    for (const title of NOT_ON_ONE_LINE) expectInvalid(await createGig({ title }), 'body.title');
    expect((await createGig({ title: '  Logo — « design » 🦀 ' })).response.status).toBe(201);
  });

  it('refuses them in milestone titles, display names, key names and a search', async () => {
    const worker = await server.user('Text Worker');
    const gig = await shortlistedGig(client, worker);
    const negotiate = (title: string) =>
      client.api.POST('/api/negotiate', {
        body: { gig_id: gig.id, worker_user_id: worker.userId, milestones: [{ title, amount_cents: 1000 }] },
      });
    const session = await signInDev(server, { displayName: 'Key Namer' });
    const browser = cookieClient(server, session.cookie, { origin: server.url });
    for (const bad of ['Parser\n- Rate: $1.00', 'pay \u202e00.1$']) {
      expectInvalid(await negotiate(bad), 'body.milestones[0].title');
      expectInvalid(await client.api.PATCH('/api/profile/me', { body: { display_name: bad } }), 'body.display_name');
      expectInvalid(await browser.POST('/api/keys', { body: { name: bad } }), 'body.name');
      expectInvalid(await client.api.GET('/api/discovery/gigs', { params: { query: { q: bad } } }), 'query.q');
    }
  });

  it('says what is wrong in words', async () => {
    const res = await createGig({ title: 'evil\u202etxt' });
    expect((res.error as { error: { issues: unknown[] } }).error.issues).toEqual([
      {
        path: 'body.title',
        message: 'must be one line of text with a visible character: no line breaks, control or format characters (Unicode Cc, Cf, Zl, Zp)',
      },
    ]);
  });
});

describe('multi-line text', () => {
  it('keeps line feeds and tabs in a description, and refuses other control and format characters', async () => {
    for (const description of MULTI_LINE_KEEPS) {
      const res = await createGig({ description });
      expect(res.response.status, JSON.stringify(description)).toBe(201);
      expect(res.data!.description).toBe(description);
    }
    for (const description of NOT_IN_TEXT) expectInvalid(await createGig({ description }), 'body.description');
  });
});

describe('tags', () => {
  it('are NFKC-normalized, with format characters removed: ｒｕｓｔ, ru\u200bst and Rust are one tag', async () => {
    const res = await createGig({ tags: ['ｒｕｓｔ', 'ru\u200bst', 'Rust', '\u202ewasm'] });
    expect(res.response.status).toBe(201);
    expect(res.data!.tags).toEqual(['rust', 'wasm']);
    const found = await client.api.GET('/api/discovery/gigs', { params: { query: { tags: ['ｒｕ\u200bｓｔ'] } } });
    expect(found.data!.data.map((g) => g.id)).toContain(res.data!.id);
    const profile = await client.api.PATCH('/api/profile/me', { body: { skills: ['ＷＡＳＭ', 'ru\u200dst'] } });
    expect(profile.data!.skills).toEqual(['wasm', 'rust']);
  });

  it('refuse line breaks and controls, and a tag of nothing visible, naming the tag', async () => {
    for (const tag of ['two\nlines', 'bell\u0007', 'ls\u2028x', '\u200b', ' \u200b '])
      expectInvalid(await createGig({ tags: ['ok', tag] }), 'body.tags[1]');
    expectInvalid(await client.api.GET('/api/discovery/gigs', { params: { query: { tags: ['ok', 'bell\u0007'] } } }), 'query.tags[1]');
  });
});
