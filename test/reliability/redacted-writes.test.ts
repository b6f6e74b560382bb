// Found by a hostile read: the run's own output was redacted, but what it wrote to the semaphore was
// not. Cloudflare echoed the API token in an error (`… token <token> is not allowed here`), and the
// erase failure kept it, readable with the read-only token, in the console and in `preview-gc status
// --json` run without the tokens, until the event log rolled over. Here every write goes through the
// same net as the logs: Cloudflare (the twin) echoes both tokens in every form a server might, a gc
// run and the CLI's notes write to the real semaphore, and every way of reading it back (the API as
// the console reads it, with the read-only token, and the CLI without any token but that one) shows
// none of the forms.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlotConfig, type SlotConfig } from '../../src/config/slot-config.ts';
import { secretForms } from '../../src/text/redact.ts';
import { SemaphoreClient } from '../../src/semaphore/client.ts';
import { type LocalSemaphore, startLocalSemaphore } from '../../src/semaphore/local.ts';
import { runCli } from '../cli/run-cli.ts';
import { runActionInProcess } from '../support/in-process-action.ts';
import { slotSeed, tenantData } from '../support/twin-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const SEMAPHORE_TOKEN = 'sem-redacted-writes-5c0e91';
const READ_TOKEN = 'sem-read-redacted-2d8b47';
const CLOUDFLARE_TOKEN = 'cf-redacted-writes-7e3a60';
const CONFIG = fileURLToPath(new URL('./fixtures/small-slots.yml', import.meta.url));
const POOL = 'redacted';

/** The forms a hostile counterpart echoes a secret in: as is, in a URL, JSON-escaped, in a Basic/Bearer dump. */
const echoesOf = (secret: string) => [
  secret,
  encodeURIComponent(`${secret}/x`),
  JSON.stringify({ token: secret }),
  Buffer.from(`Bearer ${secret}`).toString('base64'),
];
/** Every spelling of the two tokens the net knows: none may be read back. */
const FORMS = [CLOUDFLARE_TOKEN, SEMAPHORE_TOKEN].flatMap(secretForms);

let semaphore: LocalSemaphore;
let twin: Twin;
let config: SlotConfig;
let admin: SemaphoreClient;

beforeAll(async () => {
  [semaphore, twin, config] = await Promise.all([
    startLocalSemaphore({ token: SEMAPHORE_TOKEN, readToken: READ_TOKEN }),
    startTwin({ token: CLOUDFLARE_TOKEN }),
    loadSlotConfig(CONFIG),
  ]);
  admin = new SemaphoreClient({ baseUrl: semaphore.url, token: SEMAPHORE_TOKEN });
}, 60_000);

afterAll(async () => {
  await Promise.all([semaphore?.stop(), twin?.close()]);
});

/** Every form of a token found in `text`, by where it was read. */
function leaks(where: string, text: string): string[] {
  return FORMS.filter((form) => text.includes(form)).map((form) => `${where}: ${form}`);
}

describe('what preview-gc writes to the semaphore', () => {
  it('keeps no token in any form: erase failures, events and notes, read back every way', async () => {
    for (const slug of ['red-1', 'red-2']) {
      twin.seed(slotSeed(config, [slug], []));
      await admin.add({ type: POOL, slug, dirty: true });
      twin.seed(tenantData(config, slug, 'pr-5'));
    }
    twin.faults.add({
      route: 'POST /accounts/:account/d1/database/:id/query',
      status: 403,
      code: 10000,
      message: `token ${[...echoesOf(CLOUDFLARE_TOKEN), ...echoesOf(SEMAPHORE_TOKEN)].join(' ')} is not allowed here`,
    });
    try {
      const run = await runActionInProcess(
        {
          command: 'gc',
          config: CONFIG,
          pool: POOL,
          'semaphore-url': semaphore.url,
          'semaphore-token': SEMAPHORE_TOKEN,
          'cloudflare-api-token': CLOUDFLARE_TOKEN,
          'cloudflare-account-id': twin.accountId,
          'cloudflare-api-base-url': twin.baseUrl,
          'requests-per-second': '50',
        },
        'real',
      );
      expect(run.report?.slots.map((slot) => slot.outcome)).toEqual(['erase-failed', 'erase-failed']);
    } finally {
      twin.faults.clear();
    }

    // Notes a person writes with the CLI, pasting what they should not have.
    const env = {
      SEMAPHORE_URL: semaphore.url,
      SEMAPHORE_TOKEN,
      CLOUDFLARE_API_TOKEN: CLOUDFLARE_TOKEN,
    };
    const pasted = `see ${echoesOf(CLOUDFLARE_TOKEN).join(' ')} and ${echoesOf(SEMAPHORE_TOKEN).join(' ')}`;
    const marked = await runCli(['slots', 'mark-dirty', 'red-1', '--pool', POOL, '--note', pasted], env);
    expect(marked.code, marked.stderr).toBe(0);
    const lease = await admin.acquireSpecific({
      type: POOL,
      slug: 'red-2',
      holder: 'manual-ana',
      leaseMs: 600_000,
    });
    const forced = await runCli(
      [
        'release',
        ...['--slot', 'red-2', '--pool', POOL, '--force', '--holder', 'manual-ana'],
        ...['--generation', String(lease?.generation), '--note', pasted.slice(0, 200), '--yes'],
      ],
      env,
    );
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);

    // Read back: the API as the console reads it (with the read-only token), and the CLI's status
    // --json without the Cloudflare token, whose own redaction net would not know it.
    const viewer = new SemaphoreClient({ baseUrl: semaphore.url, token: READ_TOKEN });
    const listing = await viewer.list(POOL);
    expect(listing.resources.map((each) => each.lastEraseFailure?.message)).toEqual([
      expect.stringContaining('HTTP 403, code 10000: token *** ***%2Fx {"token":"***"}'),
      expect.stringContaining('HTTP 403, code 10000: token *** ***%2Fx {"token":"***"}'),
    ]);
    const read: [string, string][] = [
      ['listing', JSON.stringify(listing)],
      ...(await Promise.all(
        ['red-1', 'red-2'].map(
          async (slug): Promise<[string, string]> => [
            `${slug}`,
            JSON.stringify(await viewer.find(POOL, slug)),
          ],
        ),
      )),
      ...(await Promise.all(
        ['red-1', 'red-2'].map(
          async (slug): Promise<[string, string]> => [
            `${slug} history`,
            JSON.stringify(await viewer.events(POOL, slug, 500)),
          ],
        ),
      )),
    ];
    const history = read
      .filter(([where]) => where.endsWith('history'))
      .map(([, text]) => text)
      .join('\n');
    expect(history).toContain('"eraseFailure"');
    expect(history).toContain('"note":"see ***');
    const status = await runCli(['status', '--pool', POOL, '--json'], {
      SEMAPHORE_URL: semaphore.url,
      SEMAPHORE_TOKEN: READ_TOKEN,
    });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ semaphoreRole: { role: 'read' } });
    read.push(['status --json', status.stdout]);
    expect(read.flatMap(([where, text]) => leaks(where, text))).toEqual([]);
  });
});
