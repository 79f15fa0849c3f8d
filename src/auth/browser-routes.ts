// Browser routes outside the JSON API: GitHub sign-in, the local dev sign-in, sign-out.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';

export async function registerBrowserRoutes(_app: FastifyInstance, _ctx: AppContext): Promise<void> {
  // filled in by the identity work
}
