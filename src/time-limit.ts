// Waiting on something for a while at most: the waiter moves on, the work itself goes on (nothing
// here can cancel it), as a scrape does past a hung database or a drain past its deadline.

/** What `withinTime` rejects with once its time is up. */
export class TimeLimitExceeded extends Error {
  constructor(what: string, ms: number) {
    super(`${what} took more than ${ms} ms`);
    this.name = 'TimeLimitExceeded';
  }
}

/** `work`'s outcome if it settles within `ms`; else a TimeLimitExceeded, and whatever `work` does later is dropped. */
export function withinTime<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeLimitExceeded(what, ms)), Math.max(0, ms));
  });
  work.catch(() => {}); // a failure after the time is up is nobody's to handle
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
