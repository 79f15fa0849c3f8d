// A local stand-in for an OpenAI-compatible chat-completions endpoint, over real HTTP on 127.0.0.1:
//   POST /v1/chat/completions { model, messages, response_format, ... }
//     -> { id, object: "chat.completion", model, choices: [{ index, message: { role, content }, finish_reason }] }
// By default it answers a valid recommendation citing the first evidence id it was sent; tests set
// the next answers (any content, an HTTP error, no answer for a while) and read every request.
import http from 'node:http';
import { closeServer, type FloodResult, flood, listenLocal, readBody } from './local-server.ts';

export interface ChatRequest {
  authorization: string | undefined;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: Record<string, unknown> } };
  };
  /** The facts the user message carries, parsed. */
  facts: any;
}

/**
 * One answer: a recommendation (or anything) as the message content, a raw body, an HTTP error,
 * `flood` bytes of a message that never ends (see `floods`), after a delay or once `until` settles.
 */
type Wait = { delayMs?: number; until?: Promise<unknown> };
export type Answer = ({ content: unknown } | { raw: string } | { status: number } | { flood: number }) & Wait;

export interface FakeChat {
  /** The API base to set as LLM_URL (`.../v1`). */
  url: string;
  /** Env for startTestServer pointing the server at this fake. */
  env: Record<string, string>;
  requests: ChatRequest[];
  /** How each flood answer ended, in order. */
  floods: Promise<FloodResult>[];
  /** The answers to give next, in order; then the default again. */
  answerNext(...answers: Answer[]): void;
  close(): Promise<void>;
}

const MODEL = 'fake-judge-1';

export async function startFakeChat(): Promise<FakeChat> {
  const requests: ChatRequest[] = [];
  const floods: Promise<FloodResult>[] = [];
  const queue: Answer[] = [];
  const open = new Set<http.ServerResponse>();

  const defaultAnswer = (facts: any): Answer => {
    const cited = (facts?.evidence ?? []).slice(0, 1).map((e: { id: string }) => e.id);
    return {
      content: {
        outcome: 'split',
        worker_share_percent: 60,
        reasoning: `Most of the agreed work was delivered${cited.length ? ` [${cited[0]}]` : ''}; part of it does not pass the agreed checks.`,
        cited_evidence_ids: cited,
        confidence: 0.7,
      },
    };
  };

  const server = http.createServer(async (req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const send = (status: number, body: string) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return send(404, JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
    }
    let body: ChatRequest['body'];
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return send(400, JSON.stringify({ error: { message: 'invalid JSON' } }));
    }
    const user = body.messages?.find((m) => m.role === 'user')?.content ?? '';
    let facts: unknown;
    try {
      facts = JSON.parse(user.slice(user.indexOf('{')));
    } catch {
      facts = undefined;
    }
    requests.push({ authorization: req.headers.authorization, body, facts });
    const answer = queue.shift() ?? defaultAnswer(facts);
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (answer.until) await answer.until;
    if ('status' in answer) return send(answer.status, JSON.stringify({ error: { message: 'The server had an error' } }));
    if ('raw' in answer) return send(200, answer.raw);
    if ('flood' in answer) {
      const head = `{"id":"chatcmpl-${requests.length}","object":"chat.completion","model":"${MODEL}","choices":[{"index":0,"message":{"role":"assistant","content":"`;
      return void floods.push(flood(res, head, 'It depends. ', answer.flood));
    }
    const content = typeof answer.content === 'string' ? answer.content : JSON.stringify(answer.content);
    send(
      200,
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: MODEL,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    );
  });
  const url = `${await listenLocal(server)}/v1`;
  return {
    url,
    env: { LLM_URL: url, LLM_MODEL: 'judge', LLM_API_KEY: 'sk-fake-llm', LLM_TIMEOUT_MS: '1000' },
    requests,
    floods,
    answerNext(...answers) {
      queue.push(...answers);
    },
    async close() {
      for (const res of open) res.destroy();
      await closeServer(server);
    },
  };
}
