// File uploads (multipart/form-data, @fastify/multipart). For an operation whose spec takes
// multipart, the spec's schema names the file fields; this preValidation hook reads them into
// memory, at most UPLOAD_MAX_BYTES each, before the Idempotency-Key hook (whose request hash then
// covers their bytes). What a file may be is decided later, by the service, from its bytes
// (src/domain/uploads.ts); the part's filename and Content-Type are ignored.
//
// Refusals: a body (Content-Length) or a file larger than allowed is 413 as soon as that is known,
// and the connection is closed so that the rest is never read; a missing, repeated or unknown field,
// a text field where a file belongs, or a body that is not valid multipart is 400 naming it.
//
// The plugin is registered in the upload operations' scope only: it adds an async onRequest and
// onResponse hook to every request of its scope (to delete what its disk mode saved, a mode this
// API does not use), two promises and a listener on each of them. Everywhere else a multipart body
// is left unread, as the plugin's own parser leaves it, and checkRequestBody refuses it (415)
// where the operation takes a body.
import { createHash } from 'node:crypto';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { UPLOAD_MAX_BYTES } from '../domain/uploads.ts';
import { ApiError, validationFailed } from '../errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** From the spec's multipart schema: the file fields the operation takes, and which it requires. */
    upload?: { fields: string[]; required: string[] };
  }
}

/** Outside the upload operations: a multipart body is accepted unread (see the top of this file). */
export function leaveMultipartBodiesUnread(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
}

/** Registers the operations that take uploads in a scope of their own, with the multipart plugin. */
export async function registerUploadRoutes(parent: FastifyInstance, routes: RouteOptions[]): Promise<void> {
  await parent.register(async (scope) => {
    scope.removeContentTypeParser('multipart/form-data');
    await scope.register(multipart, { limits: { fileSize: UPLOAD_MAX_BYTES, files: 1 } });
    for (const route of routes) scope.route(route);
  });
}

/** A file as received. In JSON (the Idempotency-Key's request hash, logs) it is its digest, never its bytes. */
export class UploadedFile {
  readonly bytes: Buffer;
  readonly sha256: string;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
    this.sha256 = createHash('sha256').update(bytes).digest('hex');
  }
  toJSON() {
    return { sha256: this.sha256, size: this.bytes.length };
  }
}

/** Boundaries and part headers: what a multipart body may carry beyond its files' bytes. */
const FRAMING_BYTES = 64 * 1024;
const LIMITS = { fileSize: UPLOAD_MAX_BYTES, files: 8, fields: 8, parts: 16, fieldSize: 1024, headerPairs: 16 };

const tooLarge = (what: string) =>
  new ApiError('PAYLOAD_TOO_LARGE', `${what} is larger than allowed: a file may be at most ${UPLOAD_MAX_BYTES} bytes (5 MB)`);

/** The multipart plugin's refusals as the envelope's codes; anything else it or busboy throws is a malformed body. */
function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge('the file');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return new ApiError('PAYLOAD_TOO_LARGE', `the body has too many parts (at most ${LIMITS.parts})`);
  }
  if (code === 'FST_PROTO_VIOLATION') return validationFailed('body', 'holds a field whose name is not allowed');
  return validationFailed('body', `is not valid multipart/form-data (${(err as Error).message})`);
}

async function readFile(stream: AsyncIterable<Buffer> & { truncated?: boolean }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    // busboy passes on at most fileSize bytes and marks the stream once more arrive; leaving the
    // loop destroys the stream, which stops the parse.
    if (stream.truncated) throw tooLarge('the file');
    chunks.push(chunk);
  }
  if (stream.truncated) throw tooLarge('the file');
  return Buffer.concat(chunks);
}

async function readParts(request: FastifyRequest, fields: Set<string>): Promise<Record<string, UploadedFile>> {
  const files: Record<string, UploadedFile> = {};
  for await (const part of request.parts({ limits: LIMITS })) {
    const at = `body.${part.fieldname}`;
    if (!fields.has(part.fieldname)) throw validationFailed(at, 'is not a known field');
    if (part.type !== 'file') throw validationFailed(at, 'must be a file');
    if (files[part.fieldname]) throw validationFailed(at, 'must be sent once');
    files[part.fieldname] = new UploadedFile(await readFile(part.file));
  }
  return files;
}

export async function readUploads(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const upload = request.routeOptions.config.upload;
  if (!upload || !request.isMultipart()) return;
  try {
    const length = Number(request.headers['content-length']);
    if (length > UPLOAD_MAX_BYTES * upload.fields.length + FRAMING_BYTES) throw tooLarge('the body');
    const files = await readParts(request, new Set(upload.fields));
    for (const field of upload.required) if (!files[field]) throw validationFailed(`body.${field}`, 'is required');
    request.body = files;
  } catch (err) {
    const refusal = asApiError(err);
    // What is left of a body refused early is drained (Node does) so that a client still sending
    // reads the answer, when it is known to be within the limit; one that is too large, or whose
    // length is unknown, is cut off by closing the connection.
    const bounded = refusal.code !== 'PAYLOAD_TOO_LARGE' && request.headers['content-length'] !== undefined;
    if (!request.raw.readableEnded && !bounded) reply.header('connection', 'close');
    throw refusal;
  }
}

/** The file a handler's operation requires (readUploads has checked it is there). */
export function uploadOf(request: FastifyRequest, field: string): UploadedFile {
  const file = (request.body as Record<string, unknown> | undefined)?.[field];
  if (!(file instanceof UploadedFile)) throw new ApiError('INTERNAL', `the upload ${field} was not read`);
  return file;
}

type Schema = { type?: string; format?: string; properties?: Record<string, Schema>; required?: string[]; $ref?: string };

/** The file fields of an operation's multipart request body, read from its (inline) schema at start. */
export function uploadFieldsOf(
  requestBody: { content?: Record<string, { schema?: Schema }> } | undefined,
  componentSchemas: Record<string, Schema> | undefined,
) {
  const given = requestBody?.content?.['multipart/form-data']?.schema;
  if (!given) return undefined;
  const schema = given.$ref ? componentSchemas?.[given.$ref.replace('#/components/schemas/', '')] : given;
  if (!schema) throw new Error(`a multipart request body names ${given.$ref}, which the spec's components lack`);
  const fields = Object.entries(schema.properties ?? {})
    .filter(([, s]) => s.type === 'string' && s.format === 'binary')
    .map(([name]) => name);
  return { fields, required: (schema.required ?? []).filter((f) => fields.includes(f)) };
}

/**
 * Sends a stored upload so that a browser never treats it as a page of this origin: downloaded,
 * never sniffed, sandboxed should it be opened anyway, and not cached (who may read it can change).
 */
export function sendInertFile(reply: FastifyReply, file: { contentType: string; filename: string; bytes: Uint8Array }) {
  return reply
    .type(file.contentType)
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('cache-control', 'private, no-store')
    .send(file.bytes);
}
