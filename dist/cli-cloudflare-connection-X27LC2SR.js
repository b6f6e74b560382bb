#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{a}from"./cli-chunk-NIBOBVC4.js";import"./cli-chunk-LSQ4FNEH.js";export{a as connect};
//# sourceMappingURL=cli-cloudflare-connection-X27LC2SR.js.map
