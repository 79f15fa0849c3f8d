// Contracts and their milestones: read, approve, revise, cancel, onboarding link, fund, release.
// The rules live in src/services/contracts.ts and milestones.ts; these shape requests and responses.
import type { Context } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import * as contracts from '../src/services/contracts.ts';
import * as milestones from '../src/services/milestones.ts';
import { presentMilestone } from '../src/presenters/contracts.ts';

export function contractHandlers(
  ctx: Context,
): Handlers<
  | 'listContracts'
  | 'getContract'
  | 'approveContract'
  | 'reviseContract'
  | 'cancelContract'
  | 'getConnectLink'
  | 'fundMilestone'
  | 'releaseMilestone'
> {
  return {
    async listContracts(request) {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const { rows, present } = await contracts.listContracts(ctx, actorOf(request), {
        status: request.query.status,
        limit,
        beforeId: decodeCursor(request.query.cursor),
      });
      return page(rows, limit, present);
    },

    async getContract(request) {
      return contracts.contractView(ctx, await contracts.getContract(ctx, actorOf(request), request.params.id));
    },

    async approveContract(request) {
      const actor = actorOf(request);
      const { contract, connectUrl } = await contracts.approve(ctx, actor, request.params.id, {
        revisionCount: request.body?.revision_count,
      });
      return { contract: await contracts.contractView(ctx, contract), connect_url: connectUrl };
    },

    async reviseContract(request) {
      const actor = actorOf(request);
      return contracts.contractView(ctx, await contracts.revise(ctx, actor, request.params.id, request.body.notes.trim()));
    },

    async cancelContract(request) {
      const actor = actorOf(request);
      return contracts.contractView(ctx, await contracts.cancel(ctx, actor, request.params.id));
    },

    async getConnectLink(request) {
      const { url } = await contracts.connectLink(ctx, actorOf(request), request.params.id);
      return { connect_url: url, provider: ctx.payments.name };
    },

    async fundMilestone(request) {
      const result = await milestones.fund(ctx, actorOf(request), request.params.id, request.params.milestoneId);
      const sandbox = ctx.payments.name === 'sandbox' ? ctx.payments : undefined;
      return {
        milestone: presentMilestone(result.milestone),
        client_secret: result.clientSecret,
        payment_id: result.paymentId,
        provider: ctx.payments.name,
        payment_page_url: sandbox && result.paymentId ? sandbox.paymentPageUrl(result.paymentId) : null,
      };
    },

    async releaseMilestone(request) {
      const actor = actorOf(request);
      const { milestone, contract } = await milestones.release(ctx, actor, request.params.id, request.params.milestoneId);
      return { milestone: presentMilestone(milestone), contract: await contracts.contractView(ctx, contract) };
    },
  };
}
