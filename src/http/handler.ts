// Handlers are typed by operationId from the generated spec types.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { operations } from '../generated/api.d.ts';
import type { Operation } from './operation.ts';

export type OperationId = keyof operations;

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : undefined;
type BodyOf<O> = O extends { requestBody: infer R }
  ? JsonContent<NonNullable<R>>
  : O extends { requestBody?: infer R }
    ? JsonContent<NonNullable<R>>
    : undefined;
// `{ [K in P]?: ... }` so that an optional part (`query?: {...}` when no query parameter is
// required) is typed too; `never` (no such part) becomes unknown.
type PartOf<O, P extends string> = O extends { parameters: infer Ps }
  ? Ps extends { [K in P]?: infer X }
    ? [NonNullable<X>] extends [never]
      ? unknown
      : NonNullable<X>
    : unknown
  : unknown;

export type RequestOf<K extends OperationId> = FastifyRequest<{
  Body: BodyOf<operations[K]>;
  Params: PartOf<operations[K], 'path'>;
  Querystring: PartOf<operations[K], 'query'>;
}>;

type SuccessBody<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonContent<R[S]> : never }[keyof R]
  : never;

export type ResponseOf<K extends OperationId> = SuccessBody<operations[K]>;

/**
 * A handler returns the success body, after `reply.code(...)` for a status other than 200. It runs
 * the operation through `op` (src/http/operation.ts): `op.ctx` is the context to call services with.
 */
export type Handler<K extends OperationId> = (
  request: RequestOf<K>,
  reply: FastifyReply,
  op: Operation,
) => Promise<ResponseOf<K> | FastifyReply>;

export type Handlers<K extends OperationId> = { [P in K]: Handler<P> };
