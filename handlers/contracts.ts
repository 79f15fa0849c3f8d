// Contracts and their milestones: read, approve, revise, cancel, onboarding link, fund, release.
// The rules live in src/services/contracts.ts and milestones.ts; these shape requests and responses.
import type { Handlers, ResponseOf } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import * as contracts from '../src/services/contracts.ts';
import * as milestones from '../src/services/milestones.ts';
import { receiptKeySet } from '../src/services/receipts.ts';
import * as approvalPolicy from '../src/services/approval-policy.ts';
import * as approvals from '../src/services/approvals.ts';
import * as passkeys from '../src/services/passkeys.ts';
import { presentApproval, presentMilestone } from '../src/presenters/contracts.ts';

export function contractHandlers(): Handlers<
  | 'listContracts'
  | 'getContract'
  | 'approveContract'
  | 'listContractApprovals'
  | 'getReceiptKeys'
  | 'reviseContract'
  | 'cancelContract'
  | 'getConnectLink'
  | 'fundMilestone'
  | 'releaseMilestone'
> {
  return {
    async listContracts(request, _reply, { ctx }) {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const { rows, present } = await contracts.listContracts(ctx, actorOf(request), {
        status: request.query.status,
        limit,
        beforeId: decodeCursor(request.query.cursor),
      });
      return page(rows, limit, present);
    },

    async getContract(request, _reply, { ctx }) {
      return contracts.contractView(ctx, await contracts.getContract(ctx, actorOf(request), request.params.id));
    },

    async approveContract(request, reply, op) {
      const actor = actorOf(request);
      const seen: approvals.SeenTerms = { revisionCount: request.body?.revision_count, termsHash: request.body?.terms_hash };
      // Under owner_confirms a key only asks: 202, and the owner confirms on the contract's page.
      const ask = () => {
        reply.code(202);
        return op.final((ctx) => approvalPolicy.requestOwnerConfirmation(ctx, actor, request.params.id, seen));
      };
      if (await approvalPolicy.ownerMustConfirm(op.ctx.db, actor)) return ask();
      // Once, before any attempt: a passkey's challenge is spent by its check.
      seen.passkeyTermsHash = await passkeys.checkApprovalPasskey(op.ctx, actor, request.params.id, request.body?.passkey);
      const attempt = async (): Promise<ResponseOf<'approveContract'>> => {
        const plan = await contracts.planApproval(op.ctx, actor, request.params.id, seen, op.outside);
        return op.final(async (ctx) => {
          const { contract, connectUrl } = await contracts.approve(ctx, actor, plan);
          return { contract: await contracts.contractView(ctx, contract), connect_url: connectUrl };
        });
      };
      // The client approved between the plan and its transaction: plan again, now with the worker's
      // link. The owner chose owner_confirms meanwhile: ask instead.
      return attempt().catch((err: unknown) => {
        if (err instanceof contracts.ApprovalNeedsLink) return attempt();
        if (err instanceof contracts.ApprovalNeedsOwner) return ask();
        throw err;
      });
    },

    async listContractApprovals(request, _reply, { ctx }) {
      return { data: (await approvals.listApprovals(ctx, actorOf(request), request.params.id)).map(presentApproval) };
    },

    async getReceiptKeys(_request, reply, { ctx }) {
      reply.header('cache-control', 'public, max-age=300');
      return receiptKeySet(ctx.db);
    },

    async reviseContract(request, _reply, { ctx }) {
      const actor = actorOf(request);
      return contracts.contractView(ctx, await contracts.revise(ctx, actor, request.params.id, request.body.notes.trim()));
    },

    async cancelContract(request, _reply, { ctx }) {
      const actor = actorOf(request);
      return contracts.contractView(ctx, await contracts.cancel(ctx, actor, request.params.id));
    },

    async getConnectLink(request, _reply, { ctx }) {
      const { url } = await contracts.connectLink(ctx, actorOf(request), request.params.id);
      return { connect_url: url, provider: ctx.payments.name };
    },

    async fundMilestone(request, _reply, op) {
      const actor = actorOf(request);
      const plan = await milestones.planFunding(op.ctx, actor, request.params.id, request.params.milestoneId, op.outside);
      return op.final(async (ctx) => {
        const result = await milestones.fund(ctx, actor, plan);
        const sandbox = ctx.payments.name === 'sandbox' ? ctx.payments : undefined;
        return {
          milestone: presentMilestone(result.milestone),
          client_secret: result.clientSecret,
          payment_id: result.paymentId,
          provider: ctx.payments.name,
          payment_page_url: sandbox && result.paymentId ? sandbox.paymentPageUrl(result.paymentId) : null,
        };
      });
    },

    async releaseMilestone(request, _reply, { ctx }) {
      const actor = actorOf(request);
      const { milestone, contract } = await milestones.release(ctx, actor, request.params.id, request.params.milestoneId);
      return { milestone: presentMilestone(milestone), contract: await contracts.contractView(ctx, contract) };
    },
  };
}
