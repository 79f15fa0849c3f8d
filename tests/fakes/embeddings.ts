// A local stand-in for an OpenAI-compatible embeddings endpoint, speaking its protocol over HTTP:
//   POST /v1/embeddings  { model, input: string | string[] }
//     -> { object: "list", data: [{ object: "embedding", index, embedding }], model, usage }
// Vectors are deterministic: a hashed bag of words (lowercased, crude suffixes stripped), with
// a sign per word, so texts that share words point the same way. It knows no synonyms: it stands
// in for a real model's protocol, not for its understanding. It can fail on demand, or flood: an
// embedding that never ends (see `floods`).
import http from 'node:http';
import { createHash } from 'node:crypto';
import { type FloodResult, flood, readBody, listenLocal, closeServer } from './local-server.ts';

export type FailureMode = 'error' | 'timeout' | 'malformed' | 'flood' | null;

/** What a flood writes before it ends, unless the reader hangs up first. */
export const FLOOD_BYTES = 256 * 1024 * 1024;

export interface FakeEmbeddings {
  /** The API base to set as EMBEDDINGS_URL (`.../v1`). */
  url: string;
  dims: number;
  /** Env for startTestServer pointing the server at this fake. */
  env: Record<string, string>;
  /** From now on: answer 500, never answer, answer nonsense, flood, or (null) work again. */
  fail(mode: FailureMode): void;
  /** How each flood ended, in order. */
  floods: Promise<FloodResult>[];
  /** Every request's inputs, in order. */
  requests: { model: string; input: string[]; authorization: string | undefined }[];
  /** The vector the fake gives a text (unit length). */
  vector(text: string): number[];
  close(): Promise<void>;
}

const STEM = /(ing|ers|er|ed|es|s)$/;

function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9+#]+/g) ?? []).map((w) => (w.length > 4 ? w.replace(STEM, '') : w));
}

export function hashedBagOfWords(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of tokens(text)) {
    const h = createHash('sha256').update(word).digest();
    const slot = h.readUInt32BE(0) % dims;
    v[slot]! += h[4]! & 1 ? 1 : -1;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : v.map((_, i) => (i === 0 ? 1 : 0));
}

export async function startFakeEmbeddings(options: { dims?: number; model?: string } = {}): Promise<FakeEmbeddings> {
  const dims = options.dims ?? 64;
  const model = options.model ?? 'fake-embedding-1';
  let failure: FailureMode = null;
  const requests: FakeEmbeddings['requests'] = [];
  const floods: Promise<FloodResult>[] = [];
  const hanging = new Set<http.ServerResponse>();

  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
      return send(404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
    }
    let body: { model?: unknown; input?: unknown };
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return send(400, { error: { message: 'invalid JSON', type: 'invalid_request_error' } });
    }
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (typeof body.model !== 'string' || !Array.isArray(input) || !input.every((i) => typeof i === 'string')) {
      return send(400, { error: { message: "'model' and 'input' are required", type: 'invalid_request_error' } });
    }
    requests.push({ model: body.model, input: input as string[], authorization: req.headers.authorization });
    if (failure === 'error') return send(500, { error: { message: 'The server had an error', type: 'server_error' } });
    if (failure === 'timeout') {
      hanging.add(res);
      return;
    }
    if (failure === 'malformed') return send(200, { object: 'list', data: [{ object: 'embedding', index: 0 }] });
    if (failure === 'flood') {
      return void floods.push(flood(res, '{"object":"list","data":[{"index":0,"embedding":[', '0.0123456789,', FLOOD_BYTES));
    }
    send(200, {
      object: 'list',
      data: (input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: hashedBagOfWords(text, dims) })),
      model: body.model,
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  });
  const url = `${await listenLocal(server)}/v1`;
  return {
    url,
    dims,
    env: { EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: model, EMBEDDINGS_API_KEY: 'sk-fake', EMBEDDINGS_TIMEOUT_MS: '500' },
    fail(mode) {
      failure = mode;
    },
    floods,
    requests,
    vector: (text) => hashedBagOfWords(text, dims),
    async close() {
      for (const res of hanging) res.destroy();
      await closeServer(server);
    },
  };
}
