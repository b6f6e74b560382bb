// The `worker-previews` section of the slot config: read into entries, and refused with the place and
// what to write when an entry is wrong.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseSlotConfig } from '../../src/config/slot-config.ts';

const FILE = '.github/preview-slots.yml';
const BASE = 'pool: preview-slot\nresources:\n  workers:\n    - name: shop-{slot}\n';

function problems(section: string): readonly { path: string; line?: number; message: string }[] {
  try {
    parseSlotConfig(`${BASE}${section}`, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('worker-previews', () => {
  it('reads each Worker with its ttl in seconds, its keep list and its max', () => {
    const config = parseSlotConfig(
      `${BASE}worker-previews:\n  - worker: shop\n    ttl: 3d\n    keep: [staging, "release-*"]\n    max: 20\n  - worker: admin\n    ttl: 12h\n`,
      FILE,
    );
    expect(config.workerPreviews).toEqual([
      { worker: 'shop', ttlSeconds: 259_200, keep: ['staging', 'release-*'], max: 20 },
      { worker: 'admin', ttlSeconds: 43_200, keep: [], max: undefined },
    ]);
  });

  it('is empty when the config has no such section', () => {
    expect(parseSlotConfig(BASE, FILE).workerPreviews).toEqual([]);
  });

  it('refuses a ttl that is no duration, naming the place and the fix', () => {
    expect(problems('worker-previews:\n  - worker: shop\n    ttl: 3 days\n')).toEqual([
      expect.objectContaining({
        path: 'worker-previews[0].ttl',
        line: 7,
        message: 'must be a positive duration like 12h or 3d, got "3 days"; write e.g. ttl: 3d',
      }),
    ]);
  });

  it('refuses a missing ttl, a bad Worker name, an empty keep glob, a max of 0 and an unknown key', () => {
    const found = problems(
      'worker-previews:\n  - worker: Shop App\n    keep: [""]\n    max: 0\n    tll: 3d\n',
    ).map((problem) => [problem.path, problem.message]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['worker-previews[0].worker', expect.stringContaining('must be a Worker name')],
        ['worker-previews[0].keep[0]', 'must not be empty; write e.g. "release-*"'],
        ['worker-previews[0].max', 'must be at least 1; write e.g. max: 20'],
        ['worker-previews[0].tll', expect.stringContaining("did you mean 'ttl'?")],
        ['worker-previews[0].ttl', expect.stringContaining('is missing')],
      ]),
    );
  });

  it('refuses the same Worker twice', () => {
    expect(
      problems('worker-previews:\n  - { worker: shop, ttl: 3d }\n  - { worker: shop, ttl: 1d }\n'),
    ).toEqual([
      expect.objectContaining({
        path: 'worker-previews[1].worker',
        message: "'shop' is listed twice; merge the two entries into one",
      }),
    ]);
  });
});
