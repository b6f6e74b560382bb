// Every input of the action (and every flag and env variable of the CLI) is validated here, once,
// into one typed Settings object. Nothing downstream reads raw inputs again.

import { IDENTIFIER, IDENTIFIER_RULE } from '../semaphore/protocol.ts';
import { closestWord } from '../text/did-you-mean.ts';
import * as z from '../zod.ts';

export const COMMANDS = ['gc', 'cleanup', 'status', 'acquire', 'doctor'] as const;
export type Command = (typeof COMMANDS)[number];

export const OFFICIAL_API_BASE_URL = 'https://api.cloudflare.com/client/v4';

/** acquire's lease: three hours (see `lease-minutes` below, and docs/design.md#the-pull-requests-lease). */
export const DEFAULT_LEASE_MINUTES = 180;

/** Raw values by input name (`semaphore-url`, …); `undefined` or '' means "not given". */
export type RawInputs = Readonly<Record<string, string | undefined>>;

/** How the action signs in to the semaphore: a token (a role's secret), or the job's OIDC token. */
export const SEMAPHORE_AUTHS = ['token', 'oidc'] as const;
export type SemaphoreAuth = (typeof SEMAPHORE_AUTHS)[number];

export interface Settings {
  command: Command;
  dryRun: boolean;
  configPath: string;
  semaphoreUrl: string;
  /** '' with `semaphore-auth: oidc`: the job's OIDC token is fetched when the run needs it. */
  semaphoreToken: string;
  semaphoreAuth: SemaphoreAuth;
  /** The audience the job's OIDC token is asked for: the Worker's SEMAPHORE_OIDC_AUDIENCE. */
  semaphoreAudience: string;
  /** Overrides `pool` from the slot config when set. */
  pool: string | undefined;
  cloudflare: {
    apiToken: string;
    accountId: string;
    apiBaseUrl: string;
  };
  gcLeaseMinutes: number;
  maxSlots: number;
  requestBudget: number;
  /** Steady Cloudflare request rate; the account's 1,200 per 5 minutes (4/s) is shared with everything else. */
  requestsPerSecond: number;
  deadlineMinutes: number;
  /** Slots worked on at once; all of them share the one pacer (rate, budget, deadline). */
  parallelSlots: number;
  reclaimDirty: boolean;
  pullRequest: number | undefined;
  githubToken: string | undefined;
  /** `webhook-url`: gc's notices (a lease parked or alarmed for spend, a slot that comes to need repair). */
  webhookUrl: string | undefined;
  /** acquire: how long the pull request keeps its slot without a new push. */
  leaseMinutes: number;
  /** acquire: how long to wait for a free slot; 0 fails at once. */
  waitMinutes: number;
  /** acquire: keep one comment on the pull request saying which slot it has. */
  comment: boolean;
  /**
   * acquire: the app's wrangler config to write for the slot; undefined: wrangler.jsonc,
   * wrangler.json or wrangler.toml in the working directory, when one is there.
   */
  wranglerConfig: string | undefined;
  /** gc: a live lease whose compute costs more than this an hour gets an alert (one a day). */
  spendAlertUsdPerHour: number;
  /** `spend-park-usd-per-hour`: park a live lease above it in two reads in a row; null when unset (off). */
  spendParkUsdPerHour: number | null;
  /** gc: the label by which an open pull request asks to keep its slot past its lease's end. */
  keepLabel: string;
  /** gc: a kept lease is extended at most this many hours after it began. */
  keepMaxHours: number;
  /** gc: a pull request whose lease ends within this many minutes is warned (once per lease end), or kept. */
  warnMinutes: number;
}

export class SettingsError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      `preview-gc did not start; fix these settings (nothing was changed):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'SettingsError';
    this.problems = problems;
  }
}

/** How an input is called where the user sets it: `input 'max-slots'` or `--max-slots / MAX_SLOTS`. */
export type DescribeInput = (name: string) => string;

export const describeActionInput: DescribeInput = (name) => `input '${name}'`;

const TRUE_WORDS = new Set(['true', 'True', 'TRUE']);
const FALSE_WORDS = new Set(['false', 'False', 'FALSE']);

const trimmed = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

function required(hint: string) {
  return trimmed.pipe(z.string({ error: `is required: ${hint}` }));
}

function optionalWithDefault<T extends z.ZodType<unknown, string>>(fallback: string, schema: T) {
  return trimmed.transform((value) => value ?? fallback).pipe(schema);
}

/**
 * A raw value as a message quotes it: control characters made visible and at most 40 characters, so
 * a pasted blob or terminal escapes in an input cannot flood or colour the log.
 */
function quoted(value: string): string {
  const visible = value.replace(/\p{Cc}/gu, '\ufffd');
  return visible.length > 40 ? `'${visible.slice(0, 40)}…' (${value.length} characters)` : `'${visible}'`;
}

const strictBoolean = z.string().transform((value, ctx) => {
  if (TRUE_WORDS.has(value)) return true;
  if (FALSE_WORDS.has(value)) return false;
  ctx.addIssue({ code: 'custom', message: `must be true or false, got ${quoted(value)}` });
  return z.NEVER;
});

function integerIn(min: number, max: number) {
  return z.string().transform((value, ctx) => {
    const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isSafeInteger(parsed) && parsed >= min && parsed <= max) return parsed;
    ctx.addIssue({
      code: 'custom',
      message: `must be a whole number from ${min} to ${max}, got ${quoted(value)}`,
    });
    return z.NEVER;
  });
}

/** A URL as a message quotes it: whatever stands before an `@` in it (a user name, a password) hidden. */
function quotedUrl(value: string): string {
  return quoted(value.replace(/^([^/]*\/\/)[^/?#]*@/, '$1***@'));
}

/** A dollar amount such as `1`, `0.5` or `2.50`, from `min` to `max`. */
function dollarsIn(min: number, max: number) {
  return z.string().transform((value, ctx) => {
    const parsed = /^\d{1,9}(\.\d{1,4})?$/.test(value) ? Number(value) : Number.NaN;
    if (parsed >= min && parsed <= max) return parsed;
    ctx.addIssue({
      code: 'custom',
      message: `must be an amount in US dollars from ${min} to ${max}, such as 1 or 2.50, got ${quoted(value)}`,
    });
    return z.NEVER;
  });
}

const httpUrl = z.string().transform((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `must be an http(s) URL, got ${quotedUrl(value)}` });
    return z.NEVER;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    ctx.addIssue({ code: 'custom', message: `must be an http(s) URL, got ${quotedUrl(value)}` });
    return z.NEVER;
  }
  // A password in a URL ends up in error messages and logs; the tokens have inputs of their own.
  if (url.username !== '' || url.password !== '') {
    ctx.addIssue({
      code: 'custom',
      message:
        'must not carry a user name or password (https://user:pass@…; the value is not shown): give the URL without them, the token goes in its own input',
    });
    return z.NEVER;
  }
  return value.replace(/\/+$/, '');
});

/**
 * The semaphore's address: every route is under /api, so a URL given with that /api (copied from a
 * route such as /api/health) means the Worker's address without it, not a prefix of /api/api/….
 */
const semaphoreUrl = httpUrl.transform((value) => value.replace(/\/api$/, ''));

// A token is sent in a header: white space or a control character in it never authenticates, and
// an HTTP library that refuses the header may quote it whole in its error.
const TOKEN_SPOILERS = /[\s\p{Cc}]/u;

const token = z.string().refine((value) => !TOKEN_SPOILERS.test(value), {
  message:
    'must not contain spaces, line breaks or control characters (the value is not shown); copy the token again without them',
});

const poolName = z.string().regex(IDENTIFIER, `must be ${IDENTIFIER_RULE}`);

/** One of COMMANDS; a typo gets the closest one, as the CLI's `preview-gc gcc` does. */
const commandName = z.string().transform((value, ctx): Command => {
  const known = COMMANDS.find((command) => command === value);
  if (known !== undefined) return known;
  const guess = closestWord(value, COMMANDS);
  ctx.addIssue({
    code: 'custom',
    message: `must be one of ${COMMANDS.join(', ')}, got ${quoted(value)}${guess === undefined ? '' : `: did you mean '${guess}'?`}`,
  });
  return z.NEVER;
});

const inputSchema = z.object({
  command: optionalWithDefault('gc', commandName),
  'dry-run': optionalWithDefault('false', strictBoolean),
  config: optionalWithDefault('.github/preview-slots.yml', z.string()),
  'semaphore-url': required(
    'the URL of the semaphore Worker, e.g. https://semaphore.example.workers.dev',
  ).pipe(semaphoreUrl),
  // Required unless semaphore-auth is oidc (commandSpecificProblems).
  'semaphore-token': trimmed.pipe(token.optional()),
  'semaphore-auth': optionalWithDefault(
    'token',
    z.enum(SEMAPHORE_AUTHS, { error: `must be one of ${SEMAPHORE_AUTHS.join(', ')}` }),
  ),
  'semaphore-audience': optionalWithDefault(
    'preview-gc',
    z.string().regex(/^[\x21-\x7e]{1,200}$/, 'must be 1-200 printable ASCII characters without spaces'),
  ),
  pool: trimmed.pipe(poolName.optional()),
  'cloudflare-api-token': trimmed.pipe(token.optional()),
  'cloudflare-account-id': trimmed.pipe(
    z
      .string()
      .regex(/^[0-9a-f]{32}$/, 'must be the 32-character hex account id from the Cloudflare dashboard')
      .optional(),
  ),
  'cloudflare-api-base-url': optionalWithDefault(OFFICIAL_API_BASE_URL, httpUrl),
  // At least 10: the longest single Cloudflare call (4 attempts of 30 s, waits capped at 60 s) must end
  // well inside the GC's lease, so no step can still be destroying after the lease ran out.
  'gc-lease-minutes': optionalWithDefault('30', integerIn(10, 1440)),
  'max-slots': optionalWithDefault('20', integerIn(1, 1000)),
  'request-budget': optionalWithDefault('600', integerIn(1, 100_000)),
  'requests-per-second': optionalWithDefault('3', integerIn(1, 50)),
  'deadline-minutes': optionalWithDefault('20', integerIn(1, 360)),
  // 3: enough to overlap Cloudflare calls slower than the pacer's spacing (D1 queries, uploads) so a
  // sweep runs at its rate, not below it; few enough that the leases held at once stay few. The rate,
  // not this, keeps the sweep inside the account's share left to deploys.
  'parallel-slots': optionalWithDefault('3', integerIn(1, 10)),
  'reclaim-dirty': optionalWithDefault('true', strictBoolean),
  'pull-request': trimmed.pipe(integerIn(1, Number.MAX_SAFE_INTEGER).optional()),
  'github-token': trimmed.pipe(token.optional()),
  // Three hours, renewed by every deploy and e2e run (each acquires again as the same holder): a
  // pull request that goes quiet stops costing within about three hours, not days; with nine slots a
  // longer default fills the pool with quiet pull requests. Closed ones do not even wait for it:
  // cleanup and gc release them at once.
  'lease-minutes': optionalWithDefault(String(DEFAULT_LEASE_MINUTES), integerIn(60, 43_200)),
  'wait-minutes': optionalWithDefault('0', integerIn(0, 360)),
  comment: optionalWithDefault('false', strictBoolean),
  'wrangler-config': trimmed.pipe(
    z
      .string()
      .regex(/\.(jsonc|json|toml)$/, 'must be a wrangler.jsonc, wrangler.json or wrangler.toml file')
      .optional(),
  ),
  // $1 an hour a slot: a preview in use costs cents an hour (thousands of requests, a few object-hours
  // at $0.006 each), so a dollar is well above any honest use, while the runaway this is for (objects
  // that wake themselves by alarm: about $300 an hour in the case that prompted it, $16 an hour in a
  // smaller one) passes it within its first hour. At $1 a slot a day stays under $24 before someone is told.
  'spend-alert-usd-per-hour': optionalWithDefault('1', dollarsIn(0.01, 100_000)),
  // Off unless set: stopping a pull request's preview is a decision the team makes, with its own figure.
  'spend-park-usd-per-hour': trimmed.pipe(dollarsIn(0.01, 100_000).optional()),
  // GitHub's own limit on a label's name is 50 characters; no control characters, no surrounding space.
  'keep-label': optionalWithDefault(
    'preview-keep',
    z.string().regex(/^[^\p{Cc}]{1,50}$/u, 'must be a label name: 1-50 characters, no control characters'),
  ),
  // Three days: a review over a weekend, no longer; past it the slot goes back to the pool.
  'keep-max-hours': optionalWithDefault('72', integerIn(1, 720)),
  // An hour, as long as the hourly sweep's schedule: every lease's end is seen by one sweep before it.
  'warn-minutes': optionalWithDefault('60', integerIn(1, 1440)),
  // A secret: a Slack or chat webhook's URL is its own credential.
  'webhook-url': trimmed.pipe(httpUrl.optional()),
});

export const INPUT_NAMES = Object.keys(inputSchema.shape);

/** Inputs that only some commands need; checked on the raw values so they are reported with the rest. */
function commandSpecificProblems(raw: RawInputs, describe: DescribeInput): string[] {
  const given = (name: string) => (raw[name] ?? '').trim() !== '';
  const command = given('command') ? (raw.command ?? '').trim() : 'gc';
  const problems: string[] = [...semaphoreAuthProblems(raw, command, describe)];
  if (command === 'gc' || command === 'cleanup' || command === 'acquire') {
    if (!given('cloudflare-api-token')) {
      problems.push(
        `${describe('cloudflare-api-token')} is required for '${command}': a Cloudflare API token with the permissions the README lists`,
      );
    }
    if (!given('cloudflare-account-id')) {
      problems.push(
        `${describe('cloudflare-account-id')} is required for '${command}': the 32-character hex account id`,
      );
    }
  }
  if ((command === 'cleanup' || command === 'acquire') && !given('pull-request')) {
    problems.push(
      `${describe('pull-request')} is required for '${command}': run it on a pull_request event or set the number`,
    );
  }
  if (command === 'acquire' && given('dry-run') && TRUE_WORDS.has((raw['dry-run'] ?? '').trim())) {
    problems.push(
      `${describe('dry-run')} is not available for 'acquire': an acquire that takes no slot has nothing to hand over; run 'status' to see the pool`,
    );
  }
  return problems;
}

/** A token, or the job's OIDC token: exactly one, and OIDC only where a pull request's own slot is at stake. */
function semaphoreAuthProblems(raw: RawInputs, command: string, describe: DescribeInput): string[] {
  const oidc = (raw['semaphore-auth'] ?? '').trim() === 'oidc';
  const token = (raw['semaphore-token'] ?? '').trim() !== '';
  if (!oidc)
    return token
      ? []
      : [
          `${describe('semaphore-token')} is required: the semaphore's bearer token of the role the run needs (SEMAPHORE_GC_TOKEN for gc and cleanup; docs/semaphore.md), or, in a deploy job, semaphore-auth: oidc`,
        ];
  if (token)
    return [
      `${describe('semaphore-token')} and semaphore-auth: oidc are both given: a deploy job signs in with its OIDC token alone; remove semaphore-token`,
    ];
  if (command !== 'acquire' && command !== 'status')
    return [
      `semaphore-auth: oidc is for a deploy job's acquire (and status): a pull request's OIDC token may only lease its own slot; '${command}' needs a token (SEMAPHORE_GC_TOKEN)`,
    ];
  return [];
}

/**
 * The lease a run erases under must outlast the run: the pacer starts no Cloudflare request after
 * the deadline, so a step still running then ends well inside a lease taken after the run started,
 * even when no renew gets through. (Steps also renew the lease inside themselves: src/commands/lease-fence.ts.)
 */
function leaseOutlastsRun(inputs: z.output<typeof inputSchema>, describe: DescribeInput): string[] {
  const deadline = inputs['deadline-minutes'];
  if (inputs.command === 'acquire') {
    const window = inputs['wait-minutes'] + deadline;
    return window < inputs['lease-minutes']
      ? []
      : [
          `${describe('lease-minutes')} (${inputs['lease-minutes']}) must be longer than ${describe('wait-minutes')} plus ${describe('deadline-minutes')} (${window}): the erase before the deploy runs under the pull request's lease, which must not run out first`,
        ];
  }
  // status and doctor take no lease.
  if (inputs.command === 'status' || inputs.command === 'doctor' || deadline < inputs['gc-lease-minutes'])
    return [];
  return [
    `${describe('deadline-minutes')} (${deadline}) must be less than ${describe('gc-lease-minutes')} (${inputs['gc-lease-minutes']}): a step still running at the deadline must end inside the GC's lease; raise gc-lease-minutes or lower deadline-minutes`,
  ];
}

/**
 * Validates every input at once and reports every problem, not just the first, so a user fixes
 * their workflow in one round trip.
 */
export function parseSettings(raw: RawInputs, describe: DescribeInput = describeActionInput): Settings {
  const parsed = inputSchema.safeParse(raw);
  const problems = [
    ...(parsed.success
      ? leaseOutlastsRun(parsed.data, describe)
      : parsed.error.issues.map((issue) => `${describe(String(issue.path[0]))} ${issue.message}`)),
    ...commandSpecificProblems(raw, describe),
  ];
  if (!parsed.success || problems.length > 0) throw new SettingsError(problems);

  const inputs = parsed.data;
  return {
    command: inputs.command,
    dryRun: inputs['dry-run'],
    configPath: inputs.config,
    semaphoreUrl: inputs['semaphore-url'],
    semaphoreToken: inputs['semaphore-token'] ?? '',
    semaphoreAuth: inputs['semaphore-auth'],
    semaphoreAudience: inputs['semaphore-audience'],
    pool: inputs.pool,
    cloudflare: {
      apiToken: inputs['cloudflare-api-token'] ?? '',
      accountId: inputs['cloudflare-account-id'] ?? '',
      apiBaseUrl: inputs['cloudflare-api-base-url'],
    },
    gcLeaseMinutes: inputs['gc-lease-minutes'],
    maxSlots: inputs['max-slots'],
    requestBudget: inputs['request-budget'],
    requestsPerSecond: inputs['requests-per-second'],
    deadlineMinutes: inputs['deadline-minutes'],
    parallelSlots: inputs['parallel-slots'],
    reclaimDirty: inputs['reclaim-dirty'],
    pullRequest: inputs['pull-request'],
    githubToken: inputs['github-token'],
    webhookUrl: inputs['webhook-url'],
    leaseMinutes: inputs['lease-minutes'],
    waitMinutes: inputs['wait-minutes'],
    comment: inputs.comment,
    wranglerConfig: inputs['wrangler-config'],
    spendAlertUsdPerHour: inputs['spend-alert-usd-per-hour'],
    spendParkUsdPerHour: inputs['spend-park-usd-per-hour'] ?? null,
    keepLabel: inputs['keep-label'],
    keepMaxHours: inputs['keep-max-hours'],
    warnMinutes: inputs['warn-minutes'],
  };
}

/**
 * The secrets among the raw inputs, before (and whether or not) they validate: the tokens and any
 * credentials in a URL. A refused setting must not reach the log either.
 */
export function rawSecretsOf(raw: RawInputs): string[] {
  const tokens = SECRET_INPUTS.map((name) => (raw[name] ?? '').trim());
  const inUrls = URL_INPUTS.flatMap((name) => urlCredentials(raw[name]));
  return [...new Set([...tokens, ...inUrls])].filter((secret) => secret.length > 0);
}

const SECRET_INPUTS = ['semaphore-token', 'cloudflare-api-token', 'github-token', 'webhook-url'] as const;
const URL_INPUTS = ['semaphore-url', 'cloudflare-api-base-url'] as const;

/**
 * The secret part of a URL's credentials (refused by the settings, hidden at every exit too): the
 * password, or the user name when it stands alone (`https://<token>@host`).
 */
function urlCredentials(value: string | undefined): string[] {
  if (value === undefined) return [];
  try {
    const url = new URL(value.trim());
    const secret = url.password !== '' ? url.password : url.username;
    return secret === '' ? [] : [secret, decodedOrSelf(secret)];
  } catch {
    return [];
  }
}

function decodedOrSelf(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * An input's default as action.yml spells it, read from the schema (what a missing value becomes),
 * so CLI help and the unit test that ties action.yml to this schema read the one source. The bundle
 * cannot read action.yml at run time (the CLI ships without it), so the defaults live in the schema
 * and `test/config/action-inputs.unit.test.ts` fails when action.yml says otherwise.
 */
export function inputDefault(name: string): string | undefined {
  const field = inputSchema.shape[name as keyof typeof inputSchema.shape];
  if (field === undefined) return undefined;
  const parsed = field.safeParse(undefined);
  return parsed.success && parsed.data !== undefined ? String(parsed.data) : undefined;
}
