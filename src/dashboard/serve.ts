// The owners' dashboard at `/`: the files Vite built into web/dist/ (build.ts), read into memory
// on first use. index.html is revalidated on every load (`no-cache`, with an ETag) and carries the
// page's Content-Security-Policy: scripts and styles only from this origin's files, no inline
// code, no framing. Files under /assets/ have content hashes in their names and are cached for a
// year. Static files cost nothing of the address's rate-limit budget (rateLimitCost 0); the page
// itself does, like every browser route.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_DIST } from './build.ts';
import { DOCUMENT_HEADERS } from '../http/security-headers.ts';

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

function readTree(dir: string, files = new Map<string, StaticFile>()): Map<string, StaticFile> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      readTree(path, files);
      continue;
    }
    const body = readFileSync(path);
    const url = `/${relative(DASHBOARD_DIST, path).split(sep).join('/')}`;
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    files.set(url, { body, type: TYPES[extname(path)] ?? 'application/octet-stream', etag });
  }
  return files;
}

let loaded: Map<string, StaticFile> | undefined;

/** The built files by URL path, or undefined while there is no build. */
function files(): Map<string, StaticFile> | undefined {
  if (!loaded && existsSync(join(DASHBOARD_DIST, 'index.html'))) loaded = readTree(DASHBOARD_DIST);
  return loaded;
}

function send(request: FastifyRequest, reply: FastifyReply, file: StaticFile, cacheControl: string) {
  reply.header('cache-control', cacheControl).header('etag', file.etag).type(file.type);
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.send(file.body);
}

export async function registerDashboard(app: FastifyInstance): Promise<void> {
  app.get('/', async (request, reply) => {
    const index = files()?.get('/index.html');
    reply.header('content-security-policy', DASHBOARD_CSP).headers(DOCUMENT_HEADERS);
    if (!index) {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(
          'The dashboard is not built: run `npm run build:web` (npm install and npm start do it). The API works meanwhile; see /docs.\n',
        );
    }
    return send(request, reply, index, 'no-cache');
  });

  const notFound = (reply: FastifyReply) => reply.callNotFound();
  app.get('/assets/*', { config: { rateLimitCost: 0 } }, async (request, reply) => {
    const file = files()?.get(request.url.split('?')[0]!);
    return file ? send(request, reply, file, 'public, max-age=31536000, immutable') : notFound(reply);
  });
  app.get('/favicon.svg', { config: { rateLimitCost: 0 } }, async (request, reply) => {
    const file = files()?.get('/favicon.svg');
    return file ? send(request, reply, file, 'public, max-age=86400') : notFound(reply);
  });
}
