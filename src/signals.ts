// SIGINT/SIGTERM: the first one asks the run to wind down (stop the step, release, report); a second
// one, a person pressing Ctrl-C again, exits at once. GitHub sends SIGINT, then SIGTERM ~7.5 s later.
const TERMINATION_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export function onTerminationSignals(windDown: (signal: NodeJS.Signals) => void): () => void {
  let received = false;
  const listener = (signal: NodeJS.Signals) => {
    if (received) process.exit(130);
    received = true;
    windDown(signal);
  };
  for (const signal of TERMINATION_SIGNALS) process.on(signal, listener);
  return () => {
    for (const signal of TERMINATION_SIGNALS) process.off(signal, listener);
  };
}
