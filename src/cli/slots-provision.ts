// preview-gc slots provision: creates the Cloudflare resources the slots lack, as the slot config
// describes them (the Worker as a shell, D1, KV, R2 with its lifecycle rule, queues, Vectorize with
// its dimensions and metric). One listing per kind says what exists; what exists is never deleted or
// changed; a protected name, or one another slot of the pool maps to, is refused before any call.
import { cloudflareOptionsOf, createPacer } from '../commands/cloudflare-eraser.ts';
import { describeCredentialProblem } from '../commands/credential-problem.ts';
import { resourcesForSlot, type SlotConfig } from '../config/slot-config.ts';
import { operationsOf } from '../kinds/operations.ts';
import { describeResource, eachResource, nameOf } from '../kinds/registry.ts';
import { ALL_ENV, CLOUDFLARE_OPTIONS, cliPlace, SEMAPHORE_OPTIONS } from './inputs.ts';
import type { CliIO } from './io.ts';
import { connectPool, refuseUnderConfig } from './pool.ts';
import { wantedSlugs } from './slots-sync.ts';
import { CommandFailure, type CommandSpec } from './spec.ts';
import { clean, paint, renderTable } from './style.ts';

/** A few listings and creates; a person waits for them at a terminal. */
const PROVISION_DEADLINE_MS = 10 * 60_000;

interface Provisioned {
  slug: string;
  resource: string;
  action: 'exists' | 'would-create' | 'created' | 'failed';
  problem?: string;
}

export const slotsProvisionCommand: CommandSpec = {
  name: 'slots provision',
  summary: "create the slots' missing Cloudflare resources",
  usage: [
    'slots provision --count <n> [--pattern <p>] [--dry-run] [options]',
    'slots provision --slugs <a,b,c> [--dry-run] [options]',
  ],
  description: [
    "Creates every resource of the slots that the account lacks, as the slot config's templates",
    'describe them: the Worker as a shell (a minimal script its first deploy replaces), the D1',
    'database, the KV namespace, the R2 bucket with its lifecycle rule, the queue, the Vectorize index',
    '(with the dimensions and metric its template gives). What exists is never deleted or changed,',
    'so running it again creates nothing. A protected name is refused before any call. The slots come',
    'from --count or --slugs, as for slots sync; they need not be in the pool yet.',
  ].join('\n'),
  options: {
    count: { type: 'string', value: '<n>', description: 'Slots 1 to n, named by --pattern.' },
    pattern: {
      type: 'string',
      value: '<p>',
      description: 'Slot name with {n} for the number (preview-{n}).',
    },
    slugs: { type: 'string', value: '<a,b,c>', description: 'Exactly these slots, comma-separated.' },
    'dry-run': { type: 'boolean', description: 'Print each create it would make; create nothing.' },
    ...CLOUDFLARE_OPTIONS,
    ...SEMAPHORE_OPTIONS,
  },
  env: ALL_ENV,
  examples: ['slots provision --count 9 --dry-run', 'slots provision --count 9'],
  async run(parsed, io) {
    const wanted = wantedSlugs(parsed.values);
    const dryRun = parsed.values['dry-run'] === true;
    const { pool, semaphore, settings, config } = await connectPool(slotsProvisionCommand, parsed, io);
    if (config === null)
      throw new CommandFailure('slots provision needs the slot config that names the resources (--config)');
    const inPool = (await semaphore.list(pool)).resources.map((slot) => slot.slug);
    refuseUnderConfig(config, wanted, inPool);
    const { apiToken, accountId } = settings.cloudflare;
    if (apiToken === '' || accountId === '')
      throw new CommandFailure(
        'slots provision creates resources: set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID',
      );
    const options = cloudflareOptionsOf(settings, {
      deadlineAt: Date.now() + PROVISION_DEADLINE_MS,
      signal: io.signal,
    });
    const { connect } = await import('../commands/cloudflare-connection.ts');
    const connection = connect(options, createPacer(options));
    const credentials = await connection.checkCredentials(config.resources);
    if (credentials !== null)
      throw new CommandFailure(
        describeCredentialProblem(credentials, {
          accountId,
          place: cliPlace(slotsProvisionCommand.name, slotsProvisionCommand.options),
          consequence: 'nothing was created',
        }),
      );
    const results = await provisionAll(connection, config, wanted, dryRun);
    printProvisioned({ ...io, json: parsed.values.json === true }, pool, dryRun, results);
    return results.some((result) => result.action === 'failed') ? 1 : 0;
  },
};

type Connection = ReturnType<typeof import('../commands/cloudflare-connection.ts')['connect']>;

/** Each resource of each slot: there already, or created (in a dry run: would be). */
async function provisionAll(
  connection: Connection,
  config: SlotConfig,
  wanted: readonly string[],
  dryRun: boolean,
): Promise<Provisioned[]> {
  const context = { api: connection.api, resolver: connection.resolver, dryRun };
  const results: Provisioned[] = [];
  for (const slug of wanted) {
    for (const { kind, resource } of eachResource(resourcesForSlot(config, slug))) {
      const what = `${describeResource(kind, resource)} '${nameOf(kind, resource)}'`;
      if (await connection.exists(kind, resource)) results.push({ slug, resource: what, action: 'exists' });
      else if (dryRun) results.push({ slug, resource: what, action: 'would-create' });
      else {
        try {
          await operationsOf(kind).create(context, resource);
          results.push({ slug, resource: what, action: 'created' });
        } catch (error) {
          const problem = error instanceof Error ? error.message : String(error);
          results.push({ slug, resource: what, action: 'failed', problem });
        }
      }
    }
  }
  return results;
}

const ACTION_TEXT: Record<Provisioned['action'], { text: string; format: 'dim' | 'green' | 'red' }> = {
  exists: { text: 'exists', format: 'dim' },
  'would-create': { text: '+ would create', format: 'green' },
  created: { text: '+ created', format: 'green' },
  failed: { text: '✖ failed', format: 'red' },
};

function printProvisioned(
  io: Pick<CliIO, 'out' | 'outStyle'> & { json: boolean },
  pool: string,
  dryRun: boolean,
  results: readonly Provisioned[],
): void {
  if (io.json) {
    io.out(JSON.stringify({ pool, dryRun, resources: results }, null, 2));
    return;
  }
  const rows = results.map((result) => {
    const { text, format } = ACTION_TEXT[result.action];
    const problem = result.problem === undefined ? '' : `: ${clean(result.problem)}`;
    return [clean(result.slug), clean(result.resource), paint(io.outStyle, format, `${text}${problem}`)];
  });
  for (const line of renderTable(['SLOT', 'RESOURCE', 'ACTION'], rows, io.outStyle)) io.out(line);
  const count = (action: Provisioned['action']) =>
    results.filter((result) => result.action === action).length;
  const failed = count('failed');
  io.out(
    dryRun
      ? `Dry run, nothing was created: would create ${count('would-create')}, ${count('exists')} exist.`
      : `Created ${count('created')}, ${count('exists')} existed${failed > 0 ? `, ${failed} failed` : ''}.`,
  );
}
