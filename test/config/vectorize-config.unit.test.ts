// `resources.vectorize` in the slot config: index names are templates like every other kind.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseSlotConfig, resourcesForSlot } from '../../src/config/slot-config.ts';

const FILE = '.github/preview-slots.yml';
const VECTORIZE = 'pool: preview-slot\nresources:\n  vectorize:\n    - name: app-{n}-embeddings\n';

describe('Vectorize indexes in the slot config', () => {
  it('expand per slot, with the template and path they came from', () => {
    expect(resourcesForSlot(parseSlotConfig(VECTORIZE, FILE), 'preview-7').vectorize).toEqual([
      { name: 'app-7-embeddings', template: 'app-{n}-embeddings', path: 'resources.vectorize[0].name' },
    ]);
  });

  it('are refused without a placeholder, with the place and an example', () => {
    const refusal = (() => {
      try {
        parseSlotConfig(VECTORIZE.replace('app-{n}-embeddings', 'embeddings'), FILE);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).problems).toEqual([
      {
        path: 'resources.vectorize[0].name',
        line: 4,
        column: 13,
        message:
          "'embeddings' must contain {slot} or {n}, so that every slot names its own resource; write e.g. name: app-{slot}-embeddings",
      },
    ]);
  });
});
