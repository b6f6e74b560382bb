#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{B as o}from"./cli-chunk-LWINPSNV.js";import{b as i}from"./cli-chunk-PTMXBPS4.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=cli-chunk-GB26D2JI.js.map
