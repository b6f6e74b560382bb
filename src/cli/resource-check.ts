// Before slots join the pool: do their Cloudflare resources exist? preview-gc never creates resources,
// so a slot whose database is missing would only fail at its first erase, after a pull request used
// it. With Cloudflare credentials every slot is checked with one listing per kind, shared by all
// slots; without them the command says it did not check.
import { describeCredentialProblem } from '../cloudflare/credentials.ts';
import type { NameResolver } from '../cloudflare/resolver.ts';
import type { RunPlace } from '../config/run-place.ts';
import type { Settings } from '../config/settings.ts';
import { resourcesForSlot, type SlotConfig, type SlotResources } from '../config/slot-config.ts';
import { createPacer } from '../gc/cloudflare-eraser.ts';
import type { CliIO } from './io.ts';
import { CommandFailure } from './spec.ts';

/** A check of a few listings; it gets the time a person waits for at a terminal, no more. */
const CHECK_DEADLINE_MS = 5 * 60_000;

interface Named {
  what: string;
  name: string;
  /** Where the name came from: its template and that template's place in the config. */
  origin: { template: string; path: string };
  exists: (resolver: NameResolver) => Promise<boolean>;
}

/** Every resource of a slot, with how to tell it exists. */
function namedResources(resources: SlotResources): Named[] {
  const found = (lookup: Promise<unknown>) => lookup.then((value) => value !== undefined);
  return [
    ...resources.workers.map((worker) => ({
      what: 'Worker',
      name: worker.name,
      origin: worker,
      exists: (resolver: NameResolver) => found(resolver.workerScript(worker.name)),
    })),
    ...resources.d1.map((database) => ({
      what: 'D1 database',
      name: database.name,
      origin: database,
      exists: (resolver: NameResolver) => found(resolver.d1DatabaseId(database.name)),
    })),
    ...resources.kv.map((namespace) => ({
      what: 'KV namespace',
      name: namespace.title,
      origin: namespace,
      exists: (resolver: NameResolver) => found(resolver.kvNamespaceId(namespace.title)),
    })),
    ...resources.r2.map((bucket) => ({
      what:
        bucket.jurisdiction === 'default' ? 'R2 bucket' : `R2 bucket (jurisdiction ${bucket.jurisdiction})`,
      name: bucket.bucket,
      origin: bucket,
      exists: (resolver: NameResolver) => resolver.r2BucketExists(bucket.bucket, bucket.jurisdiction),
    })),
  ];
}

/**
 * Refuses (CommandFailure, nothing changed) when a resource of one of `slugs` does not exist; says on
 * stderr what was checked, or why nothing was. A check that cannot get its answers only warns: the
 * semaphore does not need Cloudflare, and the first erase reports a missing resource anyway.
 */
export async function checkSlotResources(
  config: SlotConfig | null,
  slugs: readonly string[],
  settings: Settings,
  io: Pick<CliIO, 'err' | 'signal'>,
  place: RunPlace,
): Promise<void> {
  if (slugs.length === 0) return;
  const { apiToken, accountId } = settings.cloudflare;
  if (config === null) {
    io.err(
      'Not checked that the Cloudflare resources of the slots exist: no slot config names them (--config).',
    );
    return;
  }
  if (apiToken === '' || accountId === '') {
    io.err(
      'Not checked that the Cloudflare resources of the slots exist: set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID to check.',
    );
    return;
  }
  const options = {
    apiToken,
    accountId,
    baseUrl: settings.cloudflare.apiBaseUrl,
    budget: settings.requestBudget,
    ratePerSecond: settings.requestsPerSecond,
    deadlineAt: Date.now() + CHECK_DEADLINE_MS,
    signal: io.signal,
  };
  // The Cloudflare client is loaded only here, as the erase loads it: a command without a check never parses it.
  const { connect } = await import('../gc/cloudflare-connection.ts');
  const { account, resolver, checkCredentials } = connect(options, createPacer(options));
  const credentials = await checkCredentials(account, resolver.probes(config.resources));
  if (credentials !== null) {
    io.err(
      describeCredentialProblem(credentials, {
        accountId,
        place,
        consequence: "the slots' resources were not checked",
      }),
    );
    return;
  }
  const missing: string[] = [];
  try {
    for (const slug of slugs) {
      for (const resource of namedResources(resourcesForSlot(config, slug))) {
        if (!(await resource.exists(resolver)))
          missing.push(
            `  - ${slug}: ${resource.what} '${resource.name}' (from '${resource.origin.template}' at ${config.file} ${resource.origin.path})`,
          );
      }
    }
  } catch (error) {
    io.err(
      `Not checked that the Cloudflare resources of the slots exist: ${error instanceof Error ? error.message : String(error)}`,
    );
    return;
  }
  if (missing.length > 0) {
    throw new CommandFailure(
      [
        `nothing was changed: these resources do not exist in account ${accountId}:`,
        ...missing,
        `preview-gc never creates resources: create them (wrangler d1 create, …), fix the templates in ${config.file}, or add only the slots whose resources exist.`,
      ].join('\n'),
    );
  }
  io.err(`Checked in account ${accountId}: every resource of the ${slugs.length} slot(s) to add exists.`);
}
