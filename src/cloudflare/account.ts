// The Cloudflare account as preview-gc sees it: the few calls an erase needs, each one paced, counted
// by kind and validated. The official SDK builds the requests (its own retries off); the Worker
// upload is a hand-built FormData sent with the raw `put`, because the SDK's upload is broken in
// 7.x (docs/cloudflare.md#the-sdks-worker-upload-is-broken-in-7x). The client carries only the resources below (the SDK's tree-shakable
// client and the `Base…` classes without sub-resources): the whole SDK would be most of the bundle.
// biome-ignore lint/style/noRestrictedImports: types only (the rule's parameter types), erased from the bundle.
import type Cloudflare from 'cloudflare';
import type { ClientOptions } from 'cloudflare/client';
import { BaseAccounts } from 'cloudflare/resources/accounts/accounts';
import { BaseTokens as BaseAccountTokens } from 'cloudflare/resources/accounts/tokens/tokens';
import { BaseApplications } from 'cloudflare/resources/containers/applications/applications';
import { BaseDatabase } from 'cloudflare/resources/d1/database/database';
import { BaseNamespaces as BaseDurableObjectNamespaces } from 'cloudflare/resources/durable-objects/namespaces/namespaces';
import { BaseKeys } from 'cloudflare/resources/kv/namespaces/keys';
import { BaseNamespaces as BaseKvNamespaces } from 'cloudflare/resources/kv/namespaces/namespaces';
import { BasePurge } from 'cloudflare/resources/queues/purge';
import { BaseQueues } from 'cloudflare/resources/queues/queues';
import { BaseBuckets } from 'cloudflare/resources/r2/buckets/buckets';
import { BaseLifecycle } from 'cloudflare/resources/r2/buckets/lifecycle';
import { BaseTokens as BaseUserTokens } from 'cloudflare/resources/user/tokens/tokens';
import { BaseIndexes } from 'cloudflare/resources/vectorize/indexes/indexes';
import { BaseWorkers as BaseBetaWorkers } from 'cloudflare/resources/workers/beta/workers/workers';
import { BaseContent } from 'cloudflare/resources/workers/scripts/content';
import { BaseScriptAndVersionSettings } from 'cloudflare/resources/workers/scripts/script-and-version-settings';
import { BaseScripts } from 'cloudflare/resources/workers/scripts/scripts';
import { createClient } from 'cloudflare/tree-shakable';
import type { R2Jurisdiction } from '../config/slot-config.ts';
import * as z from '../zod.ts';
import { readAnswer, type SdkRequestOptions, toCallError, withAttemptSignal } from './answer.ts';
import type { Pacer } from './pacer.ts';
import { modulesOf, readCapped, type WorkerModuleText } from './worker-content.ts';

export interface CloudflareAccountOptions {
  apiToken: string;
  accountId: string;
  /** e.g. https://api.cloudflare.com/client/v4 */
  baseUrl: string;
  pacer: Pacer;
  fetch?: typeof fetch;
}

export interface D1Statement {
  sql: string;
  params?: string[];
}
export interface D1StatementResult {
  results: Record<string, unknown>[];
  changes: number;
}

const lifecycleRuleSchema = z.looseObject({
  id: z.string(),
  enabled: z.boolean(),
  conditions: z.looseObject({ prefix: z.string().optional() }).optional(),
});
/** A lifecycle rule as the API returns it; fields preview-gc does not manage are kept as they are. */
export type LifecycleRule = z.infer<typeof lifecycleRuleSchema>;

const workerExportSchema = z.looseObject({ type: z.string(), storage: z.string().optional() });
const workerScriptSchema = z.looseObject({
  id: z.string(),
  migration_tag: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  exports: z.record(z.string(), workerExportSchema).nullish(),
});
export interface WorkerScriptSummary {
  name: string;
  migrationTag: string | undefined;
  tags: string[];
  /** Live declarative exports; undefined when the script uses legacy migrations. */
  exports: Record<string, { type: string; storage?: string | undefined }> | undefined;
}

const doNamespaceSchema = z.looseObject({
  id: z.string(),
  class: z.string().nullish(),
  script: z.string().nullish(),
  use_sqlite: z.boolean().nullish(),
  // A Worker preview's namespace: `script` is the parent Worker's name (wrangler's containers/deploy.ts).
  preview: z.looseObject({ id: z.string() }).nullish(),
});
export interface DurableObjectNamespace {
  id: string;
  className: string;
  script: string;
  sqlite: boolean;
  /** The namespace belongs to a preview of the Worker `script`, not to the Worker itself. */
  preview: boolean;
}

const containerAppSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  durable_objects: z.looseObject({ namespace_id: z.string() }).nullish(),
});
export interface ContainerApplication {
  id: string;
  name: string;
  namespaceId: string | undefined;
}

const pageInfoSchema = z
  .looseObject({
    per_page: z.number().nullish(),
    total_pages: z.number().nullish(),
    total_count: z.number().nullish(),
  })
  .nullish();
const cursorInfoSchema = z.looseObject({ cursor: z.string().nullish() }).nullish();
const tokenInfoSchema = z.looseObject({ next_page_token: z.string().nullish() }).nullish();

// Sources disagree on the field that says a purge finished (docs/cloudflare.md#queues): both are read.
const queuePurgeStatusSchema = z
  .looseObject({
    started_at: z.string().nullish(),
    completed: z.union([z.string(), z.boolean()]).nullish(),
    complete: z.boolean().nullish(),
  })
  .nullish();
export type QueuePurgeStatus = NonNullable<z.infer<typeof queuePurgeStatusSchema>>;
const tokenStatusSchema = z.looseObject({ status: z.string() });

/** A page-numbered listing longer than this is not believed (it would be a runaway loop). */
const MAX_PAGES = 1000;

export interface WorkerModuleFile {
  name: string;
  content: string;
  type: string;
}

/**
 * Upload metadata: the SDK's, plus `containers`, which the SDK's type lacks but the API reads (its
 * `exports` entries name containers "declared in the upload's metadata.containers"), in the shape
 * wrangler sends (deploy-helpers create-worker-upload-form.ts).
 */
export type WorkerUploadMetadata = Cloudflare.Workers.Scripts.ScriptUpdateParams.Metadata & {
  containers?: { name?: string; class_name?: string }[];
};

const doBindingSchema = z.looseObject({
  type: z.literal('durable_object_namespace'),
  name: z.string(),
  class_name: z.string(),
  script_name: z.string().optional(),
});
export interface DurableObjectBinding {
  name: string;
  className: string;
  /** The Worker implementing the class; undefined: the bound Worker itself. */
  script: string | undefined;
}

/** The header that asks R2 to refuse a write a bucket's Data Catalog could not follow (wrangler sends it). */
const DATA_CATALOG_CHECK = 'cf-r2-data-catalog-check';

export class CloudflareAccount {
  readonly accountId: string;
  readonly pacer: Pacer;
  private readonly client: ReturnType<typeof createAccountClient>;

  constructor(options: CloudflareAccountOptions) {
    this.accountId = options.accountId;
    this.pacer = options.pacer;
    this.client = createAccountClient({
      apiToken: options.apiToken,
      // Explicit nulls: the SDK would otherwise pick up CLOUDFLARE_API_KEY & co. from the environment.
      apiKey: null,
      apiEmail: null,
      userServiceKey: null,
      baseURL: options.baseUrl,
      maxRetries: 0,
      timeout: options.pacer.timeoutMs,
      logLevel: 'off',
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  /** One paced call: `request` builds the SDK request, the answer is checked against the schemas. */
  private send<R, I = undefined>(
    kind: string,
    request: (options: SdkRequestOptions) => PromiseLike<Response>,
    resultSchema: z.ZodType<R>,
    infoSchema?: z.ZodType<I>,
  ) {
    return this.pacer.call(kind, (context) => readAnswer(kind, context, request, resultSchema, infoSchema));
  }

  /** Every item of a page-numbered listing, one paced request per page. */
  private async allPages<T>(
    kind: string,
    request: (page: number, options: SdkRequestOptions) => PromiseLike<Response>,
    itemSchema: z.ZodType<T>,
  ): Promise<T[]> {
    const items: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { result, info } = await this.send(
        kind,
        (options) => request(page, options),
        z.array(itemSchema),
        pageInfoSchema,
      );
      items.push(...result);
      const totalPages = info?.total_pages ?? undefined;
      const totalCount = info?.total_count ?? undefined;
      // Listings without totals (the DO namespaces) end on a page shorter than the page size the
      // answer says it used.
      const perPage = info?.per_page ?? undefined;
      const done =
        result.length === 0 ||
        (totalPages !== undefined && page >= totalPages) ||
        (totalCount !== undefined && items.length >= totalCount) ||
        (perPage !== undefined && result.length < perPage);
      if (done) return items;
    }
    return items;
  }

  /** The status of the token as a user's token: `active`, `disabled`, `expired`. A token of an account is refused here. */
  async verifyUserToken(): Promise<string> {
    const { result } = await this.send(
      'tokens.verify',
      (options) => this.client.user.tokens.verify(options).asResponse(),
      tokenStatusSchema,
    );
    return result.status;
  }

  /** The status of the token as a token owned by this account. */
  async verifyAccountToken(): Promise<string> {
    const { result } = await this.send(
      'tokens.verify',
      (options) => this.client.accounts.tokens.verify({ account_id: this.accountId }, options).asResponse(),
      tokenStatusSchema,
    );
    return result.status;
  }

  /** Reads the account itself: refused when the token may not use the account at all. */
  async readAccount(): Promise<void> {
    await this.send(
      'accounts.get',
      (options) => this.client.accounts.get({ account_id: this.accountId }, options).asResponse(),
      z.looseObject({ id: z.string() }),
    );
  }

  listD1Databases(): Promise<{ uuid: string; name: string }[]> {
    return this.allPages(
      'd1.list',
      (page, options) =>
        this.client.d1.database
          .list({ account_id: this.accountId, page, per_page: 1000 }, options)
          .asResponse(),
      z.looseObject({ uuid: z.string(), name: z.string() }),
    );
  }

  /** Runs the statements as one request (one implicit transaction); one result per statement. */
  async queryD1(databaseId: string, statements: D1Statement[]): Promise<D1StatementResult[]> {
    const [only] = statements;
    const body = statements.length === 1 && only ? only : { batch: statements };
    const { result } = await this.send(
      'd1.query',
      (options) =>
        this.client.d1.database
          .query(databaseId, { account_id: this.accountId, ...body }, options)
          .asResponse(),
      z
        .array(
          z.looseObject({
            success: z.boolean().optional(),
            results: z.array(z.record(z.string(), z.unknown())).nullish(),
            meta: z.looseObject({ changes: z.number().optional() }).nullish(),
          }),
        )
        .length(statements.length, `one result per statement (${statements.length})`),
    );
    return result.map((entry) => ({ results: entry.results ?? [], changes: entry.meta?.changes ?? 0 }));
  }

  listKvNamespaces(): Promise<{ id: string; title: string }[]> {
    return this.allPages(
      'kv.namespaces.list',
      (page, options) =>
        this.client.kv.namespaces
          .list({ account_id: this.accountId, page, per_page: 1000 }, options)
          .asResponse(),
      z.looseObject({ id: z.string(), title: z.string() }),
    );
  }

  /** One page of at most 1,000 key names; `cursor` '' means this was the last page. */
  async listKvKeys(
    namespaceId: string,
    cursor: string | undefined,
  ): Promise<{ names: string[]; cursor: string }> {
    const { result, info } = await this.send(
      'kv.keys.list',
      (options) =>
        this.client.kv.namespaces.keys
          .list(
            namespaceId,
            { account_id: this.accountId, limit: 1000, ...(cursor ? { cursor } : {}) },
            options,
          )
          .asResponse(),
      z.array(z.looseObject({ name: z.string() })),
      cursorInfoSchema,
    );
    return { names: result.map((key) => key.name), cursor: info?.cursor ?? '' };
  }

  /** Deletes up to 10,000 keys; returns the keys Cloudflare says it could not delete. */
  async bulkDeleteKvKeys(namespaceId: string, names: string[]): Promise<{ unsuccessful: string[] }> {
    const { result } = await this.send(
      'kv.bulkDelete',
      (options) =>
        this.client.kv.namespaces
          .bulkDelete(namespaceId, { account_id: this.accountId, body: names }, options)
          .asResponse(),
      // Older API versions answer null or {} (docs/cloudflare.md#kv-bulk-delete).
      z.looseObject({ unsuccessful_keys: z.array(z.string()).nullish() }).nullish(),
    );
    return { unsuccessful: result?.unsuccessful_keys ?? [] };
  }

  /** Names of every bucket in one jurisdiction. */
  async listR2Buckets(jurisdiction: R2Jurisdiction): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { result, info } = await this.send(
        'r2.buckets.list',
        (options) =>
          this.client.r2.buckets
            .list(
              {
                account_id: this.accountId,
                per_page: 1000,
                ...(cursor ? { cursor } : {}),
                ...jurisdictionHeader(jurisdiction),
              },
              options,
            )
            .asResponse(),
        z.looseObject({ buckets: z.array(z.looseObject({ name: z.string() })).nullish() }),
        cursorInfoSchema,
      );
      const buckets = result.buckets ?? [];
      names.push(...buckets.map((bucket) => bucket.name));
      cursor = info?.cursor ?? undefined;
      if (!cursor || buckets.length === 0) break;
    }
    return names;
  }

  async getR2Lifecycle(bucket: string, jurisdiction: R2Jurisdiction): Promise<LifecycleRule[]> {
    const { result } = await this.send(
      'r2.lifecycle.get',
      (options) =>
        this.client.r2.buckets.lifecycle
          .get(bucket, { account_id: this.accountId, ...jurisdictionHeader(jurisdiction) }, options)
          .asResponse(),
      z.looseObject({ rules: z.array(lifecycleRuleSchema).nullish() }),
    );
    return result.rules ?? [];
  }

  /**
   * Replaces every rule of the bucket (a PUT replaces the whole set). Like wrangler without
   * `--force`, it asks for R2 Data Catalog's check: a bucket with the catalog enabled answers 409
   * code 10081 instead of taking rules that could leave the catalog invalid.
   */
  async putR2Lifecycle(bucket: string, jurisdiction: R2Jurisdiction, rules: LifecycleRule[]): Promise<void> {
    await this.send(
      'r2.lifecycle.put',
      (options) =>
        this.client.r2.buckets.lifecycle
          .update(
            bucket,
            {
              account_id: this.accountId,
              ...jurisdictionHeader(jurisdiction),
              rules: rules as Cloudflare.R2.Buckets.LifecycleUpdateParams.Rule[],
            },
            { ...options, headers: { [DATA_CATALOG_CHECK]: 'true' } },
          )
          .asResponse(),
      z.unknown(),
    );
  }

  listWorkerScripts(): Promise<WorkerScriptSummary[]> {
    return this.send(
      'workers.list',
      (options) => this.client.workers.scripts.list({ account_id: this.accountId }, options).asResponse(),
      z.array(workerScriptSchema),
    ).then(({ result }) =>
      result.map((script) => ({
        name: script.id,
        migrationTag: script.migration_tag ?? undefined,
        tags: script.tags ?? [],
        exports: script.exports ?? undefined,
      })),
    );
  }

  async listDurableObjectNamespaces(): Promise<DurableObjectNamespace[]> {
    const namespaces = await this.allPages(
      'do.namespaces.list',
      (page, options) =>
        this.client.durableObjects.namespaces
          .list({ account_id: this.accountId, page, per_page: 1000 }, options)
          .asResponse(),
      doNamespaceSchema,
    );
    return namespaces.map((namespace) => ({
      id: namespace.id,
      className: namespace.class ?? '',
      script: namespace.script ?? '',
      sqlite: namespace.use_sqlite ?? false,
      preview: namespace.preview != null,
    }));
  }

  async listContainerApplications(): Promise<ContainerApplication[]> {
    const applications: ContainerApplication[] = [];
    let token: string | undefined;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { result, info } = await this.send(
        'containers.list',
        (options) =>
          this.client.containers.applications
            .list(
              { account_id: this.accountId, per_page: 100, ...(token ? { page_token: token } : {}) },
              options,
            )
            .asResponse(),
        z.array(containerAppSchema),
        tokenInfoSchema,
      );
      applications.push(
        ...result.map((app) => ({
          id: app.id,
          name: app.name,
          namespaceId: app.durable_objects?.namespace_id,
        })),
      );
      token = info?.next_page_token ?? undefined;
      if (!token || result.length === 0) break;
    }
    return applications;
  }

  /**
   * The Worker's deployed code (`content/v2`: one part per module), or 'too-large' when it is over
   * `maxBytes`: a caller comparing it with a small known script needs no more to know it differs.
   */
  async getWorkerContent(name: string, maxBytes: number): Promise<WorkerModuleText[] | 'too-large'> {
    return this.pacer.call('workers.content', (context) =>
      withAttemptSignal(context, async (signal, timedOut) => {
        try {
          const response = await this.client.workers.scripts.content
            .get(name, { account_id: this.accountId }, { maxRetries: 0, timeout: context.timeoutMs, signal })
            .asResponse();
          const body = await readCapped(response, maxBytes);
          if (body === 'too-large') return body;
          return await modulesOf(response.headers.get('content-type') ?? '', body);
        } catch (error) {
          throw toCallError('workers.content', error, context, timedOut());
        }
      }),
    );
  }

  /** The Workers of the account bound to one of this Worker's Durable Object namespaces. */
  async durableObjectReferences(name: string): Promise<{ namespaceId: string; worker: string }[]> {
    const { result } = await this.send(
      'workers.get',
      (options) =>
        this.client.workers.beta.workers.get(name, { account_id: this.accountId }, options).asResponse(),
      z.looseObject({
        references: z
          .looseObject({
            durable_objects: z
              .array(z.looseObject({ namespace_id: z.string(), worker_name: z.string() }))
              .nullish(),
          })
          .nullish(),
      }),
    );
    return (result.references?.durable_objects ?? []).map((reference) => ({
      namespaceId: reference.namespace_id,
      worker: reference.worker_name,
    }));
  }

  /** The Durable Object bindings of a Worker's live version (its settings). */
  async durableObjectBindings(name: string): Promise<DurableObjectBinding[]> {
    const { result } = await this.send(
      'workers.settings',
      (options) =>
        this.client.workers.scripts.scriptAndVersionSettings
          .get(name, { account_id: this.accountId }, options)
          .asResponse(),
      z.looseObject({ bindings: z.array(z.looseObject({ type: z.string() })).nullish() }),
    );
    return (result.bindings ?? []).flatMap((binding) => {
      const parsed = doBindingSchema.safeParse(binding);
      if (!parsed.success) return [];
      return [{ name: parsed.data.name, className: parsed.data.class_name, script: parsed.data.script_name }];
    });
  }

  /** Uploads a whole Worker: one JSON `metadata` part and one part per module. */
  async uploadWorker(
    name: string,
    metadata: WorkerUploadMetadata,
    modules: WorkerModuleFile[],
  ): Promise<void> {
    await this.send(
      'workers.upload',
      (options) => {
        // A fresh form per attempt: a body stream cannot be sent twice.
        const form = new FormData();
        form.set(
          'metadata',
          new Blob([JSON.stringify(metadata)], { type: 'application/json' }),
          'metadata.json',
        );
        for (const module of modules)
          form.set(module.name, new File([module.content], module.name, { type: module.type }));
        return this.client
          .put(`/accounts/${this.accountId}/workers/scripts/${encodeURIComponent(name)}`, {
            body: form,
            ...options,
          })
          .asResponse();
      },
      z.looseObject({}),
    );
  }

  /** Every queue of the account (page numbers; the API picks the page size). */
  listQueues(): Promise<{ queue_id: string; queue_name: string }[]> {
    return this.allPages(
      'queues.list',
      (page, options) =>
        this.client.queues.list({ account_id: this.accountId }, { ...options, query: { page } }).asResponse(),
      z.looseObject({ queue_id: z.string(), queue_name: z.string() }),
    );
  }

  /** Starts a purge of every message of the queue; the answer is not relied on (docs/cloudflare.md#queues). */
  async startQueuePurge(queueId: string): Promise<void> {
    await this.send(
      'queues.purge',
      (options) =>
        this.client.queues.purge
          .start(queueId, { account_id: this.accountId, delete_messages_permanently: true }, options)
          .asResponse(),
      z.unknown(),
    );
  }

  /** The queue's last purge as the API describes it; erase-queues.ts reads whether it finished. */
  async queuePurgeStatus(queueId: string): Promise<QueuePurgeStatus> {
    const { result } = await this.send(
      'queues.purge.status',
      (options) =>
        this.client.queues.purge.status(queueId, { account_id: this.accountId }, options).asResponse(),
      queuePurgeStatusSchema,
    );
    return result ?? {};
  }

  /** How many messages wait in the queue, by the API's best-effort metrics (for a dry run's estimate). */
  async queueBacklog(queueId: string): Promise<number> {
    const { result } = await this.send(
      'queues.metrics',
      (options) =>
        this.client.queues.getMetrics(queueId, { account_id: this.accountId }, options).asResponse(),
      z.looseObject({ backlog_count: z.number() }),
    );
    return result.backlog_count;
  }

  /** Names of every Vectorize (v2) index; follows `result_info.cursor` if the API ever pages. */
  async listVectorizeIndexes(): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { result, info } = await this.send(
        'vectorize.indexes.list',
        (options) =>
          this.client.vectorize.indexes
            .list({ account_id: this.accountId }, { ...options, ...(cursor ? { query: { cursor } } : {}) })
            .asResponse(),
        z.array(z.looseObject({ name: z.string() })),
        cursorInfoSchema,
      );
      names.push(...result.map((index) => index.name));
      cursor = info?.cursor ?? undefined;
      if (!cursor || result.length === 0) break;
    }
    return names;
  }

  /** One page of at most 1,000 vector ids; `cursor` '' means this was the last page. */
  async listVectorIds(
    indexName: string,
    cursor: string | undefined,
  ): Promise<{ ids: string[]; cursor: string; totalCount: number }> {
    const { result } = await this.send(
      'vectorize.vectors.list',
      (options) =>
        this.client.vectorize.indexes
          .listVectors(
            indexName,
            { account_id: this.accountId, count: 1000, ...(cursor ? { cursor } : {}) },
            options,
          )
          .asResponse(),
      z.looseObject({
        vectors: z.array(z.looseObject({ id: z.string() })),
        isTruncated: z.boolean(),
        totalCount: z.number(),
        nextCursor: z.string().nullish(),
      }),
    );
    const next = result.isTruncated ? (result.nextCursor ?? '') : '';
    return { ids: result.vectors.map((vector) => vector.id), cursor: next, totalCount: result.totalCount };
  }

  /** Enqueues the deletion of these vectors; Vectorize applies it later (docs/cloudflare.md#vectorize). */
  async deleteVectorsByIds(indexName: string, ids: string[]): Promise<void> {
    await this.send(
      'vectorize.vectors.delete',
      (options) =>
        this.client.vectorize.indexes
          .deleteByIDs(indexName, { account_id: this.accountId, ids }, options)
          .asResponse(),
      z.looseObject({ mutationId: z.string().nullish() }).nullish(),
    );
  }

  /** How many vectors the index holds, as far as Vectorize has applied its mutations. */
  async vectorCount(indexName: string): Promise<number> {
    const { result } = await this.send(
      'vectorize.info',
      (options) =>
        this.client.vectorize.indexes.info(indexName, { account_id: this.accountId }, options).asResponse(),
      z.looseObject({ vectorCount: z.number() }),
    );
    return result.vectorCount;
  }
}

/** The SDK's client with just the resources the calls above use. */
function createAccountClient(options: ClientOptions) {
  return createClient({
    ...options,
    resources: [
      BaseDatabase,
      BaseKvNamespaces,
      BaseKeys,
      BaseBuckets,
      BaseLifecycle,
      BaseScripts,
      BaseContent,
      BaseScriptAndVersionSettings,
      BaseBetaWorkers,
      BaseDurableObjectNamespaces,
      BaseApplications,
      BaseQueues,
      BasePurge,
      BaseIndexes,
      BaseUserTokens,
      BaseAccounts,
      BaseAccountTokens,
    ],
  });
}

/** The default jurisdiction is the absence of the header. */
function jurisdictionHeader(jurisdiction: R2Jurisdiction): { 'cf-r2-jurisdiction'?: R2Jurisdiction } {
  return jurisdiction === 'default' ? {} : { 'cf-r2-jurisdiction': jurisdiction };
}
