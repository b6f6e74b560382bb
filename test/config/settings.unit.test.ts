import { describe, expect, it } from 'vitest';
import { parseSettings, type RawInputs, rawSecretsOf, SettingsError } from '../../src/config/settings.ts';

const ACCOUNT = '0123456789abcdef0123456789abcdef';
const minimal: RawInputs = {
  'semaphore-url': 'https://semaphore.example.workers.dev/',
  'semaphore-token': 'sem-secret',
  'cloudflare-api-token': 'cf-secret',
  'cloudflare-account-id': ACCOUNT,
};

function problemsOf(raw: RawInputs): readonly string[] {
  try {
    parseSettings(raw);
  } catch (error) {
    if (error instanceof SettingsError) return error.problems;
    throw error;
  }
  throw new Error('expected the settings to be refused');
}

describe('parseSettings', () => {
  it('fills every default from action.yml', () => {
    const settings = parseSettings(minimal);
    expect(settings).toMatchObject({
      command: 'gc',
      dryRun: false,
      configPath: '.github/preview-slots.yml',
      semaphoreUrl: 'https://semaphore.example.workers.dev',
      gcLeaseMinutes: 30,
      maxSlots: 20,
      requestBudget: 600,
      requestsPerSecond: 3,
      deadlineMinutes: 20,
      parallelSlots: 3,
      reclaimDirty: true,
      pullRequest: undefined,
      pool: undefined,
    });
    expect(settings.cloudflare.apiBaseUrl).toBe('https://api.cloudflare.com/client/v4');
  });

  it('names every missing input at once', () => {
    const problems = problemsOf({});
    expect(problems.join('\n')).toMatch(/input 'semaphore-url' is required/);
    expect(problems.join('\n')).toMatch(/input 'semaphore-token' is required/);
    expect(problems.join('\n')).toMatch(/input 'cloudflare-api-token' is required for 'gc'/);
    expect(problems.join('\n')).toMatch(/input 'cloudflare-account-id' is required for 'gc'/);
    expect(problems).toHaveLength(4);
  });

  it('lets status run without Cloudflare credentials', () => {
    const settings = parseSettings({
      'semaphore-url': 'http://127.0.0.1:8787',
      'semaphore-token': 't',
      command: 'status',
    });
    expect(settings.command).toBe('status');
  });

  it('requires a pull request number for cleanup', () => {
    expect(problemsOf({ ...minimal, command: 'cleanup' })).toEqual([
      expect.stringMatching(/input 'pull-request' is required for 'cleanup'/),
    ]);
    expect(parseSettings({ ...minimal, command: 'cleanup', 'pull-request': '1592' }).pullRequest).toBe(1592);
  });

  it.each([
    ['dry-run', 'yes', /input 'dry-run' must be true or false, got 'yes'/],
    ['reclaim-dirty', '1', /input 'reclaim-dirty' must be true or false/],
    ['max-slots', '0', /input 'max-slots' must be a whole number from 1 to 1000, got '0'/],
    ['max-slots', '-3', /input 'max-slots' must be a whole number/],
    ['gc-lease-minutes', '2.5', /input 'gc-lease-minutes' must be a whole number/],
    ['request-budget', '1e9', /input 'request-budget' must be a whole number/],
    ['requests-per-second', '500', /input 'requests-per-second' must be a whole number from 1 to 50/],
    ['deadline-minutes', 'NaN', /input 'deadline-minutes' must be a whole number/],
    ['parallel-slots', '0', /input 'parallel-slots' must be a whole number from 1 to 10/],
    ['command', 'destroy', /input 'command' must be one of gc, cleanup, status, acquire/],
    ['semaphore-url', 'ftp://x', /input 'semaphore-url' must be an http\(s\) URL/],
    [
      'cloudflare-account-id',
      'prod',
      /input 'cloudflare-account-id' must be the 32-character hex account id/,
    ],
    ['pool', 'Preview_Slot', /input 'pool' must be 1-63 characters of a-z/],
  ])('refuses %s=%s with a message that says what to write', (name, value, message) => {
    expect(problemsOf({ ...minimal, [name]: value })).toEqual([expect.stringMatching(message)]);
  });

  it('refuses a deadline that is not inside the GC lease, naming both inputs', () => {
    expect(problemsOf({ ...minimal, 'gc-lease-minutes': '15', 'deadline-minutes': '15' })).toEqual([
      expect.stringMatching(
        /input 'deadline-minutes' \(15\) must be less than input 'gc-lease-minutes' \(15\): a step still running at the deadline must end inside the GC's lease/,
      ),
    ]);
    expect(parseSettings({ ...minimal, 'gc-lease-minutes': '15', 'deadline-minutes': '14' })).toMatchObject({
      gcLeaseMinutes: 15,
      deadlineMinutes: 14,
    });
    expect(parseSettings({ ...minimal, command: 'status', 'deadline-minutes': '45' }).deadlineMinutes).toBe(
      45,
    );
  });

  it("reads acquire's inputs with their defaults: a two-day lease, no wait, no comment", () => {
    const settings = parseSettings({ ...minimal, command: 'acquire', 'pull-request': '1612' });
    expect(settings).toMatchObject({
      command: 'acquire',
      pullRequest: 1612,
      leaseMinutes: 180,
      waitMinutes: 0,
      comment: false,
    });
    expect(
      parseSettings({
        ...minimal,
        command: 'acquire',
        'pull-request': '7',
        'lease-minutes': '600',
        'wait-minutes': '30',
        comment: 'true',
      }),
    ).toMatchObject({ leaseMinutes: 600, waitMinutes: 30, comment: true });
  });

  it('refuses acquire without a pull request, as a dry run, or with a lease shorter than its wait and deadline', () => {
    expect(problemsOf({ ...minimal, command: 'acquire' })).toEqual([
      expect.stringMatching(/input 'pull-request' is required for 'acquire'/),
    ]);
    expect(problemsOf({ ...minimal, command: 'acquire', 'pull-request': '7', 'dry-run': 'true' })).toEqual([
      expect.stringMatching(/input 'dry-run' is not available for 'acquire'/),
    ]);
    expect(
      problemsOf({
        ...minimal,
        command: 'acquire',
        'pull-request': '7',
        'lease-minutes': '60',
        'wait-minutes': '45',
      }),
    ).toEqual([
      expect.stringMatching(
        /input 'lease-minutes' \(60\) must be longer than input 'wait-minutes' plus input 'deadline-minutes' \(65\)/,
      ),
    ]);
    expect(
      problemsOf({ ...minimal, command: 'acquire', 'pull-request': '7', 'lease-minutes': '59' }),
    ).toEqual([expect.stringMatching(/input 'lease-minutes' must be a whole number from 60 to 43200/)]);
  });

  it('reads the spend alert in dollars an hour, $1 by default, and refuses what is not an amount', () => {
    expect(parseSettings(minimal).spendAlertUsdPerHour).toBe(1);
    expect(parseSettings({ ...minimal, 'spend-alert-usd-per-hour': '2.50' }).spendAlertUsdPerHour).toBe(2.5);
    for (const value of ['0', '-1', '$3', '1e3', '0.001', 'ten']) {
      expect(problemsOf({ ...minimal, 'spend-alert-usd-per-hour': value })).toEqual([
        `input 'spend-alert-usd-per-hour' must be an amount in US dollars from 0.01 to 100000, such as 1 or 2.50, got '${value}'`,
      ]);
    }
  });

  it("reads gc's warning and keep: an hour's warning, the label preview-keep, three days at most; refuses what GitHub would not take", () => {
    expect(parseSettings(minimal)).toMatchObject({
      warnMinutes: 60,
      keepLabel: 'preview-keep',
      keepMaxHours: 72,
    });
    expect(
      parseSettings({
        ...minimal,
        'warn-minutes': '90',
        'keep-label': 'keep preview 🔒',
        'keep-max-hours': '24',
      }),
    ).toMatchObject({ warnMinutes: 90, keepLabel: 'keep preview 🔒', keepMaxHours: 24 });
    expect(problemsOf({ ...minimal, 'keep-label': 'keep\npreview' })).toEqual([
      "input 'keep-label' must be a label name: 1-50 characters, no control characters",
    ]);
    expect(problemsOf({ ...minimal, 'keep-label': 'x'.repeat(51) })).toHaveLength(1);
    expect(problemsOf({ ...minimal, 'warn-minutes': '0' })[0]).toMatch(/^input 'warn-minutes' /);
    expect(problemsOf({ ...minimal, 'keep-max-hours': '721' })[0]).toMatch(/^input 'keep-max-hours' /);
  });

  it('accepts the YAML spellings of booleans that GitHub accepts', () => {
    expect(parseSettings({ ...minimal, 'dry-run': 'True' }).dryRun).toBe(true);
    expect(parseSettings({ ...minimal, 'reclaim-dirty': 'FALSE' }).reclaimDirty).toBe(false);
  });

  it('lists the secrets to mask, trimmed, also when an input is refused', () => {
    const raw = { ...minimal, 'github-token': ' gh-secret\n', 'max-slots': 'many' };
    expect(rawSecretsOf(raw).sort()).toEqual(['cf-secret', 'gh-secret', 'sem-secret']);
  });

  it('counts the password of a URL (or a user name standing alone) among the secrets', () => {
    expect(
      rawSecretsOf({
        'semaphore-url': 'https://ops:p%40ss@semaphore.example',
        'cloudflare-api-base-url': 'https://cf-in-url@api.example',
      }).sort(),
    ).toEqual(['cf-in-url', 'p%40ss', 'p@ss']);
  });
});

describe('parseSettings: secrets never echoed', () => {
  it.each([
    ['semaphore-url', 'https://ops:hunter2-secret@semaphore.example'],
    ['semaphore-url', 'https://hunter2-secret@semaphore.example'],
    ['cloudflare-api-base-url', 'https://ops:hunter2-secret@api.example/client/v4'],
  ])('refuses %s with credentials, without quoting them', (name, value) => {
    const problems = problemsOf({ ...minimal, [name]: value });
    expect(problems).toEqual([expect.stringMatching(/must not carry a user name or password/)]);
    expect(problems.join('\n')).not.toContain('hunter2-secret');
  });

  it('hides the credentials of a URL it cannot parse when it quotes it', () => {
    const problems = problemsOf({ ...minimal, 'semaphore-url': 'https://ops:hunter2 secret@semaphore ex' });
    expect(problems).toEqual([
      expect.stringMatching(/must be an http\(s\) URL, got 'https:\/\/\*\*\*@semaphore ex'/),
    ]);
  });

  it.each([
    ['semaphore-token', 'sem-hunter2\rX-Evil: 1'],
    ['semaphore-token', 'sem hunter2'],
    ['cloudflare-api-token', 'cf-hunter2\u0000'],
    ['github-token', 'gh-hunter2\tgh'],
  ])('refuses %s with white space or a control character inside, without quoting it', (name, value) => {
    const problems = problemsOf({ ...minimal, [name]: value });
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(`input '${name}' must not contain spaces, line breaks or control characters`),
      ),
    ]);
    expect(problems.join('\n')).not.toContain('hunter2');
  });
});
