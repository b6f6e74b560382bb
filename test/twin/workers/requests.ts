// Reading Worker requests: the script a route names, who sent the upload, and the multipart upload
// itself (one JSON metadata or settings part, the modules).
import { badRequest, notFound } from '../envelope.ts';
import type { RouteContext } from '../gate.ts';
import { type UploadMetadata, uploadMetadataSchema } from './metadata.ts';
import type { WorkerModule, WorkerScript, WorkersStore } from './store.ts';

export const SCRIPTS = '/accounts/:account/workers/scripts';

export function scriptOf(workers: WorkersStore, { params }: RouteContext): WorkerScript {
  const script = workers.scripts.get(params.name ?? '');
  if (!script) throw notFound(10007, 'This Worker does not exist on your account.');
  return script;
}

/** The client of an upload, from its user agent: wrangler says `wrangler/<version>`. */
export function clientOf(request: Request): string {
  return /^wrangler\//.test(request.headers.get('user-agent') ?? '') ? 'wrangler' : 'api';
}

/** Reads one JSON part named `name` (10021 when missing, repeated or not JSON). */
export async function jsonPart(form: FormData, name: string): Promise<UploadMetadata> {
  const parts = form.getAll(name);
  const part = parts[0];
  if (parts.length !== 1 || part === undefined) {
    throw badRequest(
      10021,
      `could not read content for part ${name}: expected exactly one, got ${parts.length}`,
    );
  }
  const text = typeof part === 'string' ? part : await part.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest(10021, `could not read content for part ${name}: not JSON`);
  }
  const parsed = uploadMetadataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(10021, `${name}: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

export async function formOf(request: Request, part: string): Promise<FormData> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.startsWith('multipart/form-data')) {
    throw badRequest(10021, `could not read content for part ${part}: the body is not multipart/form-data`);
  }
  return request.formData();
}

export async function modulesOf(form: FormData, metadata: UploadMetadata): Promise<WorkerModule[]> {
  const modules: WorkerModule[] = [];
  for (const [name, value] of form.entries()) {
    if (name === 'metadata' || typeof value === 'string') continue;
    modules.push({ name, contentType: value.type, text: await value.text() });
  }
  const main = metadata.main_module ?? metadata.body_part;
  if (!main) throw badRequest(10021, 'metadata must name main_module (or body_part)');
  if (!modules.some((m) => m.name === main)) throw badRequest(10021, `No such module "${main}".`);
  return modules;
}
