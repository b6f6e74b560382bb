// Resource names become ids (and facts such as a Worker's migration tag) through one listing per
// kind per run, made only when first needed, so a sweep with nothing to erase makes no call. A
// failed listing is not cached: the next slot tries again (within the pacer's budget).
import type { R2Jurisdiction } from '../config/slot-config.ts';
import type {
  CloudflareAccount,
  ContainerApplication,
  DurableObjectNamespace,
  WorkerScriptSummary,
} from './account.ts';

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

  /** The uuid of the D1 database named `name`, or undefined. */
  async d1DatabaseId(name: string): Promise<string | undefined> {
    const databases = await this.once('d1', () => this.account.listD1Databases());
    return databases.find((database) => database.name === name)?.uuid;
  }

  /** The id of the KV namespace titled `title`, or undefined. */
  async kvNamespaceId(title: string): Promise<string | undefined> {
    const namespaces = await this.once('kv', () => this.account.listKvNamespaces());
    return namespaces.find((namespace) => namespace.title === title)?.id;
  }

  /** Whether bucket `name` exists in `jurisdiction` (buckets are addressed by name; one listing per jurisdiction). */
  async r2BucketExists(name: string, jurisdiction: R2Jurisdiction): Promise<boolean> {
    const names = await this.once(`r2:${jurisdiction}`, () => this.account.listR2Buckets(jurisdiction));
    return names.includes(name);
  }

  async workerScript(name: string): Promise<WorkerScriptSummary | undefined> {
    const scripts = await this.once('workers', () => this.account.listWorkerScripts());
    return scripts.find((script) => script.name === name);
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
}
