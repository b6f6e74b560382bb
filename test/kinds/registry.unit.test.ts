// The checklist of docs/kinds.md ("Adding a resource kind"): every kind in the registry has what the
// rest of preview-gc reads from it, its twin kind and its rows in the docs, so a kind added to the
// registry alone fails here, saying what is missing.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseSlotConfig, resourcesForSlot } from '../../src/config/slot-config.ts';
import { operationsOf } from '../../src/kinds/operations.ts';
import { TOKEN_PERMISSIONS } from '../../src/kinds/permissions.ts';
import { KIND_LIST } from '../../src/kinds/registry.ts';
import { TWIN_KIND_LIST } from '../twin/kinds.ts';
import { createTwinAccount, twinSeedSchema } from '../twin/twin.ts';

const read = (path: string) => readFile(path, 'utf8');

describe.each(KIND_LIST.map((kind) => [kind.key, kind] as const))('the %s kind', (key, kind) => {
  it('has a config schema, and examples for the list, an entry and its name; the list example is a valid config', () => {
    for (const below of ['', '[]', `[].${kind.nameKey}`]) expect(kind.examples[below]).toBeTruthy();
    const config = parseSlotConfig(`pool: preview-slot\nresources:\n  ${kind.examples['']}\n`, 'kinds.yml');
    expect(resourcesForSlot(config, 'preview-3')[key]).toHaveLength(1);
  });

  it('has a permission with a dashboard and an API name, in the README, docs/config.md and action.yml', async () => {
    const [readme, configDoc, actionYml] = await Promise.all([
      read('README.md'),
      read('docs/config.md'),
      read('action.yml'),
    ]);
    const permission = TOKEN_PERMISSIONS.find((candidate) => candidate.kind === key);
    expect(permission?.dashboard).toBe(kind.permission.dashboard);
    expect(readme).toContain(`| ${kind.permission.dashboard} | ${kind.permission.apiName} |`);
    expect(configDoc).toContain(`**${kind.permission.dashboard}** (API name \`${kind.permission.apiName}\`)`);
    expect(actionYml).toContain(kind.permission.dashboard);
  });

  it('has operations with a probe, a lookup and an erase step', () => {
    const operations = operationsOf(kind);
    expect(typeof operations.probe).toBe('function');
    expect(typeof operations.find).toBe('function');
    expect(typeof operations.erase).toBe('function');
  });

  it('has its keys in the key table of docs/config.md', async () => {
    expect(await read('docs/config.md')).toContain(`| \`resources.${key}[].${kind.nameKey}\` |`);
  });

  it('has a twin kind, registered with the twin, that seeds a slot of it with the resource', () => {
    const twinKind = TWIN_KIND_LIST.find((candidate) => candidate.key === key);
    expect(twinKind, `test/twin/${key}/twin-kind.ts, listed in test/twin/kinds.ts`).toBeDefined();
    const config = parseSlotConfig(`pool: preview-slot\nresources:\n  ${kind.examples['']}\n`, 'kinds.yml');
    const seed = resourcesForSlot(config, 'preview-3')[key].flatMap((r) => twinKind?.seedFor(r, 'preview-3'));
    const state = createTwinAccount({ seed: twinSeedSchema.parse({ [key]: seed }) }).state();
    expect(new Map(Object.entries(state)).get(key)).toHaveLength(1);
  });
});

describe('the registry', () => {
  it('erases compute first, so nothing writes while the data stores are emptied', () => {
    expect(KIND_LIST[0]?.step).toBe('compute');
  });

  it('gives every kind its own key, step and name in messages', () => {
    for (const field of ['key', 'step', 'noun'] as const) {
      const values = KIND_LIST.map((kind) => kind[field]);
      expect(new Set(values).size).toBe(values.length);
    }
  });
});
