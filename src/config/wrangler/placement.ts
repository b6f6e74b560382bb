// Which template of the slot config each binding of the app's wrangler config goes to
// (docs/config.md#the-slots-wrangler-config). The kinds read their references; the references that
// name one resource (a queue's producer and its consumer) go together; a template claims them by its
// `binding` key, and a kind with one template and one resource in the config needs no key. A
// reference no template claims is refused with its name and the fix, because the preview would
// otherwise write into whatever it names now (production, often); so is every binding to something
// no slot has (outside-bindings.ts), unless the slot config shares it on purpose: all of this before
// any slot is taken.
import { KIND_LIST, nameOf, type SomeKind } from '../../kinds/registry.ts';
import { pathText, type WranglerReference } from '../../kinds/wrangler-binding.ts';
import type { PreviewDeploy } from '../preview-deploy-config.ts';
import type { SlotConfig } from '../slot-config-schema.ts';
import { type AppWranglerConfig, WranglerConfigError } from './app-config.ts';
import { keptSettingsProblems } from './kept-settings.ts';
import { readOutsideBindings, type SharedBinding } from './outside-bindings.ts';

/** A reference of the app's config and the template (its index in the kind's list) it goes to. */
export interface PlacedReference {
  kind: SomeKind;
  template: number;
  reference: WranglerReference;
}

export interface WranglerPlacement {
  /** The app's config, its preview env block applied (preview-env.ts). */
  app: AppWranglerConfig;
  placed: PlacedReference[];
  /** What the slot config's `deploy` says the copy runs with. */
  deploy: PreviewDeploy;
  /** Bindings to something no slot has, shared on purpose (`deploy.shared`). */
  shared: SharedBinding[];
  /** Container-backed Durable Object classes the config declares (`containers[].class_name`). */
  containerClasses: string[];
}

/** The references of one kind, grouped by the resource they name, in the config's order. */
function groupsOf(references: readonly WranglerReference[]): WranglerReference[][] {
  const groups = new Map<string, WranglerReference[]>();
  for (const reference of references)
    groups.set(reference.target, [...(groups.get(reference.target) ?? []), reference]);
  return [...groups.values()];
}

function names(group: readonly WranglerReference[]): string[] {
  return [...new Set(group.flatMap((reference) => reference.names))];
}

function unplaced(
  kind: SomeKind,
  group: readonly WranglerReference[],
  config: SlotConfig,
  app: AppWranglerConfig,
): string {
  const labels = group.map((reference) => reference.label).join(', ');
  const name = names(group)[0] ?? '…';
  if (kind.key === 'workers')
    return `${labels}: ${config.file} names no Worker for this config to deploy as, so the preview would deploy over '${name}'; add resources.workers: [{ name: "app-{slot}" }] to ${config.file}`;
  return `${labels} is not a resource of the slot, so the preview would use what it names now; add a template for it to ${config.file} under resources.${kind.key} with binding: ${name}, or remove it from ${app.file}`;
}

function containerClassesOf(
  file: string,
  top: Readonly<Record<string, unknown>>,
  problems: string[],
): string[] {
  const containers = top.containers;
  if (containers === undefined) return [];
  if (!Array.isArray(containers)) {
    problems.push(`${file} containers: must be a list`);
    return [];
  }
  return containers.flatMap((container: unknown, index) => {
    const className = (container as { class_name?: unknown } | null)?.class_name;
    if (typeof className === 'string' && className.length > 0) return [className];
    problems.push(
      `${file} ${pathText(['containers', index])}.class_name: must name the container's Durable Object class`,
    );
    return [];
  });
}

/** What placing one kind found: its placed references, its problems, and what needs no template. */
interface KindPlacement {
  placed: PlacedReference[];
  problems: string[];
  /** Optional references no template claims: bindings to something outside the slot. */
  unclaimed: WranglerReference[];
}

/** The template a group goes to, or undefined; the templates that claim it by `binding`. */
function templateFor(
  templates: readonly { binding?: string | undefined }[],
  group: readonly WranglerReference[],
  implicitAllowed: boolean,
): { template: number | undefined; claiming: number[] } {
  const named = names(group);
  const claiming = templates.flatMap((template, index) =>
    template.binding !== undefined && named.includes(template.binding) ? [index] : [],
  );
  const [only] = templates;
  const implicit = implicitAllowed && templates.length === 1 && only?.binding === undefined ? 0 : undefined;
  return {
    template: claiming.length === 1 ? claiming[0] : claiming.length === 0 ? implicit : undefined,
    claiming,
  };
}

function placeKind(kind: SomeKind, config: SlotConfig, app: AppWranglerConfig): KindPlacement {
  const found: KindPlacement = { placed: [], problems: [], unclaimed: [] };
  const reading = kind.wrangler.read(app.top);
  found.problems.push(...reading.problems.map((problem) => `${app.file} ${problem}`));
  const templates: readonly { binding?: string | undefined }[] = config.resources[kind.key];
  const groups = groupsOf(reading.references);
  // A group that need not be claimed (a service binding to another Worker) makes no template's
  // claim ambiguous: only the others count for the one-template rule.
  const required = groups.filter((group) => !group.every((reference) => reference.optional));
  const claimed = new Set<number>();
  for (const group of groups) {
    const optional = !required.includes(group);
    const { template, claiming } = templateFor(templates, group, required.length === 1 && !optional);
    if (claiming.length > 1)
      found.problems.push(
        `${group.map((reference) => reference.label).join(', ')} is claimed by ${claiming.map((index) => `resources.${kind.key}[${index}]`).join(' and ')} of ${config.file}; give each template a binding of its own`,
      );
    else if (template !== undefined) {
      claimed.add(template);
      for (const reference of group) found.placed.push({ kind, template, reference });
    } else if (optional) found.unclaimed.push(...group);
    else found.problems.push(unplaced(kind, group, config, app));
  }
  templates.forEach((template, index) => {
    if (template.binding === undefined || claimed.has(index)) return;
    const known = groups.flatMap(names);
    found.problems.push(
      `${config.file} resources.${kind.key}[${index}].binding: '${template.binding}' (for '${nameOf(kind, template)}') names nothing in ${app.file}${known.length > 0 ? `, whose ${kind.noun} references are named ${known.join(', ')}` : `, which has no ${kind.noun}`}; fix the binding or remove it`,
    );
  });
  return found;
}

/** Places every reference of `app` at a template of `config`, or refuses the config, naming every problem. */
export function placeBindings(config: SlotConfig, app: AppWranglerConfig): WranglerPlacement {
  const kinds = KIND_LIST.map((kind) => placeKind(kind, config, app));
  const problems = kinds.flatMap((kind) => kind.problems);
  const containerClasses = containerClassesOf(app.file, app.top, problems);
  const outside = readOutsideBindings(
    app,
    config,
    kinds.flatMap((kind) => kind.unclaimed),
  );
  problems.push(...outside.problems, ...keptSettingsProblems(app));
  if (problems.length > 0) throw new WranglerConfigError(app.file, problems);
  return {
    app,
    placed: kinds.flatMap((kind) => kind.placed),
    deploy: config.deploy,
    shared: outside.shared,
    containerClasses,
  };
}
