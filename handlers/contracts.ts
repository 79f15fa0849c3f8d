// Contracts and their milestones: read, approve, revise, cancel, onboarding link, fund, release.
// The rules live in src/lifecycle/; these shape requests and responses.
import type { AppContext } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { principalOf } from '../src/auth/authenticate.ts';
import { notFound } from '../src/errors.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import type { Executor } from '../db/client.ts';
import * as contractsRepo from '../db/repositories/contracts.ts';
import type { ContractRow } from '../db/repositories/contracts.ts';
import * as contracts from '../src/lifecycle/contracts.ts';
import * as milestones from '../src/lifecycle/milestones.ts';
import { lifecycleDeps } from '../src/lifecycle/deps.ts';
import { presentContract, presentMilestone } from '../src/presenters/contracts.ts';

async function view(db: Executor, contract: ContractRow) {
  return presentContract(contract, await contractsRepo.listMilestones(db, [contract.id]));
}

export function contractHandlers(ctx: AppContext): Handlers<
  'listContracts' | 'getContract' | 'approveContract' | 'reviseContract' | 'cancelContract' | 'getConnectLink' | 'fundMilestone' | 'releaseMilestone'
> {
  const deps = lifecycleDeps(ctx);
  return {
    async listContracts(request) {
      const { userId } = principalOf(request);
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await contractsRepo.listContractsForParty(ctx.db, userId, { status: request.query.status, limit, beforeId: decodeCursor(request.query.cursor) });
      const all = await contractsRepo.listMilestones(ctx.db, rows.slice(0, limit).map((c) => c.id));
      return page(rows, limit, (c) => presentContract(c, all));
    },

    async getContract(request) {
      const { userId } = principalOf(request);
      const contract = await contractsRepo.getContractForParty(ctx.db, userId, request.params.id);
      if (!contract) throw notFound('contract');
      return view(ctx.db, contract);
    },

    async approveContract(request) {
      const { userId } = principalOf(request);
      const { contract, connectUrl } = await contracts.approve(deps, userId, request.params.id, { revisionCount: request.body?.revision_count });
      return { contract: await view(ctx.db, contract), connect_url: connectUrl };
    },

    async reviseContract(request) {
      const { userId } = principalOf(request);
      return view(ctx.db, await contracts.revise(deps, userId, request.params.id, request.body.notes.trim()));
    },

    async cancelContract(request) {
      const { userId } = principalOf(request);
      return view(ctx.db, await contracts.cancel(deps, userId, request.params.id));
    },

    async getConnectLink(request) {
      const { userId } = principalOf(request);
      const { url } = await contracts.connectLink(deps, userId, request.params.id);
      return { connect_url: url, provider: ctx.payments.name };
    },

    async fundMilestone(request) {
      const { userId } = principalOf(request);
      const result = await milestones.fund(deps, userId, request.params.id, request.params.milestoneId);
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
      const { userId } = principalOf(request);
      const { milestone, contract } = await milestones.release(deps, userId, request.params.id, request.params.milestoneId);
      return { milestone: presentMilestone(milestone), contract: await view(ctx.db, contract) };
    },
  };
}
