#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{B as o}from"./cli-chunk-3B3C72JX.js";import{b as i}from"./cli-chunk-2GJ7MY3Q.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=cli-chunk-TE7SMV3S.js.map
