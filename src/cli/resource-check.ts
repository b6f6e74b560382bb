// Before slots join the pool: do their Cloudflare resources exist? Adding slots creates no resources,
// so a slot whose database is missing would only fail at its first erase, after a pull request used
// it. With Cloudflare credentials every slot is checked with one listing per kind, shared by all
// slots; without them the command says it did not check.
import { cloudflareOptionsOf, createPacer } from '../commands/cloudflare-eraser.ts';
import { describeCredentialProblem } from '../commands/credential-problem.ts';
import { resourcePresence } from '../commands/resource-presence.ts';
import type { RunPlace } from '../config/run-place.ts';
import type { Settings } from '../config/settings.ts';
import type { SlotConfig } from '../config/slot-config.ts';
import type { CliIO } from './io.ts';
import { CommandFailure } from './spec.ts';

/** A check of a few listings; it gets the time a person waits for at a terminal, no more. */
const CHECK_DEADLINE_MS = 5 * 60_000;

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
  const options = cloudflareOptionsOf(settings, {
    deadlineAt: Date.now() + CHECK_DEADLINE_MS,
    signal: io.signal,
  });
  // The Cloudflare client is loaded only here, as the erase loads it: a command without a check never parses it.
  const { connect } = await import('../commands/cloudflare-connection.ts');
  const { checkCredentials, exists } = connect(options, createPacer(options));
  const credentials = await checkCredentials(config.resources);
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
      const presence = await resourcePresence(config, slug, exists);
      missing.push(...presence.missing.map((resource) => `  - ${slug}: ${resource}`));
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
        `adding slots creates no resources: create the missing ones with preview-gc slots provision (or wrangler d1 create, …), fix the templates in ${config.file}, or add only the slots whose resources exist.`,
      ].join('\n'),
    );
  }
  io.err(`Checked in account ${accountId}: every resource of the ${slugs.length} slot(s) to add exists.`);
}
