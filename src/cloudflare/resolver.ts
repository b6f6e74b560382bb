// Resource names become ids (and facts such as a Worker's migration tag) through one listing per
// kind per run, made only when first needed, so a sweep with nothing to erase makes no call. A
// failed listing is not cached: the next slot tries again (within the pacer's budget).
import type { R2Jurisdiction, SlotConfig } from '../config/slot-config.ts';
import type {
  CloudflareAccount,
  ContainerApplication,
  DurableObjectNamespace,
  WorkerScriptSummary,
} from './account.ts';
import type { CredentialProbe } from './credentials.ts';

export class NameResolver {
  private readonly account: CloudflareAccount;
  private readonly listings = new Map<string, Promise<unknown>>();

  constructor(account: CloudflareAccount) {
    this.account = account;
  }

  private once<T>(key: string, list: () => Promise<T>): Promise<T> {
    const cached = this.listings.get(key) as Promise<T> | undefined;
    if (cached) return cached;
    const listing = list();
    this.listings.set(key, listing);
    listing.catch(() => this.listings.delete(key));
    return listing;
  }

  // Each listing once per run; the credential check and the slot checks start them, the erase reuses them.
  workerScripts(): Promise<WorkerScriptSummary[]> {
    return this.once('workers', () => this.account.listWorkerScripts());
  }

  d1Databases(): Promise<{ uuid: string; name: string }[]> {
    return this.once('d1', () => this.account.listD1Databases());
  }

  kvNamespaces(): Promise<{ id: string; title: string }[]> {
    return this.once('kv', () => this.account.listKvNamespaces());
  }

  /** Names of the buckets in `jurisdiction` (buckets are addressed by name; one listing per jurisdiction). */
  r2Buckets(jurisdiction: R2Jurisdiction): Promise<string[]> {
    return this.once(`r2:${jurisdiction}`, () => this.account.listR2Buckets(jurisdiction));
  }

  /** The listings the credential check makes: one per kind the config names, the ones the erase needs. */
  probes(resources: SlotConfig['resources']): CredentialProbe[] {
    const jurisdictions = [...new Set(resources.r2.map((bucket) => bucket.jurisdiction))];
    const probes: (CredentialProbe | false)[] = [
      resources.workers.length > 0 && { kind: 'workers', list: () => this.workerScripts() },
      resources.d1.length > 0 && { kind: 'd1', list: () => this.d1Databases() },
      resources.kv.length > 0 && { kind: 'kv', list: () => this.kvNamespaces() },
      jurisdictions.length > 0 && {
        kind: 'r2',
        list: () => Promise.all(jurisdictions.map((jurisdiction) => this.r2Buckets(jurisdiction))),
      },
      resources.queues.length > 0 && { kind: 'queues', list: () => this.queues() },
      resources.vectorize.length > 0 && { kind: 'vectorize', list: () => this.vectorizeIndexes() },
    ];
    return probes.filter((probe) => probe !== false);
  }

  /** The uuid of the D1 database named `name`, or undefined. */
  async d1DatabaseId(name: string): Promise<string | undefined> {
    return (await this.d1Databases()).find((database) => database.name === name)?.uuid;
  }

  /** The id of the KV namespace titled `title`, or undefined. */
  async kvNamespaceId(title: string): Promise<string | undefined> {
    return (await this.kvNamespaces()).find((namespace) => namespace.title === title)?.id;
  }

  async r2BucketExists(name: string, jurisdiction: R2Jurisdiction): Promise<boolean> {
    return (await this.r2Buckets(jurisdiction)).includes(name);
  }

  async workerScript(name: string): Promise<WorkerScriptSummary | undefined> {
    return (await this.workerScripts()).find((script) => script.name === name);
  }

  /**
   * The Durable Object namespaces whose class the Worker `script` implements. The namespaces of the
   * Worker's previews carry its name too; they are not its classes (a preview-only class in
   * `deleted_classes` would fail the whole upload), so they are left out.
   */
  async durableObjectNamespaces(script: string): Promise<DurableObjectNamespace[]> {
    const namespaces = await this.once('durable-objects', () => this.account.listDurableObjectNamespaces());
    return namespaces.filter((namespace) => namespace.script === script && !namespace.preview);
  }

  async containerApplications(): Promise<ContainerApplication[]> {
    return this.once('containers', () => this.account.listContainerApplications());
  }

  /** The id of the queue named `name`, or undefined. */
  queues(): ReturnType<CloudflareAccount['listQueues']> {
    return this.once('queues', () => this.account.listQueues());
  }

  vectorizeIndexes(): ReturnType<CloudflareAccount['listVectorizeIndexes']> {
    return this.once('vectorize', () => this.account.listVectorizeIndexes());
  }

  async queueId(name: string): Promise<string | undefined> {
    const queues = await this.queues();
    return queues.find((queue) => queue.queue_name === name)?.queue_id;
  }

  /** Whether the Vectorize index `name` exists (indexes are addressed by name). */
  async vectorizeIndexExists(name: string): Promise<boolean> {
    const names = await this.vectorizeIndexes();
    return names.includes(name);
  }
}
