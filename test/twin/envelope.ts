// The Cloudflare v4 envelope, error helpers and the pagination styles (docs/cloudflare.md#the-envelope,
// docs/cloudflare.md#pagination). Every success body names its `result` type (`ok<T>` has no inferred
// default), taken from the `cloudflare` SDK's own response types wherever the SDK has one, so tsc
// refuses a field the API does not have.
import type {
  CursorPaginationResponse,
  PageTokenPaginationResponse,
  V4PagePaginationArrayResponse,
} from 'cloudflare/core/pagination';
import { HttpResponse } from 'msw';

/**
 * One entry of the envelope's `errors`. `meta` carries structured details on some routes (the
 * declarative exports reconciliation answers `meta.details`, one entry per class: wrangler's
 * deploy reads `errors[0].meta.details`).
 */
export interface ApiError {
  code: number;
  message: string;
  meta?: { details: ReconciliationErrorDetail[] };
}

/** One blocked class of an exports reconciliation error (wrangler's ExportsReconciliationErrorDetail). */
export interface ReconciliationErrorDetail {
  class: string;
  scenario: string;
  message: string;
  namespace_id?: string;
  suggestion?: string;
  referencing_scripts?: string[];
}

/**
 * page/per_page listings: the SDK's fields, plus `count` (the API's OpenAPI collection envelope has
 * it) and, where a listing has them, the totals.
 */
export type PageInfo = V4PagePaginationArrayResponse.ResultInfo & {
  count: number;
  total_count?: number;
  total_pages?: number;
};
export type CursorInfo = CursorPaginationResponse.ResultInfo;
/** Container applications: `page_token` pagination. */
export type PageTokenInfo = PageTokenPaginationResponse.ResultInfo;
export type ResultInfo = PageInfo | CursorInfo | PageTokenInfo;

/** A success envelope; `T` must be given (there is nothing to infer it from), so every answer is typed. */
export function ok<T = never>(result: NoInfer<T>, resultInfo?: ResultInfo, status = 200): Response {
  const body: Record<string, unknown> = { success: true, errors: [], messages: [], result };
  if (resultInfo) body.result_info = resultInfo;
  return HttpResponse.json(body, { status });
}

export function fail(
  status: number,
  code: number,
  message: string,
  headers?: HeadersInit,
  meta?: ApiError['meta'],
): Response {
  const error: ApiError = meta ? { code, message, meta } : { code, message };
  return HttpResponse.json(
    { success: false, errors: [error], messages: [], result: null },
    { status, headers },
  );
}

/** Thrown by route code to answer with an error envelope; the gate turns it into a response. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: number;
  readonly meta: ApiError['meta'];
  constructor(status: number, code: number, message: string, meta?: ApiError['meta']) {
    super(message);
    this.status = status;
    this.code = code;
    this.meta = meta;
  }
}

export function notFound(code: number, message: string): ApiFailure {
  return new ApiFailure(404, code, message);
}

export function badRequest(code: number, message: string): ApiFailure {
  return new ApiFailure(400, code, message);
}

function intParam(url: URL, name: string, fallback: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw badRequest(7400, `${name} must be an integer, got "${raw}"`);
  return value;
}

/**
 * page/per_page pagination: an empty array past the last page, so `for await` loops end. `totals`
 * adds total_count and total_pages, which only some listings have (not the DO namespaces listing).
 */
export function pageOf<T>(
  items: T[],
  url: URL,
  limits: { defaultPerPage: number; maxPerPage: number; totals: boolean },
): { result: T[]; resultInfo: PageInfo } {
  const page = Math.max(1, intParam(url, 'page', 1));
  const perPage = Math.min(limits.maxPerPage, Math.max(1, intParam(url, 'per_page', limits.defaultPerPage)));
  const result = items.slice((page - 1) * perPage, page * perPage);
  const resultInfo: PageInfo = { page, per_page: perPage, count: result.length };
  if (limits.totals) {
    resultInfo.total_count = items.length;
    resultInfo.total_pages = Math.ceil(items.length / perPage);
  }
  return { result, resultInfo };
}

export function encodeCursor(value: string): string {
  return Buffer.from(JSON.stringify({ after: value })).toString('base64url');
}

/** The item name a cursor points after, or null for the first page. */
export function decodeCursor(cursor: string | null): string | null {
  if (!cursor) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && 'after' in parsed && typeof parsed.after === 'string') {
      return parsed.after;
    }
  } catch {
    // fall through to the API's answer for a cursor it did not issue
  }
  throw badRequest(10010, `invalid cursor "${cursor}"`);
}

/** Cursor pagination over names sorted ascending; cursor "" on the last page. */
export function cursorPageOf<T>(
  items: T[],
  nameOf: (item: T) => string,
  url: URL,
  limits: { defaultLimit: number; minLimit: number; maxLimit: number },
): { result: T[]; resultInfo: CursorInfo } {
  const limit = Math.min(
    limits.maxLimit,
    Math.max(limits.minLimit, intParam(url, 'limit', limits.defaultLimit)),
  );
  const after = decodeCursor(url.searchParams.get('cursor'));
  const start = after === null ? 0 : items.findIndex((item) => nameOf(item) > after);
  const from = start === -1 ? items.length : start;
  const result = items.slice(from, from + limit);
  const last = result.at(-1);
  const more = from + limit < items.length && last !== undefined;
  return {
    result,
    resultInfo: { count: result.length, cursor: more ? encodeCursor(nameOf(last)) : '' },
  };
}

export async function jsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(10002, 'The request body is not valid JSON');
  }
}
