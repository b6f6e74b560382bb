import './zod-jitless.ts';
import { run } from './main.ts';

await run();
