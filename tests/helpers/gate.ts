// A gate a fake holds its answers at until the test opens it: "while the outside service still
// holds the request" as a fact the test controls, not a delay a slow machine can outrun.
export interface Gate {
  /** Settles when the gate opens. */
  until: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open = () => {};
  const until = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { until, open: () => open() };
}
