// An OpenAI-compatible chat-completions endpoint asked for one JSON object: `POST {url}/chat/completions`
// with `response_format: { type: "json_schema", json_schema: { name, strict: true, schema } }`,
// answering `{ model, choices: [{ message: { content } }] }`. Only the settings' API key leaves
// with the request (as a Bearer token, to LLM_URL alone). What the object must hold is the
// caller's to check: this returns it parsed, or throws LlmError.
import type { LlmSettings } from '../config.ts';
import { BodyTooLargeError, readCappedText } from '../capped-body.ts';

export class LlmError extends Error {
  /** `timeout`: no answer in time; `failed`: an error status, no connection, or not a JSON object. */
  readonly kind: 'timeout' | 'failed';
  constructor(kind: 'timeout' | 'failed', message: string) {
    super(message);
    this.name = 'LlmError';
    this.kind = kind;
  }
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export interface JsonAnswer {
  /** The model that answered (as the endpoint names it), else the one asked for. */
  model: string;
  value: Record<string, unknown>;
}

/** Answers past this size are not read on: a recommendation is a few kilobytes. */
const MAX_ANSWER_BYTES = 256 * 1024;

export async function askForJson(
  settings: LlmSettings,
  input: { messages: ChatMessage[]; schemaName: string; schema: object },
): Promise<JsonAnswer> {
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let text: string;
  try {
    const response = await fetch(`${settings.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({
        model: settings.model,
        messages: input.messages,
        temperature: 0,
        response_format: { type: 'json_schema', json_schema: { name: input.schemaName, strict: true, schema: input.schema } },
      }),
      signal,
      redirect: 'error',
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new LlmError('failed', `the model's endpoint answered HTTP ${response.status}`);
    }
    text = await readCappedText(response, MAX_ANSWER_BYTES);
  } catch (err) {
    if (err instanceof LlmError) throw err;
    if (err instanceof BodyTooLargeError) throw new LlmError('failed', 'the model answered more than a recommendation can hold');
    if (signal.aborted) throw new LlmError('timeout', `the model did not answer within ${settings.timeoutMs} ms`);
    throw new LlmError('failed', "the model's endpoint could not be reached");
  }
  const body = parseObject(text);
  const choice = Array.isArray(body?.choices) ? (body.choices[0] as { message?: { content?: unknown; refusal?: unknown } }) : undefined;
  const content = choice?.message?.content;
  if (typeof choice?.message?.refusal === 'string' && choice.message.refusal) throw new LlmError('failed', 'the model refused to answer');
  if (typeof content !== 'string') throw new LlmError('failed', 'the model answered without a message');
  const value = parseObject(content);
  if (!value) throw new LlmError('failed', 'the model answered something that is not a JSON object');
  return { model: typeof body!.model === 'string' && body!.model ? body!.model : settings.model, value };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
