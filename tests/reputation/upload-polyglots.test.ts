// Polyglots (issue 36, item 7): files that start as a PDF or an image and hold markup a browser
// would act on are refused, whatever the markup: an svg or img tag with attributes, an event
// handler in any tag, a javascript: URL, and markup written in UTF-16 (either byte order, either
// alignment). What merely mentions such words stays accepted. Through the resume upload, which
// dispute evidence shares (src/domain/uploads.ts); tests/reputation/resume.test.ts has the other refusals.
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer } from '../helpers/server.ts';
import { expectError } from '../helpers/expect-error.ts';
import { storedFiles } from '../../db/schema.ts';
import { formWith, jpegWithComment, pdfFile, pngWithText, webpFile } from '../helpers/files.ts';

const server = testFileServer();

async function upload(bytes: Uint8Array) {
  const user = await server.user();
  const res = await user.api.POST('/api/profile/me/resume', {
    body: formWith('resume', bytes) as never,
    bodySerializer: (body: unknown) => body as never,
  });
  const stored = await server.db.select({ id: storedFiles.id }).from(storedFiles).where(eq(storedFiles.ownerUserId, user.userId));
  return { res, stored };
}

const utf16le = (text: string) => Buffer.from(text, 'utf16le');
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
/** A valid PDF with `tail` after its end (readers find %%EOF in the last kilobyte, so it still ends as one). */
const pdfThen = (tail: Buffer) => Buffer.concat([pdfFile(), tail, Buffer.from('\n%%EOF\n')]);

describe('polyglots', () => {
  it.each([
    ['a PDF whose text is an svg tag with an onload handler', pdfFile('<svg onload=alert(1)>')],
    ['a PDF followed by <svg/onload=...>', pdfThen(Buffer.from('<svg/onload=alert(document.domain)>'))],
    ['a PNG carrying an img tag with onerror', pngWithText('Comment', Buffer.from('<img src=x onerror=alert(1)>'))],
    ['a JPEG whose comment is a tag of any name with an event handler', jpegWithComment(Buffer.from('<details open ontoggle=alert(1)>'))],
    ['a PDF holding a javascript: link', pdfThen(Buffer.from('<a href="javascript:alert(1)">here</a>'))],
    [
      'a PDF followed by an HTML page in UTF-16LE, with its byte order mark',
      pdfThen(utf16le('\ufeff<html><script>alert(1)</script></html>')),
    ],
    ['a PDF followed by an svg in UTF-16BE at an odd offset', pdfThen(Buffer.concat([Buffer.from('x'), utf16be('<svg onload=alert(1)>')]))],
    ['a PNG carrying an HTML page in UTF-16LE', pngWithText('Comment', utf16le('<body onload=alert(1)>'))],
  ])('refuses %s with 415, storing nothing', async (_name, bytes) => {
    const { res, stored } = await upload(bytes);
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', /holds HTML markup/);
    expect(stored).toEqual([]);
  });
});

describe('files that only mention such words', () => {
  it.each([
    ['a PDF about SVG icons, img tags and onload handlers', pdfFile('Drew SVG icons; wrote img tags and onload handlers')],
    ['a PDF quoting code that sets img.onload', pdfFile('img.onload = draw; if (a < b) x = y')],
    ['a PDF quoting a bare <svg> element', pdfFile('Built a <svg> sprite sheet')],
    ['a PNG with a text chunk in UTF-16 that is not markup', pngWithText('Comment', utf16le('Photo by Ada, 2026'))],
    ['a WebP', webpFile()],
  ])('takes %s', async (_name, bytes) => {
    const { res, stored } = await upload(bytes);
    expect(res.response.status).toBe(200);
    expect(stored).toHaveLength(1);
  });
});
