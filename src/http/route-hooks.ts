// Hooks attached to a route when it is registered (an `onRoute` hook), so that a step runs only on
// the routes it applies to and decides nothing per request that the route already tells.
import type { RouteOptions } from 'fastify';

type HookName = 'onRequest' | 'preValidation' | 'preHandler' | 'onSend' | 'onResponse';

/** Appends `hook` to the route's own hooks of that kind (Fastify takes one function or an array). */
export function addRouteHook(route: RouteOptions, name: HookName, hook: unknown): void {
  const current = route[name] as unknown;
  (route as unknown as Record<HookName, unknown[]>)[name] = [
    ...(current === undefined ? [] : Array.isArray(current) ? current : [current]),
    hook,
  ];
}
