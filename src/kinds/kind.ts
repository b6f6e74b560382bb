// What preview-gc knows about one kind of resource, in one place: its part of the slot config, how its
// names are found in the account, how a slot's resource of it is erased, and the token permission all
// of that needs. src/kinds/registry.ts lists the kinds; docs/kinds.md says how to add one.

import type { NameResolver } from '../cloudflare/resolver.ts';
import type * as z from '../zod.ts';
import type { Inventory, InventoryContext } from './inventory.ts';
import type { EraseContext, StepDetails, StepOutcome } from './step.ts';
import type { KindWrangler } from './wrangler-binding.ts';

/** Where a resource of a slot came from, so a failure can name its template. */
export interface Origin {
  template: string;
  /** Path of the template in the config, e.g. `resources.d1[0].name`. */
  path: string;
}

/** The API token permission a kind needs, as the README's table shows it. */
export interface KindPermission {
  /** What the resources are called in a sentence: "D1 databases". */
  resources: string;
  /** As the dashboard offers it when a token is created: "D1: Edit". */
  dashboard: string;
  /** The permission group's name in the API and its docs' "Accepted Permissions": "D1 Write". */
  apiName: string;
  /** What preview-gc does with it. */
  use: string;
}

/** A permission a kind needs only for some of its resources. */
export interface ConditionalPermission extends KindPermission {
  /** Its own name in the permission table and in messages, e.g. `containers`. */
  kind: string;
  /** When it is needed: "a slot's Worker has Durable Object classes". */
  onlyWhen: string;
}

/**
 * One kind of resource, as the slot config, the permission tables and the messages know it (its
 * folder's `kind.ts`). What it does at Cloudflare is its KindOperations (its folder's
 * `operations.ts`, listed in src/kinds/operations.ts), loaded on a run's first call: they bring the
 * SDK's resources, which a quiet sweep never loads. `Template` is one parsed entry of the config's
 * list; a slot's resource is that entry with its name expanded, plus its origin.
 */
export interface ResourceKind<
  Key extends string,
  Step extends string,
  NameKey extends string,
  Entry extends z.ZodType,
  Template extends Record<NameKey, string>,
> {
  /** The key under `resources:` in the slot config, and in a slot's resources. */
  key: Key;
  /** The kind of its erase step in reports ('compute' for Workers: the step parks the Worker). */
  step: Step;
  /** The key of an entry that holds the name template. */
  nameKey: NameKey;
  /** What one resource is called in a sentence: "D1 database". */
  noun: string;
  /** The schema of one entry of the config's list. */
  entry: Entry;
  /** What a person should write, by path below `resources.<key>`: '' (the list), '[]', '[].name'. */
  examples: Record<string, string>;
  /** One parsed entry as the rest of preview-gc uses it (camelCase keys, seconds). */
  template(entry: z.output<Entry>): Template;
  permission: KindPermission;
  /** What `preview-gc slots provision` does with the same permission: creates the missing resources. */
  provisionUse: string;
  /** Permissions only some slots of the kind need, each saying when (the Workers' container applications). */
  conditionalPermissions?: readonly ConditionalPermission[];
  /** What the resource is called in a message: "R2 bucket (jurisdiction eu)"; the noun by default. */
  describe?(resource: Template & Origin): string;
  /**
   * Its inventory may say 'expiring' of a slot released clean: what is left goes by itself, later (an
   * R2 bucket's objects, removed by the lifecycle rule). acquire reads it again when it hands the slot
   * over, so the next tenant is told what is still there and until when.
   */
  readAtHandOver?: true;
  /** How the kind's resources show in an app's wrangler config, and how acquire points them at a slot's. */
  wrangler: KindWrangler<Template & Origin>;
}

/**
 * What a kind does at Cloudflare. `Found` is what the account's listing says of a name (an id, a
 * summary), handed to the erase step; `Details` is what the step records of what it did;
 * `Handover` what the step hands its inventory (its last reads).
 */
export interface KindOperations<
  Template extends object,
  Found = unknown,
  Details extends StepDetails = StepDetails,
  Handover = unknown,
> {
  /**
   * The listing the credential check makes for the templates of this kind (the one the erase reuses,
   * see NameResolver): it throws when Cloudflare refuses the token.
   */
  probe(resolver: NameResolver, templates: readonly Template[]): Promise<unknown>;
  /** Looks the resource up in the run's listing: what the erase needs of it, or undefined when it is not there. */
  find(resolver: NameResolver, resource: Template & Origin): Promise<Found | undefined>;
  /**
   * The id a deploy binds the resource by, from what `find` found: a D1 database's uuid, a KV
   * namespace's id. Absent for a kind whose resources are bound by name alone (R2 buckets, Workers).
   */
  idOf?(resource: Template & Origin, found: Found): string;
  /**
   * Whether a Worker's binding, as the Worker's settings answer it, names this resource. The binding
   * guard never erases a store that a Worker other than the slot's own binds (it may be production's).
   * Absent for a kind no Worker binds as a store (Workers).
   */
  bindsIt?(binding: WorkerBinding, resource: Template & Origin, found: Found): boolean;
  /**
   * Erases what the slot's resource holds; with `context.dryRun` it reads and says what it would do.
   * The step's summary is the line the job summary and the terminal show.
   */
  erase(
    context: EraseContext,
    resource: Template & Origin,
    found: Found,
  ): Promise<StepOutcome<Details, Handover>>;
  /**
   * Creates the resource (`preview-gc slots provision`, for one the listing says is missing), as the
   * slot config describes it; never called for one that exists.
   */
  create(context: EraseContext, resource: Template & Origin): Promise<void>;
  /** What a failed step had done before it stopped ("deleted 1,204 keys"), read from its details. */
  doneBefore?(details: Details): string | undefined;
  /**
   * What is left of the resource, read back by the kind's inventory (code that shares nothing with
   * its erase): the slot is released clean only when every resource's inventory says empty or
   * expiring. A step whose last request already carried the inventory's reads (D1's batch) returns
   * it in its outcome instead, and this is not called for it. `handover` is what the step handed
   * over (its outcome's), undefined when it handed nothing.
   */
  inventory?(
    context: InventoryContext,
    resource: Template & Origin,
    found: Found,
    handover: Handover | undefined,
  ): Promise<Inventory>;
}

/** A binding of a Worker's settings: its `type`, its `name` and the fields of its kind, as the API answers them. */
export type WorkerBinding = { type: string } & Record<string, unknown>;

/** A kind, its types kept, checked against ResourceKind. */
export function defineKind<
  const Key extends string,
  const Step extends string,
  const NameKey extends string,
  Entry extends z.ZodType,
  Template extends Record<NameKey, string>,
>(
  kind: ResourceKind<Key, Step, NameKey, Entry, Template>,
): ResourceKind<Key, Step, NameKey, Entry, Template> {
  return kind;
}

/** A kind's operations, their types kept: `defineOperations<D1Template>()({ probe, find, erase })`. */
export function defineOperations<Template extends object>() {
  return <Found, Details extends StepDetails, Handover = unknown>(
    operations: KindOperations<Template, Found, Details, Handover>,
  ): KindOperations<Template, Found, Details, Handover> => operations;
}
