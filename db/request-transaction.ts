// A transaction that spans a whole request, so that a request's effects and its Idempotency-Key
// record commit together (or not at all). Drizzle's transactions are callbacks; an open one here
// is the callback held open until the caller decides. While code runs inside `runInTransaction`,
// the database handle from `ambientDb` sends every query through that transaction, and a service's
// own `db.transaction(...)` becomes a savepoint within it: services need not know.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db, Tx } from './types.ts';

export interface OpenTransaction {
  tx: Tx;
  /** Commits; rejects if the commit fails. */
  commit(): Promise<void>;
  /** Rolls back; never rejects. */
  rollback(): Promise<void>;
}

/** Begins a transaction and hands it over open. */
export function openTransaction(db: Db): Promise<OpenTransaction> {
  return new Promise((opened, failedToOpen) => {
    let decide!: (commit: boolean) => void;
    const decision = new Promise<boolean>((resolve) => {
      decide = resolve;
    });
    let isOpen = false;
    const finished = db.transaction(async (tx) => {
      isOpen = true;
      opened({
        tx,
        commit: () => {
          decide(true);
          return finished;
        },
        rollback: () => {
          decide(false);
          return finished.catch(() => {});
        },
      });
      if (!(await decision)) tx.rollback();
    });
    // Before it opened: the caller hears it here. After: commit() reports it, rollback() ignores it.
    finished.catch((err: unknown) => {
      if (!isOpen) failedToOpen(err);
    });
  });
}

const current = new AsyncLocalStorage<Tx>();

/** Read through an `ambientDb` handle: the database or transaction its queries go to right now. */
const ACTIVE = Symbol('active database handle');

/** The handle queries on `db` reach now: the request's transaction or the database for an ambient handle; `db` itself otherwise. */
export function activeHandle<T extends object>(db: T): T {
  return ((db as { [ACTIVE]?: T })[ACTIVE] ?? db) as T;
}

/** Runs `fn` with `tx` as the transaction every query of `ambientDb` goes through. */
export function runInTransaction<T>(tx: Tx, fn: () => T): T {
  return current.run(tx, fn);
}

/**
 * The database handle the application uses: the database itself, or, inside runInTransaction, the
 * request's transaction. Methods are bound to whichever is current at the moment they are read.
 */
export function ambientDb(root: Db): Db {
  // Every query reads a method through here: bind each once per handle, not on every read.
  const bound = new WeakMap<object, Map<PropertyKey, unknown>>();
  return new Proxy(root, {
    get(target, property) {
      const active: object = current.getStore() ?? target;
      if (property === ACTIVE) return active;
      const value = Reflect.get(active, property, active);
      // Drizzle recognises its objects by their constructor: leave that one unbound.
      if (typeof value !== 'function' || property === 'constructor') return value;
      let methods = bound.get(active);
      if (!methods) bound.set(active, (methods = new Map()));
      let method = methods.get(property);
      if (!method) methods.set(property, (method = value.bind(active)));
      return method;
    },
  });
}
