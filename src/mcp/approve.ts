// approveContract through MCP: the owner says yes, not the agent. For an owner whose
// approval_policy is owner_confirms the owner approves on the contract's page (owner-confirms.ts).
// Otherwise the tool reads the contract, shows
// the human its exact terms through the client's elicitation (a form with one boolean, `confirm`)
// and approves, naming the revision_count and terms hash it showed, only on an explicit yes. Without elicitation,
// or on anything but a yes, nothing is approved and the result carries the dashboard link where
// the owner approves. A contract is approvable only while pending_owner_approval; its terms there
// are fixed by revision_count (a revise bumps it), so the yes can only land on the terms shown.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { buildRequest, type CallApi, errorResult, isEnvelope, structuredResult, toolResult } from './request.ts';
import { askOwnerToConfirm } from './owner-confirms.ts';
import type { NOT_APPROVED_REASONS, ToolDefinition } from './schema.ts';
import { escapedJson } from './untrusted.ts';

/** How long the owner has to answer the form before the tool gives up (and approves nothing). */
export const OWNER_ANSWER_TIMEOUT_MS = 10 * 60_000;

interface Milestone {
  title: string;
  amount_cents: number;
  due_date: string | null;
}

interface Contract {
  id: string;
  gig_id: string;
  client_user_id: string;
  status: string;
  rate_cents: number | null;
  hours_per_week: number | null;
  start_date: string | null;
  payout_delay_days: number;
  currency: string;
  milestones: Milestone[];
  approval_deadline: string | null;
  revision_count: number;
  terms_hash: string;
}

export interface ApproveContext {
  mcp: McpServer;
  call: CallApi;
  /** Where the owner approves this contract themselves (the dashboard). */
  approvalUrl: (contractId: string) => string;
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
}

type Reason = (typeof NOT_APPROVED_REASONS)[number];

const REASONS: Record<Reason, string> = {
  elicitation_unsupported: 'this MCP client cannot ask your owner (no elicitation capability)',
  declined: 'your owner declined',
  cancelled: 'your owner dismissed the question',
  not_confirmed: 'your owner did not confirm',
  no_answer: 'no answer came from your owner',
};

function money(cents: number, currency: string): string {
  let format: Intl.NumberFormat;
  try {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
  } catch {
    return `${cents} cents ${currency}`;
  }
  return format.format(cents / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

/**
 * Text a counterparty wrote (a title), as the terms show it: in quotes, escaped as JSON (with every
 * control, format or line-separator character written as `\uXXXX`), so it cannot end the quote,
 * break the line or reorder what is around it (a bidi override).
 */
const quoted = (text: string): string => escapedJson(text);

/**
 * The terms as the owner reads them: every field the approval binds them to. What we write and
 * what the counterparty wrote stay apart: each title is quoted on a line of its own, after the
 * line that says what it is the title of.
 */
export function termsText(
  contract: Omit<Contract, 'terms_hash'>,
  role: 'client' | 'worker' | undefined,
  gigTitle: string | undefined,
): string {
  const c = contract;
  const total = c.milestones.reduce((sum, m) => sum + m.amount_cents, 0);
  const side = role === 'client' ? 'You are the client: you pay.' : role === 'worker' ? 'You are the worker: you are paid.' : '';
  const lines = [
    `Approve contract ${c.id} for gig ${c.gig_id}? ${side}`.trim(),
    'It binds once both owners have approved it.',
    ...(gigTitle === undefined ? [] : ['The gig is titled:', `  ${quoted(gigTitle)}`]),
    '',
    `Terms (revision_count ${c.revision_count}):`,
    `- Rate: ${c.rate_cents === null ? 'none stated' : `${money(c.rate_cents, c.currency)} per hour`}`,
    `- Hours per week: ${c.hours_per_week ?? 'none stated'}`,
    `- Start date: ${c.start_date ?? 'none stated'}`,
    `- Payout delay: ${c.payout_delay_days} days after each release`,
    `- Milestones (${c.milestones.length}, total ${money(total, c.currency)}):`,
    ...c.milestones.flatMap((m, i) => [
      `  ${i + 1}. ${money(m.amount_cents, c.currency)}${m.due_date ? `, due ${m.due_date}` : ''}, titled:`,
      `     ${quoted(m.title)}`,
    ]),
    `Approval deadline: ${c.approval_deadline ?? 'none'}`,
    '',
    'Confirm only if you, the owner, approve these exact terms.',
  ];
  return lines.join('\n');
}

function notApproved(tool: ToolDefinition, contract: Omit<Contract, 'terms_hash'>, reason: Reason, url: string): CallToolResult {
  const message =
    `Not approved: ${REASONS[reason]}. Only the owner can approve contract ${contract.id}; ` +
    `ask them to review and approve it at ${url} (revision_count ${contract.revision_count}).`;
  return structuredResult(tool, {
    approved: false,
    reason,
    approve_url: url,
    contract_id: contract.id,
    revision_count: contract.revision_count,
    message,
  });
}

type Read = { ok: true; body: unknown } | { ok: false; result: CallToolResult };

/** A read the tool needs; refused, its refusal is the tool's answer. */
async function getJson(call: CallApi, tool: ToolDefinition, url: string): Promise<Read> {
  const response = await call({ method: 'GET', url, headers: {} });
  if (response.status === 200) return { ok: true, body: response.body };
  return { ok: false, result: toolResult(tool, response) };
}

export async function approveWithOwner(
  context: ApproveContext,
  tool: ToolDefinition,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const { mcp, call, approvalUrl, extra } = context;
  const request = buildRequest(tool, args);
  if (isEnvelope(request)) return errorResult(request);
  const id = encodeURIComponent(String(args.id));
  const read = await getJson(call, tool, `/api/contracts/${id}`);
  if (!read.ok) return read.result;
  const contract = read.body as Contract;
  if (contract.status !== 'pending_owner_approval') {
    // Anything else: the API would refuse, and outside this status terms may still change under the same revision_count.
    return errorResult({
      error: {
        code: 'INVALID_STATE',
        message: `cannot approve a contract that is ${contract.status} (allowed from: pending_owner_approval)`,
        issues: [],
      },
    });
  }
  const seen = (args.body as { revision_count?: unknown } | undefined)?.revision_count;
  if (seen !== undefined && seen !== contract.revision_count) {
    return errorResult({
      error: {
        code: 'INVALID_STATE',
        message: `the contract was revised since revision_count ${seen}: it is at ${contract.revision_count}; read it again`,
        issues: [],
      },
    });
  }
  const body = typeof args.body === 'object' && args.body !== null ? args.body : {};
  // Bound to the terms shown: changed since, the API refuses (and under owner_confirms it only asks the owner).
  const approval = { ...request, body: { ...body, revision_count: contract.revision_count, terms_hash: contract.terms_hash } };
  const profile = await getJson(call, tool, '/api/profile/me');
  if (!profile.ok) return profile.result;
  if ((profile.body as { approval_policy: string }).approval_policy === 'owner_confirms')
    return askOwnerToConfirm({ mcp, call, extra, tool, timeoutMs: OWNER_ANSWER_TIMEOUT_MS }, approval);

  const url = approvalUrl(contract.id);
  if (!mcp.server.getClientCapabilities()?.elicitation?.form) return notApproved(tool, contract, 'elicitation_unsupported', url);

  const [me, gig] = await Promise.all([
    getJson(call, tool, '/api/keys/verify'),
    getJson(call, tool, `/api/gigs/${encodeURIComponent(contract.gig_id)}`),
  ]);
  const userId = me.ok ? (me.body as { user_id: string }).user_id : undefined;
  const role = userId === undefined ? undefined : userId === contract.client_user_id ? 'client' : 'worker';
  const gigTitle = gig.ok ? (gig.body as { title: string }).title : undefined;

  let answer: Awaited<ReturnType<McpServer['server']['elicitInput']>>;
  try {
    answer = await mcp.server.elicitInput(
      {
        mode: 'form',
        message: termsText(contract, role, gigTitle),
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: {
              type: 'boolean',
              title: 'I approve these terms',
              description: `Approve contract ${contract.id} at revision_count ${contract.revision_count}, as shown above.`,
              default: false,
            },
          },
          required: ['confirm'],
        },
      },
      { relatedRequestId: extra.requestId, signal: extra.signal, timeout: OWNER_ANSWER_TIMEOUT_MS },
    );
  } catch {
    return notApproved(tool, contract, 'no_answer', url);
  }
  if (answer.action === 'decline') return notApproved(tool, contract, 'declined', url);
  if (answer.action === 'cancel') return notApproved(tool, contract, 'cancelled', url);
  if (answer.content?.confirm !== true) return notApproved(tool, contract, 'not_confirmed', url);

  return toolResult(tool, await call(approval));
}
