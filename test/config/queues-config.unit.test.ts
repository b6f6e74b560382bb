// `resources.queues` in the slot config: templates like every other kind, expanded per slot, checked
// against `protect`, and refused with the place and an example when wrong.
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  ProtectedResourceError,
  parseSlotConfig,
  resourcesForSlot,
} from '../../src/config/slot-config.ts';

const FILE = '.github/preview-slots.yml';
const QUEUES = `pool: preview-slot
resources:
  queues:
    - name: app-{slot}-jobs
    - name: app-{slot}-mail
`;

function problemsOf(text: string) {
  try {
    parseSlotConfig(text, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

describe('queues in the slot config', () => {
  it('are a kind of their own: a config with only queues lists something to erase', () => {
    expect(parseSlotConfig(QUEUES, FILE).resources.queues).toEqual([
      { name: 'app-{slot}-jobs' },
      { name: 'app-{slot}-mail' },
    ]);
  });

  it('expand per slot, each with the template and path it came from', () => {
    const resources = resourcesForSlot(parseSlotConfig(QUEUES, FILE), 'preview-3');
    expect(resources.queues).toEqual([
      { name: 'app-preview-3-jobs', template: 'app-{slot}-jobs', path: 'resources.queues[0].name' },
      { name: 'app-preview-3-mail', template: 'app-{slot}-mail', path: 'resources.queues[1].name' },
    ]);
  });

  it('are refused when a name holds a protected word, before any call', () => {
    const error = (() => {
      try {
        resourcesForSlot(parseSlotConfig(QUEUES, FILE), 'prod-2');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ProtectedResourceError);
    expect((error as ProtectedResourceError).problems[0]).toEqual({
      path: 'resources.queues[0].name',
      line: 4,
      column: 13,
      message:
        "'app-{slot}-jobs' expands to 'app-prod-2-jobs', which contains the protected word 'prod' (protect-words); rename the template or the slot so no slot name can reach production",
    });
  });

  it('need {slot} or {n}, and say what to write', () => {
    expect(problemsOf(QUEUES.replace('app-{slot}-jobs', 'app-jobs'))).toEqual([
      {
        path: 'resources.queues[0].name',
        line: 4,
        column: 13,
        message:
          "'app-jobs' must contain {slot} or {n}, so that every slot names its own resource; write e.g. name: app-{slot}-jobs",
      },
    ]);
  });

  it('suggest the key for a typo and refuse characters a queue name cannot have', () => {
    expect(problemsOf(QUEUES.replace('- name: app-{slot}-mail', '- nmae: app-{slot}-mail'))).toEqual([
      {
        path: 'resources.queues[1].nmae',
        line: 5,
        column: 7,
        message: "unknown key 'nmae' (a typo?): did you mean 'name'? Keys allowed here: name, binding",
      },
    ]);
    expect(problemsOf(QUEUES.replace('app-{slot}-jobs', 'App {slot}'))[0]?.message).toBe(
      "'App {slot}' may only use a-z, 0-9, - and _ besides {slot} and {n}; write e.g. name: app-{slot}-jobs",
    );
  });

  it('show an example for a wrong type and refuse the same name twice', () => {
    expect(problemsOf('pool: p\nresources:\n  queues: app-{slot}-jobs\n')[0]?.message).toBe(
      'must be a list, got string "app-{slot}-jobs"; write e.g. queues: [{ name: "app-{slot}-jobs" }]',
    );
    expect(problemsOf(QUEUES.replace('app-{slot}-mail', 'app-{slot}-jobs'))).toEqual([
      {
        path: 'resources.queues[1].name',
        line: 5,
        column: 13,
        message: "'app-{slot}-jobs' is listed twice (also at resources.queues[0].name); remove one of them",
      },
    ]);
  });
});
