// What gc does with each Worker Preview of a Worker in `worker-previews`, decided from what the run
// read (the previews, each one's latest deployment, the repository's pull requests) and nothing else:
// a pure function, so a dry run plans exactly what a real run does. A preview is tied to a pull request
// by its name, the way `wrangler preview` names it: `--name`, or else the branch it runs on, taken as
// is (wrangler's deploy-helpers preview/shared.ts, getBranchName: Workers CI's branch, GITHUB_HEAD_REF
// or GITHUB_REF_NAME, CI_COMMIT_REF_NAME, then `git rev-parse --abbrev-ref HEAD`). The slug the API
// derives from the name (lower case, `-` for other characters) is not used: `feature/a` and
// `feature-a` are different branches with the same slug.
import { firstMatchingGlob } from '../config/glob.ts';
import type { WorkerPreviewsEntry } from '../config/worker-previews-config.ts';
import type { ListedPullRequest } from '../github/pull-requests.ts';
import type { WorkerPreviewRow } from '../report/model.ts';
import { formatDurationSeconds } from '../text/duration.ts';

/** A preview as the run read it. */
export interface ReadPreview {
  name: string;
  /** Its latest deployment's time, else the preview's own (updated, created), in ms; undefined: unknown. */
  lastActiveAt: number | undefined;
  /** The latest deployment's time as the API wrote it, for the report. */
  lastDeployment: string | null;
}

export type PlannedRow = Omit<WorkerPreviewRow, 'action' | 'sharesWithProduction'> & {
  decision: 'delete' | 'keep';
};

const PR_NAME = /^pr-([1-9]\d{0,9})$/;

/** The pull request a preview is named after, or null. `pulls` null: GitHub was not read. */
export function pullRequestOfPreview(
  name: string,
  pulls: readonly ListedPullRequest[] | null,
): WorkerPreviewRow['pullRequest'] {
  const numbered = PR_NAME.exec(name);
  if (numbered !== null) {
    const number = Number(numbered[1]);
    return { number, state: pulls?.find((pull) => pull.number === number)?.state ?? 'unknown' };
  }
  // A branch reused by several pull requests: an open one first, else the most recently updated (the
  // listing's order).
  const fromBranch = (pulls ?? []).filter((pull) => pull.headRef === name);
  const pull = fromBranch.find((candidate) => candidate.state === 'open') ?? fromBranch[0];
  return pull === undefined ? null : { number: pull.number, state: pull.state };
}

/** Whether every preview's name is answered by `pulls`: the pages read so far are enough. */
export function allTied(names: readonly string[], pulls: readonly ListedPullRequest[]): boolean {
  return names.every((name) => {
    const tied = pullRequestOfPreview(name, pulls);
    return tied !== null && tied.state !== 'unknown';
  });
}

/** "4d", "3h": the largest whole unit, for a person. */
function roughly(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const) {
    if (ms >= size) return `${Math.floor(ms / size)}${unit}`;
  }
  return `${Math.max(0, Math.floor(ms / 1000))}s`;
}

/**
 * The plan for one Worker's previews: delete every preview of a closed or merged pull request, every
 * one idle past `ttl`, then the oldest idle ones beyond `max`; never one `keep` names, nor any of a
 * Worker the production guard protects (`protection` says why).
 */
export function planWorkerPreviews(
  entry: WorkerPreviewsEntry,
  previews: readonly ReadPreview[],
  pulls: readonly ListedPullRequest[] | null,
  now: number,
  protection: string | undefined,
): PlannedRow[] {
  const ttlMs = entry.ttlSeconds * 1000;
  const ttl = formatDurationSeconds(entry.ttlSeconds);
  const rows = previews.map((preview): PlannedRow & { pinned: boolean; lastActiveAt: number } => {
    const pullRequest = pullRequestOfPreview(preview.name, pulls);
    const base = {
      name: preview.name,
      pullRequest,
      lastDeployment: preview.lastDeployment,
      lastActiveAt: preview.lastActiveAt ?? now,
    };
    const glob = firstMatchingGlob(preview.name, entry.keep);
    if (glob !== undefined)
      return { ...base, pinned: true, decision: 'keep', why: `\`keep\` names it ('${glob}')` };
    if (protection !== undefined)
      return {
        ...base,
        pinned: true,
        decision: 'keep',
        why: `the Worker is protected: its name ${protection}`,
      };
    if (pullRequest !== null && (pullRequest.state === 'closed' || pullRequest.state === 'merged'))
      return {
        ...base,
        pinned: false,
        decision: 'delete',
        why: `pull request #${pullRequest.number} is ${pullRequest.state}`,
      };
    const idle = preview.lastActiveAt === undefined ? 0 : now - preview.lastActiveAt;
    if (idle > ttlMs)
      return {
        ...base,
        pinned: false,
        decision: 'delete',
        why: `no deployment for ${roughly(idle)}, past the ttl of ${ttl}`,
      };
    const why =
      pullRequest === null
        ? `tied to no pull request; deleted once idle past the ttl of ${ttl}`
        : pullRequest.state === 'unknown'
          ? `pull request #${pullRequest.number} was not among the ones read; deleted once idle past the ttl of ${ttl}`
          : `pull request #${pullRequest.number} is open`;
    return { ...base, pinned: false, decision: 'keep', why };
  });
  if (entry.max !== undefined) {
    const kept = rows.filter((row) => row.decision === 'keep');
    const over = kept.length - entry.max;
    const oldest = kept
      .filter((row) => !row.pinned)
      .sort((a, b) => a.lastActiveAt - b.lastActiveAt)
      .slice(0, Math.max(0, over));
    for (const row of oldest) {
      row.decision = 'delete';
      row.why = `beyond \`max\` ${entry.max}: one of the ${over} idle the longest (${roughly(now - row.lastActiveAt)})`;
    }
  }
  return rows.map(({ pinned: _pinned, lastActiveAt: _last, ...row }) => row);
}

/** What a store binding is keyed by: the same key in production's settings means the same store. */
const STORE_KEYS: Record<string, { noun: string; keys: readonly string[] }> = {
  d1: { noun: 'D1 database', keys: ['database_id', 'id'] },
  kv_namespace: { noun: 'KV namespace', keys: ['namespace_id'] },
  r2_bucket: { noun: 'R2 bucket', keys: ['bucket_name'] },
  queue: { noun: 'queue', keys: ['queue_name'] },
  vectorize: { noun: 'Vectorize index', keys: ['index_name'] },
  hyperdrive: { noun: 'Hyperdrive config', keys: ['id'] },
};

/** The store a binding names ("d1:<id>", "r2_bucket:<bucket>@<jurisdiction>"), or undefined. */
function storeOf(binding: Record<string, unknown>): { key: string; noun: string; value: string } | undefined {
  const type = typeof binding.type === 'string' ? binding.type : '';
  const store = STORE_KEYS[type];
  if (store === undefined) return undefined;
  const value = store.keys.map((key) => binding[key]).find((candidate) => typeof candidate === 'string');
  if (typeof value !== 'string' || value === '') return undefined;
  const jurisdiction =
    type === 'r2_bucket' && typeof binding.jurisdiction === 'string' && binding.jurisdiction !== 'default'
      ? binding.jurisdiction
      : '';
  return { key: `${type}:${value}@${jurisdiction}`, noun: store.noun, value };
}

/** Whether a preview deployment binds a store at all (production's bindings are read only then). */
export function bindsAStore(bindings: Record<string, Record<string, unknown>>): boolean {
  return Object.values(bindings).some((binding) => storeOf(binding) !== undefined);
}

/**
 * The stores a preview's deployment (`env`, by binding name) binds that production's settings
 * (`bindings`, each with its `name`) bind too: "D1 database 'ab12…' (DB; production binds it as DB)".
 */
export function sharedWithProduction(
  preview: Record<string, Record<string, unknown>>,
  production: readonly Record<string, unknown>[],
): string[] {
  const productionStores = new Map<string, string>();
  for (const binding of production) {
    const store = storeOf(binding);
    if (store !== undefined)
      productionStores.set(store.key, typeof binding.name === 'string' ? binding.name : '?');
  }
  return Object.entries(preview).flatMap(([name, binding]) => {
    const store = storeOf(binding);
    const productionName = store === undefined ? undefined : productionStores.get(store.key);
    if (store === undefined || productionName === undefined) return [];
    return [`${store.noun} '${store.value}' (bound as ${name}; production binds it as ${productionName})`];
  });
}
