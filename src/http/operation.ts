// What a handler runs an operation with: the context, its outside calls, and its last
// transaction, handed to it explicitly (docs/architecture.md §2). An operation is either one
// transaction (most of them: the route runs the whole handler as its final phase), or, when it
// calls outside the process (`x-fastify-config: { outsideCalls: true }` in the spec), outside
// calls with no transaction open, each recorded as a recovery point on its Idempotency-Key,
// followed by one final transaction. With a key, the final transaction also records the response,
// so the effects and the answer a retry replays commit together or not at all.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { completeKey, fenceKey, recordPhase } from '../../db/repositories/idempotency.ts';
import { conflict } from '../errors.ts';
import { recordedBody } from './idempotency.ts';
import { callNow, type Outside } from '../outside.ts';
import { crashPoint } from '../crash-points.ts';

export interface Operation {
  /** The context; inside the final phase of a request with an Idempotency-Key, `db` is its transaction. */
  ctx: Context;
  /**
   * A call outside the process (payment provider, model, webhook receiver, DNS), made with no
   * transaction open. With a key, its result is recorded under `phase`, and a retry of the same
   * request after a crash gets the recorded result instead of calling again. Results must be JSON.
   */
  outside: Outside;
  /** The operation's last transaction; returns the response body. With a key, the response commits with it. */
  final<T>(write: (ctx: Context) => Promise<T>): Promise<T>;
}

const lostKey = () => conflict('a request with this Idempotency-Key is still in progress; retry later');

export function operationOf(ctx: Context, request: FastifyRequest, reply: FastifyReply): Operation {
  const held = request.idempotency;
  if (!held) return { ctx, outside: callNow, final: (write) => write(ctx) };
  return {
    ctx,
    async outside(phase, call) {
      if (phase in held.phases) return held.phases[phase] as Awaited<ReturnType<typeof call>>;
      const result = await call();
      crashPoint('after-outside-call', held.claim.key);
      if (!(await recordPhase(ctx.db, held.claim, phase, result))) throw lostKey();
      held.phases[phase] = result;
      return result;
    },
    async final(write) {
      crashPoint('before-final-transaction', held.claim.key);
      const body = await ctx.db.transaction(async (tx) => {
        // Another attempt took the key over (this one outlived the lock's time-out): it does the work.
        if (!(await fenceKey(tx, held.claim))) throw lostKey();
        const result = await write({ ...ctx, db: tx });
        const payload = result === undefined ? '' : String(reply.serialize(result));
        await completeKey(tx, held.claim, {
          status: reply.statusCode,
          body: recordedBody(request, reply.statusCode, payload),
          contentType: result === undefined ? null : 'application/json; charset=utf-8',
        });
        return result;
      });
      held.recorded = true;
      crashPoint('after-final-transaction', held.claim.key);
      return body;
    },
  };
}

/**
 * The handler of a one-transaction operation with a key runs whole as its final phase; inside it,
 * an outside call would hold the transaction open while it waits, so it is refused.
 */
export function finalPhaseOperation(ctx: Context): Operation {
  return {
    ctx,
    outside: (phase) => {
      throw new Error(`outside call "${phase}" inside a transaction: mark the operation outsideCalls in the spec`);
    },
    final: (write) => write(ctx),
  };
}
