// An outside service's answer, read with a cap on its size: the body is taken as it arrives and
// the connection dropped as soon as the cap is passed, so a huge answer costs the cap and no more.
// Response.text() and .json() hold the whole body before anyone can look at its size. A leaf:
// imports nothing of ours, so every module that calls out may use it (src/llm/ included).

/** The answer was larger than the reader takes; what was read is dropped and the connection closed. */
export class BodyTooLargeError extends Error {
  readonly maxBytes: number;
  /** The size the answer declared (Content-Length), when that alone was over the cap. */
  readonly declaredBytes: number | undefined;

  constructor(maxBytes: number, declaredBytes?: number) {
    super(`the answer is over the ${maxBytes}-byte limit`);
    this.name = 'BodyTooLargeError';
    this.maxBytes = maxBytes;
    this.declaredBytes = declaredBytes;
  }
}

/** The whole body, or BodyTooLargeError once it passes `maxBytes`; a fetch's abort signal still applies. */
export async function readCappedBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(maxBytes, declared);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        // Cancelling a fetch's body closes its connection: the rest is never read.
        await reader.cancel().catch(() => {});
        throw new BodyTooLargeError(maxBytes);
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The body as UTF-8 text, as Response.text() decodes it, capped like readCappedBody. */
export async function readCappedText(response: Response, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readCappedBody(response, maxBytes));
}
