import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer } from '../helpers/server.ts';
import { signInDev } from '../helpers/session.ts';
import { users, vouches } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { expectInvalid } from '../helpers/expect-error.ts';

const server = testFileServer();

const userRow = async (id: string) => (await server.db.select().from(users).where(eq(users.id, id)))[0]!;

describe('GET /api/profile/me', () => {
  it("returns the caller's own profile, by key or by session", async () => {
    const ada = await server.user('Ada');
    const res = await ada.api.GET('/api/profile/me');
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({
      user_id: ada.userId,
      display_name: 'Ada',
      bio: '',
      skills: [],
      portfolio_website_url: null,
      contact_details: null,
      email: null,
      resume_url: null,
      github_login: null,
      approval_policy: 'keys_may_approve',
      vouched_by: [],
      vouch_count: 0,
      review_count: 0,
      average_rating: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const session = await signInDev(server, { userId: ada.userId });
    expect((await session.api.GET('/api/profile/me')).data).toEqual(res.data);
  });

  it('needs credentials', async () => {
    const res = await server.anonymous.GET('/api/profile/me');
    expect(res.response.status).toBe(401);
    expect(res.error!.error.code).toBe('UNAUTHENTICATED');
  });
});

describe('PATCH /api/profile/me', () => {
  it('updates the given fields, normalizes skills, and records profile.updated', async () => {
    const me = await server.user('Grace');
    const before = await userRow(me.userId);
    const res = await me.api.PATCH('/api/profile/me', {
      body: {
        display_name: '  Grace Hopper ',
        bio: 'Compilers.',
        skills: ['COBOL', ' cobol ', 'Compilers', 'Technical Writing', 'compilers'],
        portfolio_website_url: 'https://grace.example/work',
      },
    });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      user_id: me.userId,
      display_name: 'Grace Hopper',
      bio: 'Compilers.',
      skills: ['cobol', 'compilers', 'technical writing'],
      portfolio_website_url: 'https://grace.example/work',
    });
    const row = await userRow(me.userId);
    expect(row).toMatchObject({
      displayName: 'Grace Hopper',
      bio: 'Compilers.',
      skills: ['cobol', 'compilers', 'technical writing'],
      portfolioWebsiteUrl: 'https://grace.example/work',
    });
    expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());

    const events = await eventsForResource(server.db, 'user', me.userId);
    expect(events.map((e) => e.type)).toEqual(['profile.updated']);
    expect(events[0]).toMatchObject({ actorUserId: me.userId, audienceUserIds: [me.userId] });
    expect(events[0]!.data).toMatchObject({ display_name: 'Grace Hopper', skills: ['cobol', 'compilers', 'technical writing'] });
  });

  it('leaves fields out of the body unchanged, and null removes the website', async () => {
    const me = await server.user('Linus');
    await me.api.PATCH('/api/profile/me', { body: { bio: 'Kernels.', skills: ['c'], portfolio_website_url: 'http://linus.example' } });
    const res = await me.api.PATCH('/api/profile/me', { body: { portfolio_website_url: null } });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ display_name: 'Linus', bio: 'Kernels.', skills: ['c'], portfolio_website_url: null });
    expect((await userRow(me.userId)).portfolioWebsiteUrl).toBeNull();
    const cleared = await me.api.PATCH('/api/profile/me', { body: { skills: [], bio: '' } });
    expect(cleared.data).toMatchObject({ bio: '', skills: [] });
  });

  it('sets and clears the private contact details, which the public profile never shows', async () => {
    const me = await server.user('Margaret');
    const set = await me.api.PATCH('/api/profile/me', { body: { contact_details: 'margaret@example.com' } });
    expect(set.data).toMatchObject({ contact_details: 'margaret@example.com' });
    expect((await userRow(me.userId)).contactDetails).toBe('margaret@example.com');
    const other = await server.user('Curious');
    const pub = await other.api.GET('/api/profile/{userId}', { params: { path: { userId: me.userId } } });
    expect(JSON.stringify(pub.data)).not.toContain('margaret@example.com');
    const tooLong = await me.api.PATCH('/api/profile/me', { body: { contact_details: 'x'.repeat(501) } });
    expect(tooLong.response.status).toBe(400);
    expect(tooLong.error!.error.issues.map((i) => i.path)).toContain('body.contact_details');
    const cleared = await me.api.PATCH('/api/profile/me', { body: { contact_details: null } });
    expect(cleared.data).toMatchObject({ contact_details: null });
    expect((await userRow(me.userId)).contactDetails).toBeNull();
  });

  it('works from a browser session too', async () => {
    const session = await signInDev(server, { displayName: 'Browser Person' });
    const res = await session.api.PATCH('/api/profile/me', { body: { bio: 'Set in the browser.' } });
    expect(res.response.status).toBe(200);
    expect((await userRow(session.userId)).bio).toBe('Set in the browser.');
  });

  it('rejects invalid input, naming the field, and changes nothing', async () => {
    const me = await server.user('Careful');
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ display_name: '' }, 'body.display_name'],
      [{ display_name: '   ' }, 'body.display_name'],
      [{ display_name: 'x'.repeat(101) }, 'body.display_name'],
      [{ bio: 'x'.repeat(5001) }, 'body.bio'],
      [{ skills: 'rust' }, 'body.skills'],
      [{ skills: Array.from({ length: 51 }, (_, i) => `s${i}`) }, 'body.skills'],
      [{ skills: ['ok', ''] }, 'body.skills[1]'],
      [{ skills: ['x'.repeat(41)] }, 'body.skills[0]'],
      [{ skills: ['  '] }, 'body.skills[0]'],
      [{ portfolio_website_url: 'ftp://files.example' }, 'body.portfolio_website_url'],
      [{ portfolio_website_url: 'not a url' }, 'body.portfolio_website_url'],
      [{ portfolio_website_url: `https://x.example/${'a'.repeat(500)}` }, 'body.portfolio_website_url'],
      [{ github_login: 'mallory' }, 'body.github_login'],
    ];
    for (const [body, path] of cases) {
      const res = await me.api.PATCH('/api/profile/me', { body: body as never });
      expect(res.response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.error!.error.code).toBe('VALIDATION_FAILED');
      expect(
        res.error!.error.issues.map((i) => i.path),
        JSON.stringify(body).slice(0, 80),
      ).toContain(path);
    }
    expect(await userRow(me.userId)).toMatchObject({
      displayName: 'Careful',
      bio: '',
      skills: [],
      portfolioWebsiteUrl: null,
      githubLogin: null,
    });
    expect(await eventsForResource(server.db, 'user', me.userId)).toEqual([]);
  });

  it('needs credentials', async () => {
    const res = await server.anonymous.PATCH('/api/profile/me', { body: { bio: 'x' } });
    expect(res.response.status).toBe(401);
  });
});

describe('GET /api/profile/{userId}', () => {
  it('shows the public profile with who vouched (newest first) and the linked GitHub account', async () => {
    const [viewer, subject, voucherA, voucherB] = await server.users('Viewer', 'Subject', 'Voucher A', 'Voucher B');
    await subject.api.PATCH('/api/profile/me', {
      body: { bio: 'Public bio.', skills: ['Rust'], portfolio_website_url: 'https://subject.example' },
    });
    await server.db
      .update(users)
      .set({ githubId: 4242, githubLogin: 'subject-gh', resumeKey: 'resumes/x.pdf' })
      .where(eq(users.id, subject.userId));
    await server.db
      .insert(vouches)
      .values({ voucherUserId: voucherA.userId, vouchedUserId: subject.userId, createdAt: new Date('2026-01-01T00:00:00Z') });
    await server.db
      .insert(vouches)
      .values({ voucherUserId: voucherB.userId, vouchedUserId: subject.userId, createdAt: new Date('2026-01-02T00:00:00Z') });

    const res = await viewer.api.GET('/api/profile/{userId}', { params: { path: { userId: subject.userId } } });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({
      user_id: subject.userId,
      display_name: 'Subject',
      bio: 'Public bio.',
      skills: ['rust'],
      vouched_by: [
        { user_id: voucherB.userId, display_name: 'Voucher B', vouched_at: '2026-01-02T00:00:00.000Z' },
        { user_id: voucherA.userId, display_name: 'Voucher A', vouched_at: '2026-01-01T00:00:00.000Z' },
      ],
      vouch_count: 2,
      review_count: 0,
      average_rating: null,
      github: { login: 'subject-gh', url: 'https://github.com/subject-gh' },
      created_at: expect.any(String),
    });
    // The owner-only fields stay private.
    expect(res.data).not.toHaveProperty('portfolio_website_url');
    expect(res.data).not.toHaveProperty('resume_url');

    const own = await subject.api.GET('/api/profile/me');
    expect(own.data!.vouched_by.map((v) => v.display_name)).toEqual(['Voucher B', 'Voucher A']);
    expect(own.data!.vouch_count).toBe(2);
    expect(own.data!.github_login).toBe('subject-gh');
  });

  it('shows github: null when no account is linked', async () => {
    const [viewer, plain] = await server.users('Viewer 2', 'Plain');
    const res = await viewer.api.GET('/api/profile/{userId}', { params: { path: { userId: plain.userId } } });
    expect(res.data).toMatchObject({ github: null, vouched_by: [] });
  });

  it('answers 404 for an unknown user and 400 for an id that is not a UUID', async () => {
    const viewer = await server.user('Viewer 3');
    const unknown = await viewer.api.GET('/api/profile/{userId}', { params: { path: { userId: '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b' } } });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error!.error.code).toBe('NOT_FOUND');
    const bad = await viewer.api.GET('/api/profile/{userId}', { params: { path: { userId: 'ada' } } });
    expect(bad.response.status).toBe(400);
    expect(bad.error!.error.issues[0]!.path).toBe('path.userId');
  });

  it('needs credentials', async () => {
    const someone = await server.user('Someone');
    const res = await server.anonymous.GET('/api/profile/{userId}', { params: { path: { userId: someone.userId } } });
    expect(res.response.status).toBe(401);
  });
});

describe('PATCH /api/profile/me: email', () => {
  it('is set, validated, bounded, cleared, and never in the public profile', async () => {
    const ada = await server.user('Ada');
    const set = await ada.api.PATCH('/api/profile/me', { body: { email: 'ada@example.com' } });
    expect(set.response.status).toBe(200);
    expect(set.data!.email).toBe('ada@example.com');
    expect((await ada.api.GET('/api/profile/me')).data!.email).toBe('ada@example.com');
    const other = await server.user('Other');
    const pub = await other.api.GET('/api/profile/{userId}', { params: { path: { userId: ada.userId } } });
    expect(pub.response.status).toBe(200);
    expect(JSON.stringify(pub.data)).not.toContain('ada@example.com');

    expectInvalid(await ada.api.PATCH('/api/profile/me', { body: { email: 'not an address' } }), 'body.email');
    // Stricter than the standard, as the spec says: the domain has a dot. One issue, in words.
    for (const email of ['ops@localhost', '0@com']) {
      const refused = await ada.api.PATCH('/api/profile/me', { body: { email } });
      expect(refused.error?.error.issues, email).toEqual([
        { path: 'body.email', message: 'must be an email address whose domain has at least one dot (ops@example.com)' },
      ]);
    }
    expectInvalid(await ada.api.PATCH('/api/profile/me', { body: { email: `${'a'.repeat(250)}@example.com` } }), 'body.email');
    const cleared = await ada.api.PATCH('/api/profile/me', { body: { email: null } });
    expect(cleared.data!.email).toBeNull();
  });
});
