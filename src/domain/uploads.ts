// What an uploaded file may be, for every operation that takes one (resumes, dispute evidence): a
// PDF or an image (PNG, JPEG, WebP) of at most 5 MB, its type read from its bytes. The name and the
// declared Content-Type of the part are never consulted.
import { ApiError } from '../errors.ts';
import { UPLOAD_CONTENT_TYPES, type UploadContentType } from '../../db/schema/column-values.ts';

export { FILE_PURPOSES, type FilePurpose, UPLOAD_CONTENT_TYPES, type UploadContentType } from '../../db/schema/column-values.ts';

export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;

/** The extension a download is named with. */
export const EXTENSION_OF: Record<UploadContentType, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/**
 * Markup that a browser would act on. Each pattern needs enough fixed characters that it
 * practically never turns up by chance in compressed image data (a three-letter tag name alone
 * would, about once in a thousand 5 MB images):
 * - an opening tag of the document, of script or of active content, of four letters or more, and
 *   what ends a tag name (not `form` or `template`: PDF forms, XFA, use those as XML tags);
 * - `svg` or `img` (short names) with an attribute, as an injection through them needs;
 * - an event handler attribute (`onload=`, `onerror=`, ...) inside a tag of any name;
 * - a `javascript:` URL as an attribute's value.
 */
const MARKUP = new RegExp(
  [
    String.raw`<(?:!doctype|html|head|body|script|iframe|frameset|object|embed|style|meta|link|title|base)[\s/>]`,
    String.raw`<(?:svg|img)[\s/]+[a-z][\w:-]*\s*=`,
    String.raw`<[a-z][\w:-]*[\s/][^<>\0-\x08\x0e-\x1f]*?[\s/"']on[a-z]+\s*=`,
    String.raw`=\s*["']?\s*javascript:`,
  ].join('|'),
  'i',
);

/**
 * Whether the text holds markup, as ASCII or as UTF-16 (or UTF-32) in either byte order and at
 * either alignment: there, each ASCII character comes with zero bytes, which dropping them turns
 * into the ASCII text.
 */
function holdsMarkup(latin1: string): boolean {
  return MARKUP.test(latin1) || (latin1.includes('\0') && MARKUP.test(latin1.replaceAll('\0', '')));
}

/** A PDF ends with `%%EOF` (readers look for it in the last kilobyte, past trailing bytes). */
const PDF_TAIL_BYTES = 1024;

const unsupported = (message: string) =>
  new ApiError('UNSUPPORTED_MEDIA_TYPE', `${message}; a file must be a PDF or a PNG, JPEG or WebP image of at most 5 MB`);

/**
 * The type of an upload, from its content: the magic bytes (file-type) must say PDF, PNG, JPEG
 * or WebP. Then polyglots are refused: a file whose bytes hold HTML markup anywhere (MARKUP) is not
 * one of these whatever it starts with (a `%PDF-` header followed by `<html>` passes the magic-byte test),
 * and a PDF must also end like one. The download is served inert anyway (attachment, nosniff, a
 * sandboxing CSP); this keeps such files out altogether.
 */
export async function inspectUpload(bytes: Uint8Array): Promise<UploadContentType> {
  // The HTTP layer stops reading past the limit (src/http/uploads.ts); this holds for any caller.
  if (bytes.length > UPLOAD_MAX_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE', `a file may be at most ${UPLOAD_MAX_BYTES} bytes (5 MB)`);
  if (bytes.length === 0) throw unsupported('the file is empty');
  // Loaded on the first upload: most processes never read one, and need not hold the parser's heap.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(bytes);
  const type = UPLOAD_CONTENT_TYPES.find((t) => t === detected?.mime);
  if (!type) throw unsupported(detected ? `the file is ${detected.mime}` : 'the file is of no type this API takes');
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (holdsMarkup(text)) throw unsupported(`the file starts as ${type} but holds HTML markup`);
  if (type === 'application/pdf' && !text.slice(-PDF_TAIL_BYTES).includes('%%EOF')) {
    throw unsupported('the file starts as a PDF but does not end as one (no %%EOF)');
  }
  return type;
}
