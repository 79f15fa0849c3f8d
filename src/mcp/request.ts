// A tool call's arguments as the HTTP request of its operation, and the HTTP answer as the tool's
// result. The API does every check; here only what is needed to build the URL is refused, with
// the API's envelope (VALIDATION_FAILED, issues at `arguments.<name>`).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isObject } from './json-schema.ts';
import type { ToolDefinition } from './schema.ts';
import { escapedJson, UNTRUSTED_META, untrustedNote, untrustedText } from './untrusted.ts';

export interface ApiRequest {
  method: string;
  /** Path and query, e.g. `/api/gigs?limit=5`. */
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface ApiResponse {
  status: number;
  body: unknown;
}

export interface ErrorEnvelope {
  error: { code: string; message: string; issues: { path: string; message: string }[] };
}

/** Calls one operation of the API as the caller of the tool (the caller's key goes with it). */
export type CallApi = (request: ApiRequest) => Promise<ApiResponse>;

export function invalidArguments(issues: { path: string; message: string }[]): ErrorEnvelope {
  const message = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  return { error: { code: 'VALIDATION_FAILED', message, issues } };
}

export function buildRequest(tool: ToolDefinition, args: Record<string, unknown>): ApiRequest | ErrorEnvelope {
  const known = new Set([...tool.parameters.map((p) => p.name), ...(tool.body === 'none' ? [] : ['body'])]);
  const issues: { path: string; message: string }[] = [];
  for (const name of Object.keys(args)) {
    if (known.has(name)) continue;
    const hint = tool.body === 'none' ? '' : '; the JSON body goes in `body`';
    issues.push({ path: `arguments.${name}`, message: `not an argument of ${tool.name}${hint}` });
  }
  let path = tool.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const param of tool.parameters) {
    const value = args[param.name];
    if (value === undefined || value === null) {
      if (param.required) issues.push({ path: `arguments.${param.name}`, message: 'is required' });
      continue;
    }
    // A list in the query is sent comma-separated (the spec's `style: form, explode: false`).
    const list = Array.isArray(value) && param.in === 'query' && value.every((v) => typeof v !== 'object' || v === null);
    if (typeof value === 'object' && !list) {
      issues.push({ path: `arguments.${param.name}`, message: 'must be a string, number or boolean' });
      continue;
    }
    const text = list ? (value as unknown[]).map(String).join(',') : String(value);
    if (param.in === 'path') path = path.replace(`{${param.name}}`, encodeURIComponent(text));
    else if (param.in === 'query') query.set(param.name, text);
    else headers[param.name.toLowerCase()] = text;
  }
  if (tool.body === 'required' && args.body === undefined) issues.push({ path: 'arguments.body', message: 'is required' });
  if (issues.length) return invalidArguments(issues);
  const search = query.toString();
  const request: ApiRequest = { method: tool.method, url: search ? `${path}?${search}` : path, headers };
  if (args.body !== undefined) request.body = args.body;
  return request;
}

export function isEnvelope(value: unknown): value is ErrorEnvelope {
  return isObject(value) && isObject(value.error) && typeof value.error.code === 'string';
}

/**
 * A failed call: the API's envelope, as JSON text. Not as structured content: that must match the
 * tool's output schema, which describes success (some clients check it on errors too).
 */
export function errorResult(envelope: ErrorEnvelope): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }] };
}

/** A success body as a result, which MCP wants an object: the object itself, else `{ data }`, and no body `{}`. */
function resultOf(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  return isObject(body) ? body : { data: body };
}

/**
 * A success: `body` as structured content (it matches the tool's output schema) and as JSON text,
 * for clients that read only text. When it holds text that people wrote, a second text from
 * gigmarket says where (and `_meta` lists the exact JSON Pointers): apart from the JSON, so
 * nothing in the JSON can pass for it.
 */
export function structuredResult(tool: ToolDefinition, body: Record<string, unknown>): CallToolResult {
  const json = { type: 'text' as const, text: escapedJson(body) };
  const { pointers, patterns } = untrustedText(tool.markedOutput, body);
  if (!pointers.length) return { content: [json], structuredContent: body };
  return {
    content: [json, { type: 'text', text: untrustedNote(patterns), annotations: { audience: ['assistant'], priority: 1 } }],
    structuredContent: body,
    _meta: { [UNTRUSTED_META]: pointers },
  };
}

/** The API's answer as the tool's result: 2xx is the response body, anything else an error. */
export function toolResult(tool: ToolDefinition, response: ApiResponse): CallToolResult {
  const { status, body } = response;
  if (status >= 200 && status < 300) return structuredResult(tool, resultOf(body));
  if (isEnvelope(body)) return errorResult(body);
  // Not the API's envelope (a proxy in front of it, say): say what came back.
  const text = typeof body === 'string' ? body.slice(0, 500) : JSON.stringify(body);
  return { isError: true, content: [{ type: 'text', text: `HTTP ${status}: ${text}` }] };
}
