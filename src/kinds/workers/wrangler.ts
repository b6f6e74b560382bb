// The Worker in an app's wrangler config: its top-level `name`, the Durable Object bindings that
// name it as their `script_name`, and its service bindings. All are pointed at the slot's Worker: a
// service binding to itself, or to a Worker a template of the slot claims (`binding:` the name the
// app calls it), goes to the slot's own; one to any other Worker is outside the slot (optional: the
// slot config must share it on purpose, src/config/wrangler/outside-bindings.ts). A Durable Object binding to
// another Worker's class is refused: that class's storage is the other Worker's, shared by every slot
// (and often production's), so a preview must not write into it.
import * as z from '../../zod.ts';
import { type KindWrangler, sectionEntries, type WranglerReference } from '../wrangler-binding.ts';
import type { SlotWorker } from './config.ts';

const serviceBinding = z.looseObject({
  binding: z.string().min(1),
  service: z.string().min(1),
});

const doBinding = z.looseObject({
  name: z.string().min(1),
  class_name: z.string().min(1),
  script_name: z.string().min(1).optional(),
});

export const workersWrangler: KindWrangler<SlotWorker> = {
  read(top) {
    const name = top.name;
    if (name !== undefined && typeof name !== 'string')
      return { references: [], problems: ["name: must be the Worker's name, a string"] };
    const own = name ?? '';
    const bindings = sectionEntries(top, ['durable_objects', 'bindings'], doBinding);
    const references: WranglerReference[] = [
      {
        path: [],
        role: 'name',
        names: own === '' ? [] : [own],
        target: own,
        label: `name (${own || 'none'})`,
      },
    ];
    const problems = [...bindings.problems];
    for (const { index, entry } of bindings.entries) {
      if (entry.script_name === undefined) continue;
      const path = ['durable_objects', 'bindings', index];
      if (entry.script_name === own) {
        references.push({
          path,
          role: 'script_name',
          names: [own],
          target: own,
          label: `durable_objects.bindings[${index}] (binding ${entry.name})`,
        });
      } else {
        problems.push(
          `durable_objects.bindings[${index}]: binding ${entry.name} uses class ${entry.class_name} of another Worker ('${entry.script_name}'), whose storage every slot would share; bind a class of this Worker instead, or leave the binding out of the preview's config`,
        );
      }
    }
    const services = sectionEntries(top, ['services'], serviceBinding);
    problems.push(...services.problems);
    for (const { index, entry } of services.entries)
      references.push({
        path: ['services', index],
        role: 'service',
        names: [entry.service],
        target: entry.service,
        label: `services[${index}] (binding ${entry.binding})`,
        optional: entry.service !== own,
      });
    return { references, problems };
  },
  point(reference, worker) {
    if (reference.role === 'name') return { name: worker.name };
    // The slot's Worker has no wrangler environments: `environment` would name one it does not have.
    if (reference.role === 'service') return { service: worker.name, environment: undefined };
    return { script_name: worker.name };
  },
};
