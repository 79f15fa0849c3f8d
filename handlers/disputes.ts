// Disputes: open, read, respond, evidence (text and files), withdraw, the advisory recommendation,
// accept an outcome. The rules live in src/services/disputes.ts, dispute-recommendation.ts and
// dispute-resolution.ts; files arrive read by src/http/uploads.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { sendInertFile, uploadOf } from '../src/http/uploads.ts';
import { decodeCursor, DEFAULT_LIMIT, page } from '../src/http/pagination.ts';
import * as disputes from '../src/services/disputes.ts';
import * as resolution from '../src/services/dispute-resolution.ts';
import { askForAdvice, recommend } from '../src/services/dispute-recommendation.ts';

type Operations =
  | 'listDisputes'
  | 'createDispute'
  | 'getDispute'
  | 'respondToDispute'
  | 'addDisputeEvidence'
  | 'uploadDisputeEvidence'
  | 'getDisputeEvidenceFile'
  | 'withdrawDispute'
  | 'acceptDisputeOutcome'
  | 'requestDisputeRecommendation';

export function disputeHandlers(): Handlers<Operations> {
  return {
    async listDisputes(request, _reply, { ctx }) {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const { rows, present } = await disputes.listDisputes(ctx, actorOf(request), {
        status: request.query.status,
        contractId: request.query.contract_id,
        limit,
        beforeId: decodeCursor(request.query.cursor),
      });
      return page(rows, limit, present);
    },

    async createDispute(request, reply, { ctx }) {
      const { reason, description, milestone_ids } = request.body;
      const view = await disputes.openDispute(ctx, actorOf(request), request.params.id, {
        reason,
        description,
        milestoneIds: milestone_ids,
      });
      reply.code(201);
      return view;
    },

    getDispute: (request, _reply, { ctx }) => disputes.getDispute(ctx, actorOf(request), request.params.id, request.query.evidence === 1),

    respondToDispute: (request, _reply, { ctx }) => disputes.respond(ctx, actorOf(request), request.params.id, request.body.text),

    async addDisputeEvidence(request, reply, { ctx }) {
      const view = await disputes.addTextEvidence(ctx, actorOf(request), request.params.id, request.body.text);
      reply.code(201);
      return view;
    },

    async uploadDisputeEvidence(request, reply, { ctx }) {
      const file = uploadOf(request, 'file');
      const view = await disputes.addFileEvidence(ctx, actorOf(request), request.params.id, file.bytes);
      reply.code(201);
      return view;
    },

    async getDisputeEvidenceFile(request, reply, { ctx }) {
      const actor = actorOf(request);
      const file = await disputes.readEvidenceFile(ctx, actor, request.params.id, request.params.evidenceId);
      return sendInertFile(reply, file);
    },

    withdrawDispute: (request, _reply, { ctx }) => disputes.withdraw(ctx, actorOf(request), request.params.id),

    async requestDisputeRecommendation(request, _reply, op) {
      const actor = actorOf(request);
      const advice = await askForAdvice(op.ctx, actor, request.params.id, op.outside);
      return op.final((ctx) => recommend(ctx, actor, request.params.id, advice));
    },

    acceptDisputeOutcome: (request, _reply, { ctx }) => {
      const body = request.body;
      return resolution.accept(ctx, actorOf(request), request.params.id, {
        outcome: body.outcome,
        workerSharePercent: 'worker_share_percent' in body ? body.worker_share_percent : null,
      });
    },
  };
}
