// An OpenAI-compatible embeddings endpoint: `POST {url}/embeddings` with `{ model, input }`,
// answering `{ data: [{ index, embedding }] }`. Vectors are stored and compared at unit length.
import { createHash } from 'node:crypto';
import type { EmbeddingsSettings } from '../config.ts';
import { BodyTooLargeError, readCappedText } from '../capped-body.ts';

export class EmbeddingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddingsError';
  }
}

/** Unit length, so that a dot product is the cosine similarity. */
export function normalize(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : v;
}

/**
 * The most an answer may hold per input: an embedding of 4,096 numbers written out in JSON is
 * about 90 KB. Past that (and a margin for the rest), the answer is not read on.
 */
const MAX_ANSWER_BYTES_PER_INPUT = 256 * 1024;
const MAX_ANSWER_BYTES_BESIDES = 64 * 1024;

/** Embeds `inputs` (in one request), throwing EmbeddingsError on any failure or a timeout. */
export async function embed(settings: EmbeddingsSettings, inputs: string[], timeoutMs = settings.timeoutMs): Promise<number[][]> {
  const signal = AbortSignal.timeout(timeoutMs);
  const maxBytes = MAX_ANSWER_BYTES_BESIDES + inputs.length * MAX_ANSWER_BYTES_PER_INPUT;
  let text: string;
  try {
    const response = await fetch(`${settings.url}/embeddings`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: settings.model, input: inputs }),
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new EmbeddingsError(`answered HTTP ${response.status}`);
    }
    // The signal bounds the body's reading too.
    text = await readCappedText(response, maxBytes);
  } catch (err) {
    if (err instanceof EmbeddingsError) throw err;
    if (err instanceof BodyTooLargeError) throw new EmbeddingsError(`answered more than ${maxBytes} bytes`);
    if (signal.aborted) throw new EmbeddingsError(`no answer within ${timeoutMs} ms`);
    throw new EmbeddingsError(`request failed: ${(err as Error).message}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new EmbeddingsError('answered with invalid JSON');
  }
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== inputs.length) throw new EmbeddingsError('answered without one embedding per input');
  const out = new Array<number[]>(inputs.length);
  for (const [i, item] of data.entries()) {
    const { index, embedding } = item as { index?: unknown; embedding?: unknown };
    const at = typeof index === 'number' ? index : i;
    if (
      !Array.isArray(embedding) ||
      !embedding.length ||
      !embedding.every((x) => typeof x === 'number' && Number.isFinite(x)) ||
      at < 0 ||
      at >= inputs.length
    ) {
      throw new EmbeddingsError('answered with a malformed embedding');
    }
    out[at] = normalize(embedding as number[]);
  }
  if (out.some((v) => !v) || out.some((v) => v.length !== out[0]!.length))
    throw new EmbeddingsError('answered with embeddings of different sizes');
  return out;
}

/** What a gig's embedding is made of (title, tags, description), capped in length. */
export function gigText(g: { title: string; description: string; tags: string[] }): string {
  return `${g.title}\n${g.tags.join(', ')}\n${g.description}`.slice(0, 8000);
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The cache key of a query: lowercase, whitespace collapsed. */
export function queryKey(q: string): string {
  return sha256(q.trim().toLowerCase().replace(/\s+/g, ' '));
}
