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
 * HTML that a browser would act on: an opening tag of the document, of script or of active
 * content, followed by what ends a tag name. Tags of four letters or more only: a three-letter
 * pattern turns up by chance in compressed image data (about once in a thousand 5 MB images),
 * these practically never do. Not `form` or `template`: PDF forms (XFA) use those as XML tags.
 */
const MARKUP = /<(?:!doctype|html|head|body|script|iframe|frameset|object|embed|style|meta|link|title|base)[\s/>]/i;

/** A PDF ends with `%%EOF` (readers look for it in the last kilobyte, past trailing bytes). */
const PDF_TAIL_BYTES = 1024;

const unsupported = (message: string) =>
  new ApiError('UNSUPPORTED_MEDIA_TYPE', `${message}; a file must be a PDF or a PNG, JPEG or WebP image of at most 5 MB`);

/**
 * The type of an upload, from its content: the magic bytes (file-type) must say PDF, PNG, JPEG
 * or WebP. Then polyglots are refused: a file whose bytes hold HTML markup anywhere is not one of
 * these whatever it starts with (a `%PDF-` header followed by `<html>` passes the magic-byte test),
 * and a PDF must also end like one. The download is served inert anyway (attachment, nosniff, a
 * sandboxing CSP); this keeps such files out altogether.
 */
export async function inspectUpload(bytes: Uint8Array): Promise<UploadContentType> {
  // The HTTP layer stops reading past the limit (src/http/uploads.ts); this holds for any caller.
  if (bytes.length > UPLOAD_MAX_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE', `a file may be at most ${UPLOAD_MAX_BYTES} bytes (5 MB)`);
  if (bytes.length === 0) throw unsupported('the file is empty');
  // Loaded on the first upload: most processes never read one (about 1.6 MB of heap).
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(bytes);
  const type = UPLOAD_CONTENT_TYPES.find((t) => t === detected?.mime);
  if (!type) throw unsupported(detected ? `the file is ${detected.mime}` : 'the file is of no type this API takes');
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (MARKUP.test(text)) throw unsupported(`the file starts as ${type} but holds HTML markup`);
  if (type === 'application/pdf' && !text.slice(-PDF_TAIL_BYTES).includes('%%EOF')) {
    throw unsupported('the file starts as a PDF but does not end as one (no %%EOF)');
  }
  return type;
}
