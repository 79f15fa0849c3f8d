// A tool call's arguments as the HTTP request of its operation, and the HTTP answer as the tool's
// result. The API does every check; here only what is needed to build the URL is refused, with
// the API's envelope (VALIDATION_FAILED, issues at `arguments.<name>`).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from './schema.ts';

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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function isEnvelope(value: unknown): value is ErrorEnvelope {
  return isObject(value) && isObject(value.error) && typeof value.error.code === 'string';
}

/** A failed call: the API's envelope, as text and as structured content. */
export function errorResult(envelope: ErrorEnvelope): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: { ...envelope } };
}

/** The API's answer as the tool's result: 2xx is the response body, anything else an error. */
export function toolResult(response: ApiResponse): CallToolResult {
  const { status, body } = response;
  if (status >= 200 && status < 300) {
    const data = body ?? {};
    return {
      content: [{ type: 'text', text: body === undefined ? `done (HTTP ${status})` : JSON.stringify(data) }],
      structuredContent: isObject(data) ? data : { data },
    };
  }
  if (isEnvelope(body)) return errorResult(body);
  // Not the API's envelope (a proxy in front of it, say): say what came back.
  const text = typeof body === 'string' ? body.slice(0, 500) : JSON.stringify(body);
  return { isError: true, content: [{ type: 'text', text: `HTTP ${status}: ${text}` }] };
}
