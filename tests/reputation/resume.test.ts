// Resumes (issue #11): upload (POST /api/profile/me/resume), delete, and the download at
// resume_url, with real files made in tests/helpers/files.ts; and the database after each.
import net from 'node:net';
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { appliedGig } from '../helpers/lifecycle.ts';
import { expectError, expectInvalid } from '../helpers/expect-error.ts';
import { storedFiles, users } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { UPLOAD_MAX_BYTES } from '../../src/domain/uploads.ts';
import {
  formWith,
  jpegFile,
  oversizedFile,
  paddedPngFile,
  pdfFile,
  pdfHtmlPolyglot,
  pdfWithTrailingHtml,
  pngFile,
  pngWithText,
  textFile,
  webpFile,
} from '../helpers/files.ts';

const server = testFileServer();

/** POST /api/profile/me/resume with a form, through the spec-checking client. */
function upload(user: User, form: FormData | undefined, headers: Record<string, string> = {}) {
  return user.api.POST('/api/profile/me/resume', {
    body: form as never,
    bodySerializer: (body: unknown) => body as never,
    params: { header: headers },
  });
}

const uploadFile = (user: User, bytes: Uint8Array, headers: Record<string, string> = {}) =>
  upload(user, formWith('resume', bytes), headers);

function download(userId: string, as?: User) {
  const api = as ? as.api : server.anonymous;
  return api.GET('/api/profile/{userId}/resume', { params: { path: { userId } }, parseAs: 'arrayBuffer' });
}

const filesOf = (userId: string) => server.db.select().from(storedFiles).where(eq(storedFiles.ownerUserId, userId));
const resumeKeyOf = async (userId: string) => (await server.db.select().from(users).where(eq(users.id, userId)))[0]!.resumeKey;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const resumeUrlOf = (userId: string) => `${server.config.publicUrl}/api/profile/${userId}/resume`;

/** Nothing stored for the user, and no resume on their row. */
async function expectNoResume(userId: string) {
  expect(await filesOf(userId)).toEqual([]);
  expect(await resumeKeyOf(userId)).toBeNull();
}

describe('POST /api/profile/me/resume', () => {
  it('stores a PDF: the row holds the bytes, their type, size and SHA-256; the profile links it', async () => {
    const ada = await server.user('Ada');
    const pdf = pdfFile('Ada Lovelace');
    const res = await uploadFile(ada, pdf);
    expect(res.response.status).toBe(200);
    expect(res.data!.resume_url).toBe(resumeUrlOf(ada.userId));
    expect((await ada.api.GET('/api/profile/me')).data!.resume_url).toBe(resumeUrlOf(ada.userId));

    const [row, ...others] = await filesOf(ada.userId);
    expect(others).toEqual([]);
    expect(row).toMatchObject({ purpose: 'resume', contentType: 'application/pdf', sizeBytes: pdf.length, sha256: sha256(pdf) });
    expect(Buffer.compare(row!.data, pdf)).toBe(0);
    expect(await resumeKeyOf(ada.userId)).toBe(row!.id);

    const events = await eventsForResource(server.db, 'user', ada.userId);
    expect(events.map((e) => e.type)).toEqual(['profile.updated']);
    expect((events[0]!.data as { resume_url: string }).resume_url).toBe(resumeUrlOf(ada.userId));
  });

  it.each([
    ['PNG', pngFile(), 'image/png'],
    ['JPEG', jpegFile(), 'image/jpeg'],
    ['WebP', webpFile(), 'image/webp'],
  ])('stores a %s by its content, whatever its name and declared type say', async (_name, bytes, type) => {
    const user = await server.user();
    const res = await upload(user, formWith('resume', bytes, 'resume.pdf', 'application/pdf'));
    expect(res.response.status).toBe(200);
    const [row] = await filesOf(user.userId);
    expect(row).toMatchObject({ contentType: type, sizeBytes: bytes.length });
  });

  it('takes a PDF whose text quotes a form tag (PDF forms use it as XML)', async () => {
    const user = await server.user();
    expect((await uploadFile(user, pdfFile('Built a <form> builder'))).response.status).toBe(200);
  });

  it('takes a file of exactly 5 MB', async () => {
    const user = await server.user();
    const bytes = paddedPngFile(UPLOAD_MAX_BYTES);
    expect(bytes.length).toBe(UPLOAD_MAX_BYTES);
    expect((await uploadFile(user, bytes)).response.status).toBe(200);
    expect((await filesOf(user.userId))[0]).toMatchObject({ contentType: 'image/png', sizeBytes: UPLOAD_MAX_BYTES });
  });

  it.each([
    ['a text file named resume.pdf, declared application/pdf', textFile(), /of no type this API takes/],
    ['a PDF/HTML polyglot (a PDF header, then an HTML page)', pdfHtmlPolyglot(), /holds HTML markup/],
    ['a valid PDF followed by an HTML page', pdfWithTrailingHtml(), /holds HTML markup/],
    ['a PDF header without the end of a PDF', oversizedFile(2000), /does not end as one/],
    ['an empty file', Buffer.alloc(0), /empty/],
    ['a GIF (an image of another type)', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), /image\/gif/],
    [
      'a PNG carrying an HTML page in a text chunk',
      pngWithText('Comment', Buffer.from('<HTML><Script>alert(1)</Script>')),
      /holds HTML markup/,
    ],
  ])('refuses %s with 415, storing nothing', async (_name, bytes, message) => {
    const user = await server.user();
    expectError(await uploadFile(user, bytes), 415, 'UNSUPPORTED_MEDIA_TYPE', message);
    await expectNoResume(user.userId);
    expect(await eventsForResource(server.db, 'user', user.userId)).toEqual([]);
  });

  it('refuses a file of 5 MB and one byte with 413, storing nothing', async () => {
    const user = await server.user();
    expectError(await uploadFile(user, oversizedFile(UPLOAD_MAX_BYTES + 1)), 413, 'PAYLOAD_TOO_LARGE', /at most 5242880 bytes/);
    await expectNoResume(user.userId);
  });

  /**
   * Sends a request head and the start of a body over a raw socket, never the end of it, and
   * resolves with everything the server answers until it closes the connection.
   */
  function unfinishedUpload(user: User, headers: string[], body: Buffer[]): Promise<string> {
    const { port } = new URL(server.url);
    const head = [
      'POST /api/profile/me/resume HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${user.apiKey}`,
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
      ...headers,
      '',
      '',
    ].join('\r\n');
    return new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(head);
        for (const chunk of body) socket.write(chunk);
      });
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => (text += d));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.setTimeout(10_000, () => {
        socket.destroy();
        reject(new Error(`no answer in 10 s; got ${JSON.stringify(text.slice(0, 300))}`));
      });
    });
  }
  const BOUNDARY = 'resume-boundary';
  const partHead = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="resume"; filename="big.pdf"\r\n\r\n%PDF-1.4\n`);

  it('answers 413 from Content-Length alone, without reading the rest, and closes the connection', async () => {
    const user = await server.user();
    // Only the first bytes of the announced 50 MB are ever sent: the answer must not wait for the rest.
    const answer = await unfinishedUpload(user, [`Content-Length: ${50 * 1024 * 1024}`], [partHead]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
    await expectNoResume(user.userId);
  });

  it('answers 413 once a streamed (chunked) file passes 5 MB, without waiting for its end', async () => {
    const user = await server.user();
    const data = Buffer.alloc(UPLOAD_MAX_BYTES + 64 * 1024, 0x20);
    const chunked = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
    // The part never ends and the terminating chunk is never sent.
    const answer = await unfinishedUpload(user, ['Transfer-Encoding: chunked'], [chunked(partHead), chunked(data)]);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('at most 5242880 bytes');
    await expectNoResume(user.userId);
  });

  it('answers a form without the field with 400 naming body.resume', async () => {
    const user = await server.user();
    const res = await upload(user, new FormData());
    expectInvalid(res, 'body.resume');
    expect((res.error as { error: { issues: unknown[] } }).error.issues).toEqual([{ path: 'body.resume', message: 'is required' }]);
    await expectNoResume(user.userId);
  });

  it('answers another field, a text field, or the file twice with 400 naming the field', async () => {
    const user = await server.user();
    expectInvalid(await upload(user, formWith('file', pdfFile())), 'body.file');
    const text = new FormData();
    text.append('resume', 'my resume, as text');
    expectError(await upload(user, text), 400, 'VALIDATION_FAILED', /body\.resume: must be a file/);
    const twice = formWith('resume', pdfFile());
    twice.append('resume', new Blob([new Uint8Array(pngFile())]), 'second.png');
    expectError(await upload(user, twice), 400, 'VALIDATION_FAILED', /body\.resume: must be sent once/);
    await expectNoResume(user.userId);
  });

  it('answers no body with 400, a JSON body with 415, and a malformed multipart body with 400', async () => {
    const user = await server.user();
    const post = (headers: Record<string, string>, body?: string) =>
      fetch(`${server.url}/api/profile/me/resume`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.apiKey}`, ...headers },
        body,
      });
    const none = await post({});
    expect(none.status).toBe(400);
    expect((await none.json()).error.issues).toEqual([{ path: 'body', message: 'is required' }]);
    const json = await post({ 'content-type': 'application/json' }, '{"resume": "JVBERi0="}');
    expect(json.status).toBe(415);
    expect((await json.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const broken = await post(
      { 'content-type': 'multipart/form-data; boundary=x' },
      '--x\r\nContent-Disposition: form-data; name="resume"',
    );
    expect(broken.status).toBe(400);
    expect((await broken.json()).error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: 'body' }] });
    await expectNoResume(user.userId);
  });

  it('needs credentials: 401, storing nothing', async () => {
    const before = await server.db.select({ id: storedFiles.id }).from(storedFiles);
    const res = await fetch(`${server.url}/api/profile/me/resume`, { method: 'POST', body: formWith('resume', pdfFile()) });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('UNAUTHENTICATED');
    expect(await server.db.select({ id: storedFiles.id }).from(storedFiles)).toEqual(before);
  });

  it('replaces the previous resume: one row, the new file, the old row gone', async () => {
    const user = await server.user();
    expect((await uploadFile(user, pdfFile())).response.status).toBe(200);
    const [first] = await filesOf(user.userId);
    const png = pngFile([0, 0, 255]);
    expect((await uploadFile(user, png)).response.status).toBe(200);
    const rows = await filesOf(user.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).not.toBe(first!.id);
    expect(rows[0]).toMatchObject({ contentType: 'image/png', sha256: sha256(png) });
    expect(await resumeKeyOf(user.userId)).toBe(rows[0]!.id);
    const served = await download(user.userId, user);
    expect(Buffer.compare(Buffer.from(served.data as ArrayBuffer), png)).toBe(0);
  });
});

describe('Idempotency-Key with a file', () => {
  it('replays the same file under the same key (whatever its filename), storing it once', async () => {
    const user = await server.user();
    const pdf = pdfFile('Once');
    const first = await uploadFile(user, pdf, { 'Idempotency-Key': 'resume-1' });
    expect(first.response.status).toBe(200);
    const again = await upload(user, formWith('resume', pdf, 'renamed.pdf'), { 'Idempotency-Key': 'resume-1' });
    expect(again.response.status).toBe(200);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data).toEqual(first.data);
    expect(await filesOf(user.userId)).toHaveLength(1);
    expect(await eventsForResource(server.db, 'user', user.userId)).toHaveLength(1);
  });

  it('refuses another file under the same key with 422, keeping the first', async () => {
    const user = await server.user();
    const pdf = pdfFile('First');
    expect((await uploadFile(user, pdf, { 'Idempotency-Key': 'resume-2' })).response.status).toBe(200);
    const other = await uploadFile(user, pdfFile('Second'), { 'Idempotency-Key': 'resume-2' });
    expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
    const rows = await filesOf(user.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sha256).toBe(sha256(pdf));
  });

  it('does not record a refused file (415) as success: a retry with the right file under a new key works', async () => {
    const user = await server.user();
    expectError(await uploadFile(user, textFile(), { 'Idempotency-Key': 'resume-3' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    // The refusal is recorded for its key (Stripe's semantics): the same request gets it again.
    expectError(await uploadFile(user, textFile(), { 'Idempotency-Key': 'resume-3' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await uploadFile(user, pdfFile(), { 'Idempotency-Key': 'resume-4' })).response.status).toBe(200);
    expect(await filesOf(user.userId)).toHaveLength(1);
  });
});

describe('DELETE /api/profile/me/resume', () => {
  it('deletes the file and unlinks it, with profile.updated', async () => {
    const user = await server.user();
    await uploadFile(user, pdfFile());
    const res = await user.api.DELETE('/api/profile/me/resume');
    expect(res.response.status).toBe(200);
    expect(res.data!.resume_url).toBeNull();
    await expectNoResume(user.userId);
    expect((await eventsForResource(server.db, 'user', user.userId)).map((e) => e.type)).toEqual(['profile.updated', 'profile.updated']);
    expectError(await download(user.userId, user), 404, 'NOT_FOUND');
  });

  it('answers 200 without a resume, changing nothing', async () => {
    const user = await server.user();
    const res = await user.api.DELETE('/api/profile/me/resume');
    expect(res.response.status).toBe(200);
    expect(res.data!.resume_url).toBeNull();
    expect(await eventsForResource(server.db, 'user', user.userId)).toEqual([]);
  });

  it("needs credentials, and deletes only the caller's", async () => {
    const user = await server.user();
    await uploadFile(user, pdfFile());
    expectError(await server.anonymous.DELETE('/api/profile/me/resume'), 401, 'UNAUTHENTICATED');
    const other = await server.user();
    expect((await other.api.DELETE('/api/profile/me/resume')).response.status).toBe(200);
    expect(await filesOf(user.userId)).toHaveLength(1);
  });
});

describe('GET /api/profile/{userId}/resume', () => {
  let worker: User;
  let client: User;
  const pdf = pdfFile('Worker');
  beforeAll(async () => {
    [worker, client] = await server.users('Worker', 'Client');
    expect((await uploadFile(worker, pdf)).response.status).toBe(200);
    await appliedGig(client, worker, { message: 'Me.' }, { title: 'Parser' });
  });

  it('serves the file to its owner, inert: attachment, its sniffed type, nosniff, a sandboxing CSP, no caching', async () => {
    const res = await download(worker.userId, worker);
    expect(res.response.status).toBe(200);
    expect(Buffer.compare(Buffer.from(res.data as ArrayBuffer), pdf)).toBe(0);
    const h = res.response.headers;
    expect(h.get('content-type')).toBe('application/pdf');
    expect(h.get('content-disposition')).toBe('attachment; filename="resume.pdf"');
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(h.get('cache-control')).toBe('private, no-store');
  });

  // Who else may read it, and for how long: tests/reputation/resume-access.test.ts.
  it('serves it to a client the worker applied to', async () => {
    const res = await download(worker.userId, client);
    expect(res.response.status).toBe(200);
    expect(Buffer.compare(Buffer.from(res.data as ArrayBuffer), pdf)).toBe(0);
  });

  it('is 404 to an unrelated user, to the worker for the client, and to a caller without credentials', async () => {
    const stranger = await server.user('Stranger');
    expectError(await download(worker.userId, stranger), 404, 'NOT_FOUND');
    expect((await uploadFile(client, pngFile())).response.status).toBe(200);
    expectError(await download(client.userId, worker), 404, 'NOT_FOUND');
    expectError(await download(worker.userId), 404, 'NOT_FOUND');
  });

  it('is 401 with credentials that are refused, 400 for a malformed id, 404 without a resume', async () => {
    const res = await fetch(`${server.url}/api/profile/${worker.userId}/resume`, { headers: { authorization: 'Bearer gm_live_nope' } });
    expect(res.status).toBe(401);
    expectInvalid(await worker.api.GET('/api/profile/{userId}/resume', { params: { path: { userId: 'not-a-uuid' } } }), 'path.userId');
    const empty = await server.user();
    expectError(await download(empty.userId, empty), 404, 'NOT_FOUND');
  });
});
