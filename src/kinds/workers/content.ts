// Reading a Worker's deployed code back (content/v2): at most a given number of bytes, because the
// only question asked of it is whether it is a small known script; and either shape of the answer,
// multipart for module Workers (one part per module) or one plain script.

/** One module of a deployed Worker's code, as read back. */
export interface WorkerModuleText {
  name: string;
  text: string;
}

/** Reads at most `maxBytes` of the body; more is 'too-large' (the rest is not downloaded). */
export async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | 'too-large'> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    return 'too-large';
  }
  if (response.body === null) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return 'too-large';
    }
    chunks.push(chunk.value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** The modules of a content answer: multipart (module Workers) or one plain script. */
export async function modulesOf(
  contentType: string,
  body: Uint8Array<ArrayBuffer>,
): Promise<WorkerModuleText[]> {
  if (!contentType.startsWith('multipart/form-data')) {
    return [{ name: '', text: new TextDecoder().decode(body) }];
  }
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  const modules: WorkerModuleText[] = [];
  for (const [name, value] of form.entries()) {
    modules.push({ name, text: typeof value === 'string' ? value : await value.text() });
  }
  return modules;
}
