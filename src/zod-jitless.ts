// Imported first by each entry (src/index.ts, src/cli.ts), before any module builds a schema: zod then
// parses without compiling a specialised parser per object schema (`new Function`) on first use. A run
// parses most schemas once or a few times, so that compile cost more than it saved at start-up; the
// semaphore Worker already parses this way (zod turns it off on Cloudflare).
import * as z from 'zod';

z.config({ jitless: true });
