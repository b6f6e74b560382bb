// Awaits a promise that must fail with a CloudflareCallError, and returns that error.
import { CloudflareCallError } from '../../src/cloudflare/call-error.ts';

export async function callFailureOf(promise: Promise<unknown>): Promise<CloudflareCallError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof CloudflareCallError))
    throw new Error(`expected a CloudflareCallError, got ${error}`);
  return error;
}
