// preview-gc's zod. Every module under src/ imports zod from here (a lint rule says so), so zod is
// configured before any schema exists: a schema reads the setting when it is built. An entry's first
// import is not enough, because the bundle evaluates shared chunks, where the schemas live, before
// the entry's own code.
//
// jitless: zod parses without compiling a specialised parser per object schema (`new Function`) on
// first use. A run parses most schemas once or a few times, so that compile costs more than it saves
// (bench/README.md, cold start); the semaphore Worker parses this way anyway, as Cloudflare forbids
// code generation.
import * as z from 'zod';

z.config({ jitless: true });

export * from 'zod';
