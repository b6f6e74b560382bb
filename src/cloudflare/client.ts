// The Cloudflare account as every kind's API calls see it: one paced, validated call at a time. The
// official SDK builds the requests (its own retries off, docs/design.md#pacing); the envelope is read
// and checked in answer.ts. Each kind's `api.ts` (src/kinds/<kind>/) asks for an SDK client with just
// the resources it calls (`sdk()`, the SDK's tree-shakable client and its `Base…` classes without
// sub-resources): the whole SDK would be most of the bundle.
import type { ClientOptions } from 'cloudflare/client';
import type { APIResource } from 'cloudflare/core/resource';
import { createClient } from 'cloudflare/tree-shakable';
import * as z from '../zod.ts';
import { readAnswer, type SdkRequestOptions } from './answer.ts';
import type { Pacer } from './pacer.ts';

export type { SdkRequestOptions } from './answer.ts';

export interface CloudflareApiOptions {
  apiToken: string;
  accountId: string;
  /** e.g. https://api.cloudflare.com/client/v4 */
  baseUrl: string;
  pacer: Pacer;
  fetch?: typeof fetch;
}

const pageInfoSchema = z
  .looseObject({
    per_page: z.number().nullish(),
    total_pages: z.number().nullish(),
    total_count: z.number().nullish(),
  })
  .nullish();

/** A listing longer than this many pages is not believed (it would be a runaway loop). */
export const MAX_PAGES = 1000;

type ResourceList = readonly (typeof APIResource)[];
type SdkClient<T extends ResourceList> = ReturnType<typeof createClient<T>>;

export class CloudflareApi {
  readonly accountId: string;
  readonly pacer: Pacer;
  private readonly options: ClientOptions;
  private readonly clients = new Map<ResourceList, unknown>();

  constructor(options: CloudflareApiOptions) {
    this.accountId = options.accountId;
    this.pacer = options.pacer;
    this.options = {
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
    };
  }

  /**
   * The SDK's client with just `resources`, made once per run for each list: a kind keeps its list in
   * a module constant, so every call of the kind shares one client.
   */
  sdk<const T extends ResourceList>(resources: T): SdkClient<T> {
    let client = this.clients.get(resources) as SdkClient<T> | undefined;
    if (client === undefined) {
      client = createClient({ ...this.options, resources });
      this.clients.set(resources, client);
    }
    return client;
  }

  /** One paced call: `request` builds the SDK request, the answer is checked against the schemas. */
  send<R, I = undefined>(
    kind: string,
    request: (options: SdkRequestOptions) => PromiseLike<Response>,
    resultSchema: z.ZodType<R>,
    infoSchema?: z.ZodType<I>,
  ) {
    return this.pacer.call(kind, (context) => readAnswer(kind, context, request, resultSchema, infoSchema));
  }

  /**
   * Every item of a page-numbered listing, one paced request per page. `within` names the field of
   * `result` that holds the page's items, for a listing whose result is an object (`{ items }`).
   */
  async allPages<T>(
    kind: string,
    request: (page: number, options: SdkRequestOptions) => PromiseLike<Response>,
    itemSchema: z.ZodType<T>,
    within?: string,
  ): Promise<T[]> {
    const listSchema = z.array(itemSchema);
    const resultSchema: z.ZodType<T[]> =
      within === undefined
        ? listSchema
        : z.looseObject({ [within]: listSchema }).transform((answer) => answer[within] as T[]);
    const items: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const { result, info } = await this.send(
        kind,
        (options) => request(page, options),
        resultSchema,
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

  /**
   * Every item of a listing that hands out a continuation (a cursor, a page token), one paced
   * request per page: `page` reads one page's items and the next continuation, '' or undefined at the end.
   */
  async allContinued<T>(
    page: (continuation: string | undefined) => Promise<{ items: T[]; next: string | undefined }>,
  ): Promise<T[]> {
    const items: T[] = [];
    let continuation: string | undefined;
    for (let count = 1; count <= MAX_PAGES; count++) {
      const { items: more, next } = await page(continuation);
      items.push(...more);
      continuation = next || undefined;
      if (continuation === undefined || more.length === 0) break;
    }
    return items;
  }
}
