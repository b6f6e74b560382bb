#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{B as o}from"./cli-chunk-SSULNDRF.js";import{b as i}from"./cli-chunk-IPOYXVZT.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=cli-chunk-3I3NRQTS.js.map
