#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{E as o}from"./cli-chunk-7BFMMCN6.js";import{b as i}from"./cli-chunk-PEZYK3ZN.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=cli-chunk-IKWDNPFG.js.map
