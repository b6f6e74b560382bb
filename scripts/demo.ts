// `npm start`: the whole system on this machine, with no Cloudflare account and no network. Starts the
// semaphore (workerd) and the Cloudflare API twin on free loopback ports, seeds the demo pool, runs
// status, three deploys' acquire (each writing the sample app's wrangler config for its slot), the
// real wrangler CLI's deploy of the third from that copy, two deploys waiting in line for a full pool
// of one slot, gc --dry-run, gc and status through
// executeSettings (exactly the code the action runs), writes the job summary the action would post,
// and stops everything.
// PREVIEW_GC_SUMMARY_PATH moves the summary (the test writes it to a temporary folder).
import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import {
  DEMO_CONFIG_PATH,
  DEMO_POOL,
  type DemoLeaseState,
  type DemoSlotPlan,
  demoActivity,
  demoPlan,
  demoSlugs,
  demoTwinSeed,
  seedDemoPool,
} from '../demo/fixture.ts';
import { QUEUE_POOL, rehearseQueue } from '../demo/queue-step.ts';
import { prepareSampleApp, type SampleApp } from '../demo/sample-deploy.ts';
import { processIO } from '../src/cli/io.ts';
import { progressPrinter } from '../src/cli/progress.ts';
import { clean, paint, renderTable } from '../src/cli/style.ts';
import { renderTerminalReport } from '../src/cli/terminal-report.ts';
import { type Command, parseSettings, type RawInputs } from '../src/config/settings.ts';
import { formatDuration } from '../src/report/format.ts';
import { countOutcomes, type RunReport, runFailed } from '../src/report/model.ts';
import { renderSummary } from '../src/report/summary.ts';
import { startLocalSemaphore } from '../src/semaphore/local.ts';
import { createSemaphoreClient, executeSettings } from '../src/services.ts';
import { onTerminationSignals } from '../src/signals.ts';
import { formatCount, plural } from '../src/text/words.ts';
import { startTwin, type Twin } from '../test/twin/twin.ts';

const SLOT_COUNT = 9;
/**
 * The twin is local and has no account limit to share, so the demo paces faster than the action's
 * default of 3 requests a second (a real account allows 4/s for everything using the token).
 */
const DEMO_REQUESTS_PER_SECOND = 25;
/** Pull requests that push during the demo: two get the clean slots, the third a dirty one. */
const DEPLOYS = [1610, 1611, 1612];
const started = Date.now();
const summaryPath = resolve(process.env.PREVIEW_GC_SUMMARY_PATH ?? 'preview-gc-summary.md');
const controller = new AbortController();
const io = processIO({
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
});
const style = io.outStyle;
const say = (text = '') => io.out(text);
const bold = (text: string) => paint(style, 'bold', text);
const dim = (text: string) => paint(style, 'dim', text);

/** What a slot holds in the twin now. */
function slotData(twin: Twin, slug: string): { rows: number; keys: number; classes: string[] } {
  const state = twin.state();
  const database = state.d1.find((d1) => d1.name === `shop-${slug}-db`);
  const rows = (database?.objects ?? [])
    .filter((object) => object.type === 'table' && object.name !== 'd1_migrations')
    .reduce((sum, object) => sum + (object.rows ?? 0), 0);
  const keys = state.kv.find((kv) => kv.title === `shop-${slug}-cache`)?.keyCount ?? 0;
  const worker = state.workers.find((candidate) => candidate.name === `shop-${slug}`);
  return { rows, keys, classes: worker?.liveClasses ?? [] };
}

/** How each seeded state reads in the table: "clean" is a mark in the semaphore, not what a slot holds. */
const SEEDED_AS: Record<DemoLeaseState, string> = {
  expired: 'expired lease',
  live: 'live lease',
  dirty: 'dirty',
  clean: 'marked clean',
};

/** The demo's data in the twin, slot by slot: what gc erases and what it must leave alone. */
function dataTable(twin: Twin, plan: ReadonlyMap<string, DemoLeaseState>): string[] {
  const rows = demoSlugs(SLOT_COUNT).map((slug) => {
    const data = slotData(twin, slug);
    const seeded = plan.get(slug);
    return [
      slug,
      seeded === undefined ? '' : SEEDED_AS[seeded],
      formatCount(data.rows),
      formatCount(data.keys),
      data.classes.join(', ') || '–',
    ];
  });
  return renderTable(['SLOT', 'SEEDED AS', 'D1 ROWS', 'KV KEYS', 'LIVE DURABLE OBJECT CLASSES'], rows, style);
}

/** Says what "clean" means, with what the slots marked clean hold in the twin right now. */
function cleanMeans(twin: Twin, plan: readonly DemoSlotPlan[]): string[] {
  const marked = plan.filter((slot) => slot.state === 'clean').map((slot) => slot.slug);
  const held = marked.map((slug) => slotData(twin, slug));
  const rows = held.reduce((sum, data) => sum + data.rows, 0);
  const keys = held.reduce((sum, data) => sum + data.keys, 0);
  return [
    `"Clean" is the semaphore's mark, not a look inside: the last holder released the slot saying its data was erased,`,
    'and gc trusts it, sweeping only expired leases and slots marked dirty. The demo seeded data into every slot, so',
    `the ${plural(marked.length, 'slot')} marked clean (${marked.join(', ')}) hold ${formatCount(rows)} rows and ${formatCount(keys)} keys that no sweep will touch:`,
    'what slots adopted while in use look like. Adopt such slots dirty (preview-gc slots sync --dirty), or mark them',
    'dirty (preview-gc slots mark-dirty <slot>), and the next gc erases them.',
  ];
}

function banner(step: string, command: string, why: string): void {
  say();
  say(bold(`━━━ ${step}  ${command} ${'━'.repeat(Math.max(3, 60 - step.length - command.length))}`));
  say(dim(why));
  say();
}

async function main(): Promise<number> {
  say(bold('preview-gc demo: the whole system on this machine, no Cloudflare account and no network.'));
  say();
  say('Starting the semaphore (the lease service, in workerd) and a twin of the Cloudflare API …');
  const semaphore = await startLocalSemaphore({ port: 0 });
  let twin: Twin | undefined;
  let sample: SampleApp | undefined;
  try {
    twin = await startTwin({ seed: demoTwinSeed(demoSlugs(SLOT_COUNT)) });
    say(`  semaphore   ${semaphore.url}`);
    say(`  Cloudflare  ${twin.baseUrl}  (the twin: D1, KV, R2 and Workers, in memory)`);
    const plan = demoPlan();
    await seedDemoPool(
      createSemaphoreClient({ semaphoreUrl: semaphore.url, semaphoreToken: semaphore.token }),
      plan,
    );
    const count = (state: DemoLeaseState) => plan.filter((slot) => slot.state === state).length;
    say();
    say(
      `Pool ${bold(DEMO_POOL)}: ${SLOT_COUNT} slots of a shop app, each a Worker with Durable Objects, a D1 database,`,
    );
    say('a KV namespace and two R2 buckets, with data in them. The leases are what a busy week leaves:');
    say(
      `${count('expired')} pull requests went quiet (their leases expired), ${count('live')} are live, ${count('dirty')} slots were released dirty, ${count('clean')} are marked clean.`,
    );
    say();
    const planBySlug = new Map(plan.map((slot) => [slot.slug, slot.state]));
    for (const line of dataTable(twin, planBySlug)) say(line);
    say();
    for (const line of cleanMeans(twin, plan)) say(dim(line));
    // What ran in the last hours, as Cloudflare's analytics report it: gc's spend read finds preview-2.
    const namespaces = twin.state().durableObjectNamespaces;
    const namespaceOf = (script: string, className: string) =>
      namespaces.find((ns) => ns.script === script && ns.class === className)?.id ?? '';
    for (const span of demoActivity(Date.now(), namespaceOf)) twin.account.analytics.add(span);
    say(
      dim(
        "And one runaway: for hours preview-2's CartRoom objects have woken themselves by alarm, inside pr-1601's live lease. The twin's analytics report it as Cloudflare's would; watch the $/h column.",
      ),
    );
    say();
    say(
      dim(
        `Each run below is executeSettings, the code the action runs, with one change: Cloudflare calls are paced at ${DEMO_REQUESTS_PER_SECOND}/s, not 3/s, as the twin shares no account limit.`,
      ),
    );

    const raw: RawInputs = {
      config: DEMO_CONFIG_PATH,
      'semaphore-url': semaphore.url,
      'semaphore-token': semaphore.token,
      'cloudflare-api-token': twin.token,
      'cloudflare-account-id': twin.accountId,
      'cloudflare-api-base-url': twin.baseUrl,
      'requests-per-second': String(DEMO_REQUESTS_PER_SECOND),
    };
    const execute = (command: Command, inputs: RawInputs, selectedAs: string): Promise<RunReport> =>
      executeSettings(parseSettings({ ...raw, ...inputs, command }), {
        signal: controller.signal,
        progress: progressPrinter(io, selectedAs),
      });
    const run = async (command: Command, dryRun: boolean): Promise<RunReport> => {
      const report = await execute(command, { 'dry-run': String(dryRun) }, 'to reclaim');
      say(renderTerminalReport(report, style));
      return report;
    };

    sample = await prepareSampleApp(twin);
    banner('1/7', 'preview-gc status', 'The pool as the hourly sweep finds it. Read-only.');
    await run('status', false);
    banner(
      '2/7',
      'preview-gc acquire --pr 1610, 1611, 1612',
      "Three pull requests push and their deploys ask for a slot. The clean ones go first; the third gets a slot released dirty and erases it before its deploy. Each gets the sample app's wrangler config written for its slot.",
    );
    let deployed: RunReport | undefined;
    for (const pullRequest of DEPLOYS) {
      deployed = await execute(
        'acquire',
        { 'pull-request': String(pullRequest), 'wrangler-config': sample.wranglerConfig },
        'acquired',
      );
      const text = renderTerminalReport(deployed, style);
      // The last one tells the story in full; the first two get their headline.
      say(pullRequest === DEPLOYS.at(-1) ? text : (text.split('\n')[0] ?? ''));
    }
    await deployPreview(sample, deployed);
    banner(
      '4/7',
      'preview-gc acquire --wait-minutes 5 --pr 1621, 1622',
      'A pool of one slot, held. Two more pull requests push; their deploys wait in line, first come first served, and each says its place. As the slot comes back, each gets it in the order it started.',
    );
    const semaphoreClient = createSemaphoreClient({
      semaphoreUrl: semaphore.url,
      semaphoreToken: semaphore.token,
    });
    const lined = await rehearseQueue({
      client: semaphoreClient,
      twin,
      say,
      acquire: (pullRequest, progress) =>
        executeSettings(
          parseSettings({
            ...raw,
            command: 'acquire',
            pool: QUEUE_POOL,
            'pull-request': String(pullRequest),
            'wait-minutes': '5',
          }),
          { signal: controller.signal, progress },
        ),
    });
    if (lined.some(runFailed)) return 1;
    banner(
      '5/7',
      'preview-gc gc --dry-run',
      'The same code path as a real sweep, with every change replaced by a record.',
    );
    await run('gc', true);
    banner('6/7', 'preview-gc gc', 'The real sweep: acquire, erase (fenced), release; never a live lease.');
    const gc = await run('gc', false);
    await writeFile(summaryPath, renderSummary(gc));
    banner('7/7', 'preview-gc status', 'The pool after the sweep.');
    const after = await run('status', false);
    say();
    say(bold('The data in the twin after the sweep:'));
    for (const line of dataTable(twin, planBySlug)) say(line);

    const counts = countOutcomes(gc);
    const live = after.poolAfter?.filter((row) => row.leaseState === 'leased' && !row.expired).length ?? 0;
    const failed = runFailed(gc);
    say();
    say(
      bold(
        failed
          ? `✖ The sweep did not go as planned: see "What needs attention" above.`
          : `✔ Done in ${formatDuration(Date.now() - started)}. gc reclaimed ${counts.reclaimed} of ${gc.slots.length} slots (${counts.expired} expired leases, ${gc.slots.length - counts.expired} dirty), released every lease it took, and left the ${plural(live, 'live lease')} alone.`,
      ),
    );
    say(`The job summary the action would post for that sweep is in ${clean(summaryPath)}.`);
    say(
      `The ${plural(count('clean'), 'slot')} marked clean still hold their data: gc never looked, as "clean" above says.`,
    );
    return failed ? 1 : 0;
  } finally {
    await sample?.remove();
    await twin?.close();
    await semaphore.stop();
    say('The semaphore and the twin are stopped.');
    say();
    for (const line of NEXT_STEPS) say(line);
  }
}

/**
 * The third deploy's job, after its acquire: the real wrangler CLI deploys the sample app from the
 * slot's copy of its config. What the slot's Worker then runs with, read back from the twin.
 */
async function deployPreview(sample: SampleApp, report: RunReport | undefined): Promise<void> {
  const copy = report?.acquired?.wranglerConfig;
  const worker = report?.acquired?.resources.workers?.[0]?.name;
  if (copy === undefined || worker === undefined)
    throw new Error('the third deploy got no slot to deploy to');
  banner(
    '3/7',
    `wrangler deploy --config ${basename(copy)}`,
    "The third pull request's deploy job, with the real wrangler CLI. The app's own config (demo/shop) is production's: its account, domain, nightly cron, live Stripe keys and a warehouse database. The copy acquire wrote deploys only into the slot.",
  );
  const preview = await sample.deploy(copy, worker);
  const vars = Object.entries(preview.vars).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  say(`  Worker      ${clean(worker)}, in the slot's account`);
  say(
    `  Schedules   ${preview.crons.length === 0 ? "none: production's nightly 0 3 * * * job does not run in the preview" : clean(preview.crons.join(', '))}`,
  );
  say(`  Vars        ${clean(vars.join(', '))} (from the app's env.preview block)`);
  say(
    `  Address     ${clean(report?.acquired?.url ?? `none: ${report?.acquired?.noUrl ?? 'unknown'}`)} (acquire's url output)`,
  );
  say(
    `  Bindings    ${clean(preview.bindings.map((binding) => binding.name).join(', '))}: the slot's own resources, and WAREHOUSE shared on purpose (deploy.shared)`,
  );
}

const NEXT_STEPS = [
  bold('Next:'),
  '  npm run stack        the same semaphore and twin, left running, to try the CLI by hand (README, "The CLI");',
  "                       --seed <your slot config> puts your own app's slots in the twin",
  '  README.md, "Use it in your repository": adopt preview-gc for your app, step by step.',
];

const stopListening = onTerminationSignals((signal) => controller.abort(signal));
try {
  process.exitCode = await main();
} catch (error) {
  io.err(`preview-gc demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  stopListening();
}
