// approveContract through MCP for an owner whose approval_policy is owner_confirms: the tool never
// asks the MCP client to say yes (a form's answer is no proof a human acted). It asks the API,
// which records the request and answers 202 with the contract's page; a client with URL-mode
// elicitation is asked to send the owner there, and the tool waits until the owner has approved
// on that page, signed in, as the party the key belongs to (or the contract moved on, or the wait
// ends). Without URL mode, the result is the API's 202: the link to give the owner.
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { type ApiRequest, type CallApi, structuredResult, toolResult } from './request.ts';
import type { ToolDefinition } from './schema.ts';

/**
 * How often the tool reads the contract while the owner is on the page: each read spends from the
 * key's rate limit, so a few a minute, and a refusal for the limit only delays the next.
 */
const POLL_MS = 2_000;

interface Requested {
  contract_id: string;
  party_role: 'client' | 'worker';
  revision_count: number;
  confirm_url: string;
}

interface ContractState {
  status: string;
  revision_count: number;
  client_approved_at: string | null;
  worker_approved_at: string | null;
}

export interface OwnerConfirmsContext {
  mcp: McpServer;
  call: CallApi;
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
  /** approveContract, whose result this is. */
  tool: ToolDefinition;
  /** How long the owner has, from the question on. */
  timeoutMs: number;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** The result when the owner has not (yet) approved: the API's 202, with why. */
function waiting(tool: ToolDefinition, body: Requested, reason: string): CallToolResult {
  const message = `Not approved yet: ${reason}. Only your owner can approve contract ${body.contract_id}; they do it at ${body.confirm_url}.`;
  return structuredResult(tool, { ...body, message });
}

/** Asks the API (which records the request and tells the owner), then sends the owner to the page when the client can. */
export async function askOwnerToConfirm(context: OwnerConfirmsContext, request: ApiRequest): Promise<CallToolResult> {
  const { mcp, call, extra, tool, timeoutMs } = context;
  const asked = await call(request);
  if (asked.status !== 202) return toolResult(tool, asked); // refused (stale terms, wrong state), or approved meanwhile under a new policy
  const body = asked.body as Requested;
  if (!mcp.server.getClientCapabilities()?.elicitation?.url) return toolResult(tool, asked);

  const elicitationId = randomUUID();
  const deadline = Date.now() + timeoutMs;
  let answer: Awaited<ReturnType<McpServer['server']['elicitInput']>>;
  try {
    answer = await mcp.server.elicitInput(
      {
        mode: 'url',
        elicitationId,
        url: body.confirm_url,
        message: `Your owner approves contracts themselves. Open this page to read the exact terms of contract ${body.contract_id} (revision_count ${body.revision_count}) and approve them, signed in.`,
      },
      { relatedRequestId: extra.requestId, signal: extra.signal, timeout: timeoutMs },
    );
  } catch {
    return waiting(tool, body, 'no answer came from your owner');
  }
  if (answer.action !== 'accept')
    return waiting(tool, body, answer.action === 'decline' ? 'your owner declined to open the page' : 'your owner dismissed the question');

  // Accepting opens the page; the approval itself happens there. Wait for it.
  const read: ApiRequest = { method: 'GET', url: `/api/contracts/${encodeURIComponent(body.contract_id)}`, headers: {} };
  while (Date.now() < deadline && !extra.signal.aborted) {
    const now = await call(read);
    if (now.status === 429) {
      await sleep(POLL_MS * 5, extra.signal);
      continue;
    }
    if (now.status !== 200) return toolResult(tool, now);
    const c = now.body as ContractState;
    const approvedAt = body.party_role === 'client' ? c.client_approved_at : c.worker_approved_at;
    if (c.revision_count !== body.revision_count) return waiting(tool, body, 'the contract was revised meanwhile; read it again');
    if (approvedAt !== null) {
      await mcp.server
        .createElicitationCompletionNotifier(elicitationId, { relatedRequestId: extra.requestId })()
        .catch(() => {});
      const text = `Your owner approved contract ${body.contract_id} on its page.`;
      return structuredResult(tool, { approved: true, contract: now.body, message: text });
    }
    if (c.status !== 'pending_owner_approval') return waiting(tool, body, `the contract is ${c.status} now`);
    await sleep(POLL_MS, extra.signal);
  }
  return waiting(tool, body, 'your owner has not approved yet');
}
