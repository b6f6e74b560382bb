// The action in-process: `run(deps)` of src/main.ts with the real settings parser, report, summary and
// outputs, and everything GitHub would show captured instead of written. Two ways to execute:
// - `execute: 'real'`: the real `executeSettings` (config loading, clients, defaults), unchanged;
// - `execute: knobs`: the same `executeSettings`, with what a fast test needs and the action's inputs
//   do not offer: a GC lease under ten minutes, a higher request rate, `fetch` wrappers that watch
//   requests, break them or give up on them early, and a view of the run's progress events.

import type { ProgressEvent } from '../../src/commands/context.ts';
import type { ActionDependencies } from '../../src/main.ts';
import { githubActionDependencies, run } from '../../src/main.ts';
import type { RunReport } from '../../src/report/model.ts';
import { executeSettings } from '../../src/services.ts';

export interface ExecutionKnobs {
  /** The GC's own lease; the action's `gc-lease-minutes` cannot go under ten minutes. */
  leaseMs: number;
  /** Cloudflare requests per second (the action allows at most 50). */
  ratePerSecond?: number;
  /** Wraps the semaphore client's fetch, e.g. to record or break calls. */
  semaphoreFetch?: (inner: typeof fetch) => typeof fetch;
  /** Wraps the Cloudflare client's fetch. */
  cloudflareFetch?: (inner: typeof fetch) => typeof fetch;
  /** Sees every progress event (a slot started or finished) as the command emits it, after the log does. */
  onProgress?: (event: ProgressEvent) => void;
}

export interface InProcessRun {
  /** What the runner's process would exit with: 1 once `setFailed` was called. */
  exitCode: 0 | 1;
  /** Every line the action logged (info, annotations, the failure), as the runner would print it. */
  log: string;
  summary: string;
  outputs: Record<string, string>;
  /** The `report` output, parsed; undefined when the run stopped before it had one (bad inputs). */
  report: RunReport | undefined;
  /** Values passed to setSecret, in order. */
  masked: string[];
}

/**
 * A fetch wrapper that gives up on the requests `applies` picks after `ms`, the way the clients give up
 * on a stuck connection (both see a TimeoutError). The clients' own timeouts (10 s for the semaphore,
 * 30 s per Cloudflare attempt) cannot be shortened through the action's inputs or the eraser's
 * options, and shortening them for every request would turn a slow moment on a busy machine into a
 * fault of its own.
 */
export function timingOut(
  applies: (method: string, url: URL) => boolean,
  ms: number,
): (inner: typeof fetch) => typeof fetch {
  return (inner) => (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    if (!applies(method.toUpperCase(), url)) return inner(input, init);
    const timeout = AbortSignal.timeout(ms);
    return inner(input, {
      ...init,
      signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
    });
  };
}

/**
 * The real `executeSettings` with the knobs applied: settings are plain data, so a test may set what
 * the input parser would refuse (a lease under ten minutes, a rate over 50), and the transports are
 * the clients' own `fetch` parameters.
 */
function executeWith(knobs: ExecutionKnobs): ActionDependencies['execute'] {
  return (settings, options) =>
    executeSettings(
      {
        ...settings,
        gcLeaseMinutes: knobs.leaseMs / 60_000,
        requestsPerSecond: knobs.ratePerSecond ?? settings.requestsPerSecond,
      },
      {
        ...options,
        progress: (event) => {
          options.progress(event);
          knobs.onProgress?.(event);
        },
        fetch: {
          ...(knobs.semaphoreFetch === undefined ? {} : { semaphore: knobs.semaphoreFetch(fetch) }),
          ...(knobs.cloudflareFetch === undefined ? {} : { cloudflare: knobs.cloudflareFetch(fetch) }),
        },
      },
    );
}

/** How @actions/core prints an annotation. */
function annotation(kind: string, message: string, properties?: { title?: string }): string {
  return `::${kind}${properties?.title === undefined ? '' : ` title=${properties.title}`}::${message}`;
}

/** Runs at once share the process: each listens for SIGINT and SIGTERM while it runs. */
const CONCURRENT_RUNS = 64;

export async function runActionInProcess(
  inputs: Record<string, string>,
  execute: 'real' | ExecutionKnobs,
): Promise<InProcessRun> {
  if (process.getMaxListeners() < CONCURRENT_RUNS) process.setMaxListeners(CONCURRENT_RUNS);
  const lines: string[] = [];
  const outputs: Record<string, string> = {};
  const masked: string[] = [];
  const summaries: string[] = [];
  let exitCode: 0 | 1 = 0;
  const deps: ActionDependencies = {
    ...githubActionDependencies(),
    readInputs: () => inputs,
    setSecret: (secret) => masked.push(secret),
    info: (message) => lines.push(message),
    setFailed: (message) => {
      exitCode = 1;
      lines.push(annotation('error', message));
    },
    setOutput: (name, value) => {
      outputs[name] = String(value);
    },
    error: (message, properties) => lines.push(annotation('error', message, properties)),
    warning: (message, properties) => lines.push(annotation('warning', message, properties)),
    notice: (message, properties) => lines.push(annotation('notice', message, properties)),
    writeSummary: async (markdown) => {
      summaries.push(markdown);
    },
    repository: () => ({ serverUrl: 'https://github.com', nameWithOwner: 'acme/shop' }),
    ...(execute === 'real' ? {} : { execute: executeWith(execute) }),
  };
  await run(deps);
  return {
    exitCode,
    log: lines.join('\n'),
    summary: summaries.join(''),
    outputs,
    report: outputs.report === undefined ? undefined : (JSON.parse(outputs.report) as RunReport),
    masked,
  };
}
