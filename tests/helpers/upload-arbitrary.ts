// Multipart bodies for the fuzzer (tests/spec/fuzz.test.ts), for operations that take files: valid ones
// (a real PDF or image under the spec's file fields, with any filename and declared type) and
// broken ones (a refused file, a missing, unknown, repeated or text field, another media type, a
// malformed body), each with the statuses the spec allows for it.
import fc from 'fast-check';
import { jpegFile, pdfFile, pdfHtmlPolyglot, pngFile, textFile, webpFile } from './files.ts';

/** One part of a form: a file (bytes) or a text field. */
export interface Part {
  name: string;
  bytes?: Uint8Array;
  text?: string;
  filename?: string;
  type?: string;
}

export interface Upload {
  fields: string[];
  required: string[];
}

/** What a broken upload changes in a valid request. */
export interface BrokenUpload {
  parts?: Part[];
  /** Instead of a form: these bytes with this content type (or no body at all when both are undefined). */
  raw?: { body: string; contentType: string } | null;
  what: string;
  expect?: number[];
}

export function formOf(parts: Part[]): FormData {
  const form = new FormData();
  for (const p of parts) {
    if (p.bytes) form.append(p.name, new Blob([new Uint8Array(p.bytes)], { type: p.type ?? '' }), p.filename ?? 'file');
    else form.append(p.name, p.text ?? '');
  }
  return form;
}

/** The parts, briefly: for a failure's report. */
export const describeParts = (parts: Part[]) =>
  parts
    .map((p) =>
      p.bytes
        ? `${p.name}: file ${JSON.stringify(p.filename)} (${p.type}) ${p.bytes.length} bytes starting ${JSON.stringify(Buffer.from(p.bytes.subarray(0, 16)).toString('latin1'))}`
        : `${p.name}: text ${JSON.stringify(p.text)}`,
    )
    .join('; ');

const VALID_FILES: [string, () => Buffer][] = [
  ['pdf', () => pdfFile('Fuzzed')],
  ['png', () => pngFile()],
  ['jpeg', () => jpegFile()],
  ['webp', () => webpFile()],
];

const REFUSED_FILES: [string, () => Buffer][] = [
  ['text', textFile],
  ['PDF/HTML polyglot', pdfHtmlPolyglot],
  ['empty', () => Buffer.alloc(0)],
  ['GIF', () => Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')],
];

// Never empty: a part with `filename=""` is what a browser sends for "no file chosen", and busboy
// takes it for a text field unless its type is application/octet-stream (400: must be a file).
const filenameArb = fc.oneof(
  fc.constantFrom('resume.pdf', 'cv.png', 'a"b.pdf', '../../etc/passwd'),
  fc.string({ minLength: 1, maxLength: 40 }),
);
const declaredTypeArb = fc.constantFrom('application/pdf', 'image/png', 'text/html', 'application/octet-stream', '');

const fileArb = (name: string, files: [string, () => Buffer][]) =>
  fc
    .record({ file: fc.constantFrom(...files), filename: filenameArb, type: declaredTypeArb })
    .map(({ file, filename, type }): Part => ({ name, bytes: file[1](), filename, type }));

/** A valid form: each required file field once (optional ones sometimes) with a real file. */
export function validPartsArb(upload: Upload): fc.Arbitrary<Part[]> {
  return fc
    .tuple(
      ...upload.fields.map((f) =>
        upload.required.includes(f) ? fileArb(f, VALID_FILES) : fc.option(fileArb(f, VALID_FILES), { nil: undefined }),
      ),
    )
    .map((parts) => parts.filter((p): p is Part => p !== undefined));
}

/**
 * Ways to break a valid form (given when the request is made), each with the statuses the spec
 * allows for it (undefined: any it declares, short of a 5xx).
 */
export function brokenUploadArbs(upload: Upload): fc.Arbitrary<(valid: Part[]) => BrokenUpload>[] {
  const field = upload.required[0] ?? upload.fields[0]!;
  const without = (valid: Part[]) => valid.filter((p) => p.name !== field);
  return [
    fileArb(field, REFUSED_FILES).map((p) => (valid: Part[]) => ({
      parts: [...without(valid), p],
      what: `${field} is a refused file`,
      expect: [415],
    })),
    // Random bytes are almost never a PDF or an image; whatever they are, no 5xx and, refused, no change.
    fc
      .uint8Array({ maxLength: 64 })
      .map((bytes) => (valid: Part[]) => ({ parts: [...without(valid), { name: field, bytes }], what: `${field} holds random bytes` })),
    fc.constant((valid: Part[]) => ({
      parts: without(valid),
      what: `no ${field}`,
      expect: upload.required.includes(field) ? [400] : undefined,
    })),
    fc.constant((valid: Part[]) => ({
      parts: [...valid, { name: field, text: 'a resume, as text' }],
      what: `${field} also as a text field`,
      expect: [400],
    })),
    fc.constant((valid: Part[]) => ({ parts: [...valid, { name: field, bytes: pngFile() }], what: `${field} twice`, expect: [400] })),
    fc
      .oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('__proto__', 'constructor', 'toString'))
      .filter((name) => !upload.fields.includes(name))
      .chain((name) => fc.boolean().map((asFile): Part => (asFile ? { name, bytes: pngFile() } : { name, text: 'x' })))
      .map((extra) => (valid: Part[]) => ({
        parts: [...valid, extra],
        what: `an unknown field ${JSON.stringify(extra.name)}`,
        expect: [400],
      })),
    fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/pdf').map((contentType) => () => ({
      raw: { body: '{"resume": "JVBERi0xLjQ="}', contentType },
      what: `a body of type ${contentType}`,
      expect: [415],
    })),
    fc
      .constantFrom(
        { body: 'not multipart at all', contentType: 'multipart/form-data; boundary=x' },
        {
          body: '--x\r\nContent-Disposition: form-data; name="resume"; filename="a.pdf"\r\n\r\n%PDF-1.4',
          contentType: 'multipart/form-data; boundary=x',
        },
        { body: '--x--', contentType: 'multipart/form-data' },
      )
      .map((raw) => () => ({ raw, what: `a malformed multipart body ${JSON.stringify(raw)}`, expect: [400] })),
    fc.constant(() => ({ raw: null, what: 'no body (required)', expect: [400] })),
  ];
}
