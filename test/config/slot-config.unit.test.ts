import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  loadSlotConfig,
  ProtectedResourceError,
  parseSlotConfig,
  resourcesForSlot,
  sharedResourceNames,
} from '../../src/config/slot-config.ts';
import { poolTypeSchema, slugSchema } from '../../src/semaphore/protocol.ts';
import { DESIGN_EXAMPLE } from './design-example.ts';

const FILE = '.github/preview-slots.yml';

function refusal(text: string): ConfigError {
  try {
    parseSlotConfig(text, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('parseSlotConfig', () => {
  it('reads the example of the design doc', () => {
    const config = parseSlotConfig(DESIGN_EXAMPLE, FILE);
    expect(config.pool).toBe('preview-slot');
    expect(config.resources.workers).toEqual([{ name: 'app-{slot}', durableObjects: 'park', crons: 'drop' }]);
    expect(config.resources.d1).toEqual([{ name: 'app-{slot}-db', erase: 'rows' }]);
    expect(config.resources.kv).toEqual([{ title: 'app-{slot}-cache', erase: 'keys' }]);
    expect(config.resources.r2).toEqual([
      {
        bucket: 'app-{slot}-files',
        jurisdiction: 'default',
        expire: { id: 'expire-preview-files', prefix: '', afterSeconds: 10_800 },
      },
      {
        bucket: 'app-{slot}-sandboxes',
        jurisdiction: 'default',
        expire: { id: 'expire-sandbox-backups', prefix: 'backups/', afterSeconds: 10_800 },
      },
    ]);
    expect(config.protect).toEqual(['*-prd*', '*-prod*', '*-production*']);
  });

  it('fills defaults: park, drop, no prefix, the default jurisdiction and the protected words', () => {
    const config = parseSlotConfig(
      `pool: p1
resources:
  workers: [{ name: "w-{n}" }]
  d1: [{ name: "d-{n}" }]
  r2: [{ bucket: "b-{slot}", jurisdiction: eu, expire: { id: x, after: 90m } }]
`,
      FILE,
    );
    expect(config.resources.workers[0]?.durableObjects).toBe('park');
    expect(config.resources.d1[0]).toEqual({ name: 'd-{n}', erase: 'drop', eraseDefaulted: true });
    expect(config.resources.r2[0]).toEqual({
      bucket: 'b-{slot}',
      jurisdiction: 'eu',
      expire: { id: 'x', prefix: '', afterSeconds: 5400 },
    });
    expect(config.protect).toEqual([]);
    expect(config.protectWords).toEqual(['prod', 'production', 'prd']);
  });

  it('names file, path, line:column and what to write for a bad duration', () => {
    const error = refusal(
      DESIGN_EXAMPLE.replace('prefix: "backups/", after: 3h', 'prefix: "backups/", after: 3 hours'),
    );
    expect(error.problems).toEqual([
      {
        path: 'resources.r2[1].expire.after',
        line: 15,
        column: 72,
        message: 'must be a positive duration like 3h, 90m or 2d, got "3 hours"; write e.g. after: 3h',
      },
    ]);
    expect(error.message).toContain(
      `${FILE}:15:72 resources.r2[1].expire.after: must be a positive duration`,
    );
  });

  it('refuses a zero duration and a bare number', () => {
    expect(refusal(DESIGN_EXAMPLE.replace('after: 3h }', 'after: 0h }')).problems[0]?.path).toBe(
      'resources.r2[0].expire.after',
    );
    expect(refusal(DESIGN_EXAMPLE.replace('after: 3h }', 'after: 10800 }')).problems[0]?.message).toMatch(
      /got 10800; write e\.g\. after: 3h/,
    );
  });

  it('refuses unknown keys with a did-you-mean, pointing at the key', () => {
    const error = refusal(DESIGN_EXAMPLE.replace('- title: app-{slot}-cache', '- tittle: app-{slot}-cache'));
    const unknown = error.problems.find((problem) => problem.path === 'resources.kv[0].tittle');
    expect(unknown).toEqual({
      path: 'resources.kv[0].tittle',
      line: 10,
      column: 7,
      message:
        "unknown key 'tittle' (a typo?): did you mean 'title'? Keys allowed here: title, erase, bound-by, binding",
    });
    // The missing `title` is the same mistake, so it is not reported twice.
    expect(error.problems).toHaveLength(1);
  });

  it('suggests durable-objects for a misspelt key and the closest choice for a bad value', () => {
    const typo = refusal(DESIGN_EXAMPLE.replace('durable-objects: park', 'durable_objects: park'));
    expect(typo.problems[0]?.message).toMatch(/did you mean 'durable-objects'\?/);
    const value = refusal(DESIGN_EXAMPLE.replace('erase: rows', 'erase: row'));
    expect(value.problems[0]).toMatchObject({ path: 'resources.d1[0].erase', line: 8 });
    expect(value.problems[0]?.message).toBe(
      'must be one of rows, drop, recreate, got string "row" (did you mean \'rows\'?); write e.g. erase: drop',
    );
  });

  it('requires {slot} or {n} in every template and refuses unknown placeholders', () => {
    const error = refusal(
      DESIGN_EXAMPLE.replace('- name: app-{slot}-db', '- name: app-db').replace(
        'title: app-{slot}-cache',
        'title: app-{slug}-cache',
      ),
    );
    expect(error.problems).toContainEqual({
      path: 'resources.d1[0].name',
      line: 7,
      column: 13,
      message:
        "'app-db' must contain {slot} or {n}, so that every slot names its own resource; write e.g. name: app-{slot}-db",
    });
    const placeholder = error.problems.find((problem) => problem.path === 'resources.kv[0].title');
    expect(placeholder?.message).toMatch(/unknown placeholder \{slug\}; did you mean \{slot\}\?/);
  });

  it('refuses characters a bucket name cannot have', () => {
    const error = refusal(DESIGN_EXAMPLE.replace('bucket: app-{slot}-files', 'bucket: App_{slot}'));
    expect(error.problems[0]?.path).toBe('resources.r2[0].bucket');
    expect(error.problems[0]?.message).toMatch(/may only use a-z, 0-9 and -/);
  });

  it('names a missing section, a wrong type and an empty resources block', () => {
    expect(refusal('resources:\n  kv: [{ title: "k-{slot}" }]\n').problems).toEqual([
      { path: 'pool', line: 1, column: 1, message: 'is missing; write e.g. pool: preview-slot' },
    ]);
    expect(refusal('pool: p\nresources:\n  d1: app-{slot}-db\n').problems[0]).toMatchObject({
      path: 'resources.d1',
      line: 3,
      column: 7,
      message:
        'must be a list, got string "app-{slot}-db"; write e.g. d1: [{ name: "app-{slot}-db", erase: drop }]',
    });
    expect(refusal('pool: p\nresources: {}\n').problems[0]?.message).toMatch(/lists no resource to erase/);
  });

  it('refuses the same name twice in one kind', () => {
    const error = refusal('pool: p\nresources:\n  kv:\n    - title: a-{slot}\n    - title: a-{slot}\n');
    expect(error.problems).toEqual([
      {
        path: 'resources.kv[1].title',
        line: 5,
        column: 14,
        message: "'a-{slot}' is listed twice (also at resources.kv[0].title); remove one of them",
      },
    ]);
  });

  it('reports the first YAML syntax error with its position', () => {
    const error = refusal('pool: p\nresources:\n  kv:\n    - title: "a-{slot}\n  d1: []\n');
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]?.message).toMatch(/^is not valid YAML \(.+\); fix the syntax/);
    expect(error.problems[0]?.line).toBeGreaterThanOrEqual(4);
  });

  it('refuses a collection used as a key, and yaml prints nothing of it', () => {
    // yaml would warn with the key's text: process.emitWarning in its Node build, console.warn in
    // the ES build the bundle uses. The refusal is the one place the key shows.
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const error = refusal('pool: p\n? [a, "::error::x"]\n: 1\nresources:\n  kv: [{ title: "a-{slot}" }]\n');
      expect(error.problems[0]?.message).toMatch(/^unknown key '\[ a, "::error::x" \]'/);
      expect(emitWarning).not.toHaveBeenCalled();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      emitWarning.mockRestore();
      warn.mockRestore();
    }
  });

  // Found by a hostile read: yaml refused the bomb with its own error, outside ConfigError, naming no
  // file, line or key.
  it('refuses a YAML alias bomb naming the file, the line and the key of the alias', () => {
    const bomb = [
      'pool: p',
      'resources:',
      '  kv: [{ title: "{slot}" }]',
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    const error = refusal(bomb);
    expect(error.problems).toEqual([expect.objectContaining({ path: 'd[0]', line: 7, column: 5 })]);
    expect(error.message).toContain(`${FILE}:7:5 d[0]: is the alias *c, one of YAML aliases that expand`);
    expect(error.message).toContain('write the values out');
  });

  it('reads a config with a few aliases, as YAML allows', () => {
    const config = parseSlotConfig(
      'pool: p\nresources:\n  kv: [{ title: &t "{slot}-cache" }]\n  d1: [{ name: "{slot}-db" }]\nprotect: [&live "*-live*", *live]\n',
      FILE,
    );
    expect(config.protect).toEqual(['*-live*', '*-live*']);
  });

  it('tells to quote a template written inside a flow collection', () => {
    const error = refusal('pool: p\nresources:\n  kv: [{ title: a-{slot} }]\n');
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatchObject({ line: 3 });
    expect(error.problems[0]?.message).toMatch(
      /inside \[ \] or \{ \} a template needs quotes, e\.g\. \{ name: "app-\{slot\}" \}/,
    );
  });
});

describe('docs/config.md', () => {
  it('shows an example that is valid', async () => {
    const doc = await readFile(new URL('../../docs/config.md', import.meta.url), 'utf8');
    const example = doc.split('```yaml\n')[1]?.split('```')[0] ?? '';
    const config = parseSlotConfig(example, 'docs/config.md');
    expect(config.resources.r2[1]?.jurisdiction).toBe('eu');
  });
});

describe('loadSlotConfig', () => {
  it('reads a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'slot-config-'));
    const path = join(dir, 'slots.yml');
    await writeFile(path, DESIGN_EXAMPLE);
    expect((await loadSlotConfig(path)).file).toBe(path);
  });

  it('names the missing file and shows an example', async () => {
    const path = join(tmpdir(), 'no-such-dir-for-preview-gc', 'slots.yml');
    const error = await loadSlotConfig(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(path);
    expect((error as ConfigError).message).toMatch(/no such file; create it .*\n.*pool: preview-slot/s);
  });
});

describe('resourcesForSlot', () => {
  const config = parseSlotConfig(DESIGN_EXAMPLE, FILE);

  it('expands every template for a slot', () => {
    const resources = resourcesForSlot(config, 'preview-3');
    expect(resources.slot).toBe('preview-3');
    expect(resources.workers).toEqual([
      {
        name: 'app-preview-3',
        template: 'app-{slot}',
        path: 'resources.workers[0].name',
        durableObjects: 'park',
        crons: 'drop',
      },
    ]);
    expect(resources.d1[0]).toMatchObject({ name: 'app-preview-3-db', erase: 'rows' });
    expect(resources.kv[0]).toMatchObject({ title: 'app-preview-3-cache' });
    expect(resources.r2.map((bucket) => bucket.bucket)).toEqual([
      'app-preview-3-files',
      'app-preview-3-sandboxes',
    ]);
  });

  it('puts the last number of the slug for {n}', () => {
    const numbered = parseSlotConfig('pool: p\nresources:\n  d1: [{ name: "db-{n}" }]\n', FILE);
    expect(resourcesForSlot(numbered, 'pr2-slot-14').d1[0]?.name).toBe('db-14');
    expect(() => resourcesForSlot(numbered, 'alpha')).toThrow(
      /uses \{n\}, but the slot 'alpha' has no number/,
    );
  });

  it('refuses names that hold a protected word, naming the template and its line', () => {
    let error: unknown;
    try {
      resourcesForSlot(config, 'prod-1');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ProtectedResourceError);
    const refused = error as ProtectedResourceError;
    expect(refused.problems).toHaveLength(5);
    expect(refused.problems[1]).toEqual({
      path: 'resources.d1[0].name',
      line: 7,
      column: 13,
      message:
        "'app-{slot}-db' expands to 'app-prod-1-db', which contains the protected word 'prod' (protect-words); rename the template or the slot so no slot name can reach production",
    });
    expect(refused.message).toMatch(/^refusing to touch slot 'prod-1' \(no Cloudflare call was made\)/);
  });

  it('matches protect patterns case-insensitively', () => {
    const custom = parseSlotConfig(
      'pool: p\nresources:\n  kv: [{ title: "Cache {slot}" }]\nprotect: ["*LIVE*"]\n',
      FILE,
    );
    expect(() => resourcesForSlot(custom, 'live-1')).toThrow(ProtectedResourceError);
    expect(resourcesForSlot(custom, 'preview-1').kv[0]?.title).toBe('Cache preview-1');
  });

  it('refuses a slug that cannot be part of a name', () => {
    expect(() => resourcesForSlot(config, '*')).toThrow(/not a usable slug/);
  });

  it('refuses, when the config is read, a template whose fixed part alone is protected, naming the key, the word or pattern and the line', () => {
    const words = refusal(
      'pool: p\nresources:\n  r2:\n    - bucket: myapp-prod-{n}-uploads\n      expire: { id: e, after: 3h }\n',
    );
    expect(words.problems).toEqual([
      {
        path: 'resources.r2[0].bucket',
        line: 4,
        column: 15,
        message:
          "'myapp-prod-{n}-uploads' contains the protected word 'prod' (protect-words) in its fixed part, so the name of every slot would be protected and every slot refused; rename the template (or change protect-words or protect)",
      },
    ]);
    expect(words.message).toMatch(
      /^the slot config \.github\/preview-slots\.yml was refused \(nothing was changed\)/,
    );
    // {n} is always a number, and a word ends where digits begin: prod{n} is prod in every slot.
    const beforeNumber = refusal('pool: p\nresources:\n  d1: [{ name: "prod{n}-db" }]\n');
    expect(beforeNumber.problems.map((problem) => problem.message)).toEqual([
      "'prod{n}-db' contains the protected word 'prod' (protect-words) in its fixed part, so the name of every slot would be protected and every slot refused; rename the template (or change protect-words or protect)",
    ]);
    const pattern = refusal(
      'pool: p\nresources:\n  d1: [{ name: "app-live-{slot}" }]\n  kv: [{ title: "app-{slot}" }]\nprotect: ["*-live-*"]\n',
    );
    expect(pattern.problems.map((problem) => [problem.path, problem.message])).toEqual([
      [
        'resources.d1[0].name',
        "'app-live-{slot}' matches the protect pattern '*-live-*' whatever the slot, so the name of every slot would be protected and every slot refused; rename the template (or change protect-words or protect)",
      ],
    ]);
  });

  it('reads a template whose protected word runs into a placeholder, or whose pattern needs a particular slot: only such slots are refused', () => {
    const config = parseSlotConfig(
      'pool: p\nresources:\n  d1: [{ name: "prod{slot}-db" }]\n  kv: [{ title: "{slot}prod" }]\n',
      FILE,
    );
    expect(resourcesForSlot(config, 'preview-x').d1[0]?.name).toBe('prodpreview-x-db');
    expect(resourcesForSlot(config, 'preview-x').kv[0]?.title).toBe('preview-xprod');
    // preview-3prod is preview, 3 and prod: the word is whole there, and only that slot is refused.
    expect(() => resourcesForSlot(config, 'preview-3')).toThrow(
      /'\{slot\}prod' expands to 'preview-3prod', which contains the protected word 'prod'/,
    );
    const oneDigit = parseSlotConfig(
      'pool: p\nresources:\n  d1: [{ name: "app-{n}-db" }]\nprotect: ["app-?-db"]\n',
      FILE,
    );
    expect(() => resourcesForSlot(oneDigit, 'preview-3')).toThrow(/matches the protect pattern 'app-\?-db'/);
    expect(resourcesForSlot(oneDigit, 'preview-12').d1[0]?.name).toBe('app-12-db');
  });

  it('matches a protect glob when no protected word is in the name', () => {
    const custom = parseSlotConfig(
      'pool: p\nresources:\n  d1: [{ name: "app-{slot}" }]\nprotect: ["*-live*"]\n',
      FILE,
    );
    expect(() => resourcesForSlot(custom, 'live-1')).toThrow(/matches the protect pattern '\*-live\*'/);
  });
});

describe('protect-words: prod, production and prd as whole words, in any case', () => {
  const config = parseSlotConfig('pool: p\nresources:\n  kv: [{ title: "{slot}" }]\n', FILE);
  const isProtected = (slug: string) => {
    try {
      resourcesForSlot(config, slug);
      return false;
    } catch (error) {
      if (error instanceof ProtectedResourceError) return true;
      throw error;
    }
  };

  it.each(['app-production', 'prod-api', 'app-prod', 'prod', 'app-prd-1', 'api-production-eu', 'x-prod-1'])(
    'protects %s',
    (slug) => {
      expect(isProtected(slug)).toBe(true);
    },
  );

  // Found by a hostile read: the words were split only at non-alphanumerics, so a digit glued to a
  // protected word (prod1, prd01) hid it.
  it.each(['prod1', 'production2', 'prd01', 'app-prod2db', 'eu1prod', 'x-prod9'])(
    'protects %s, where a digit touches the word',
    (slug) => {
      expect(isProtected(slug)).toBe(true);
    },
  );

  it('finds a protected word with digits of its own, split or not', () => {
    const own = parseSlotConfig(
      'pool: p\nresources:\n  kv: [{ title: "{slot}" }]\nprotect-words: [live2]\n',
      FILE,
    );
    for (const slug of ['app-live2', 'app-live-2', 'live2'])
      expect(() => resourcesForSlot(own, slug)).toThrow(/contains the protected word 'live2'/);
    for (const slug of ['app-live-3', 'live-1', 'live22'])
      expect(resourcesForSlot(own, slug).kv).toHaveLength(1);
  });

  it('protects a word that _ separates in a template (a slug has no _)', () => {
    const underscored = parseSlotConfig('pool: p\nresources:\n  kv: [{ title: "app_{slot}_cache" }]\n', FILE);
    expect(() => resourcesForSlot(underscored, 'prd-1')).toThrow(ProtectedResourceError);
  });

  it.each(['product-catalog', 'app-products', 'reproduce-1', 'preview-3', 'prodigy', 'productionize-1'])(
    'leaves %s alone',
    (slug) => {
      expect(isProtected(slug)).toBe(false);
    },
  );

  it('finds the word in any case and between spaces and dots (a KV title)', () => {
    // The word is in the fixed part of the template: every slot would be refused, so the config is.
    expect(refusal('pool: p\nresources:\n  kv: [{ title: "App {slot} PROD" }]\n').message).toContain(
      "contains the protected word 'prod' (protect-words) in its fixed part",
    );
    expect(refusal('pool: p\nresources:\n  kv: [{ title: "app.{slot}.Production" }]\n').message).toContain(
      "contains the protected word 'production' (protect-words) in its fixed part",
    );
  });

  it('takes words of your own, and an empty list turns the words off', () => {
    const own = parseSlotConfig(
      'pool: p\nresources:\n  kv: [{ title: "{slot}" }]\nprotect-words: [live]\n',
      FILE,
    );
    expect(() => resourcesForSlot(own, 'live-1')).toThrow(/contains the protected word 'live'/);
    expect(resourcesForSlot(own, 'prod-1').kv[0]?.title).toBe('prod-1');
    const none = parseSlotConfig(
      'pool: p\nresources:\n  kv: [{ title: "{slot}" }]\nprotect-words: []\n',
      FILE,
    );
    expect(resourcesForSlot(none, 'prod-1').kv[0]?.title).toBe('prod-1');
  });

  it('refuses a protected "word" that is not one', () => {
    expect(
      refusal('pool: p\nresources:\n  kv: [{ title: "{slot}" }]\nprotect-words: ["prod-*"]\n').message,
    ).toMatch(/protect-words\[0\]: must be one word of letters and digits/);
  });
});

describe('the size of a slot config', () => {
  const manyTemplates = (count: number) =>
    `pool: p\nresources:\n  d1:\n${Array.from({ length: count }, (_, i) => `    - name: db${i}-{slot}\n`).join('')}`;

  it('refuses more than 1 MiB before parsing it, saying why', async () => {
    const text = `${manyTemplates(1)}# ${'x'.repeat(1024 * 1024)}\n`;
    expect(refusal(text).message).toMatch(
      /\.github\/preview-slots\.yml: is 1,048,\d{3} bytes, more than the 1,048,576 \(1 MiB\) a slot config may have/,
    );
    const dir = await mkdtemp(join(tmpdir(), 'preview-gc-config-'));
    const file = join(dir, 'huge.yml');
    await writeFile(file, text);
    await expect(loadSlotConfig(file)).rejects.toThrow(/huge\.yml: is 1,048,\d{3} bytes/);
  });

  it('names every duplicate of a config with tens of thousands of templates (one pass, not one per pair)', () => {
    const text = `${manyTemplates(20_000)}    - name: db7-{slot}\n    - name: db19999-{slot}\n`;
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
    const error = refusal(text);
    expect(error.problems.map((problem) => problem.message)).toEqual([
      "'db7-{slot}' is listed twice (also at resources.d1[7].name); remove one of them",
      "'db19999-{slot}' is listed twice (also at resources.d1[19999].name); remove one of them",
    ]);
  });
});

describe('sharedResourceNames: one owner per resource name', () => {
  const numbered = parseSlotConfig(
    'pool: p\nresources:\n  workers: [{ name: "app-{slot}" }]\n  d1: [{ name: "app-{n}-db" }]\n',
    FILE,
  );

  it('refuses both slots that map to one name, naming the two slots, the template and the fix', () => {
    const refused = sharedResourceNames(numbered, ['preview-1', 'preview-2', 'staging-1']);
    expect([...refused.keys()].sort()).toEqual(['preview-1', 'staging-1']);
    const [message] = refused.get('staging-1') ?? [];
    expect(message).toBe(
      "slots 'preview-1' and 'staging-1' both map to the D1 database 'app-1-db' (.github/preview-slots.yml:4:16 resources.d1[0].name 'app-{n}-db'): erasing one would erase the other's data, so both are refused. Fix: use {slot} instead of {n} in the template, or take one of the two slots out of the pool (preview-gc slots remove staging-1)",
    );
    expect(refused.get('preview-1')).toEqual([message]);
  });

  it('finds a name two different templates give two slots', () => {
    const mixed = parseSlotConfig(
      'pool: p\nresources:\n  d1:\n    - name: "{slot}-db"\n    - name: "preview-{n}-db"\n',
      FILE,
    );
    const refused = sharedResourceNames(mixed, ['preview-1', 'staging-1']);
    expect(refused.get('preview-1')?.[0]).toMatch(
      /both map to the D1 database 'preview-1-db' \(.*resources\.d1\[0\]\.name '\{slot\}-db' and .*resources\.d1\[1\]\.name 'preview-\{n\}-db'\)/,
    );
  });

  it('lets {slot} templates, different numbers and different kinds be', () => {
    expect(sharedResourceNames(numbered, ['preview-1', 'preview-2', 'preview-3']).size).toBe(0);
    const kinds = parseSlotConfig(
      'pool: p\nresources:\n  d1: [{ name: "x-{n}" }]\n  kv: [{ title: "x-{n}" }]\n',
      FILE,
    );
    expect(sharedResourceNames(kinds, ['a-1', 'a-2']).size).toBe(0);
  });
});

describe("one rule for pool names and slugs, the protocol's", () => {
  const config = parseSlotConfig(
    'pool: preview-slot\nresources:\n  d1:\n    - name: app-{slot}-db\n',
    'slugs.yml',
  );

  it.each(['preview_3', 'preview-', 'Preview-3', '123'])(
    "refuses the slug '%s', as the semaphore would, before any call",
    (slug) => {
      expect(slugSchema.safeParse(slug).success).toBe(false);
      expect(() => resourcesForSlot(config, slug)).toThrow(/is not a usable slug \(1-63 characters of a-z/);
    },
  );

  it.each(['preview_slot', 'preview-', 'Preview'])(
    "refuses the pool '%s' in the config and the settings",
    (pool) => {
      expect(poolTypeSchema.safeParse(pool).success).toBe(false);
      expect(() =>
        parseSlotConfig(`pool: ${pool}\nresources:\n  d1:\n    - name: app-{slot}-db\n`, 'pool.yml'),
      ).toThrow(/pool: must be 1-63 characters of a-z/);
    },
  );
});
