#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{E as o}from"./cli-chunk-2CUWAUU4.js";import{b as i}from"./cli-chunk-YB7HCP4N.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=cli-chunk-GYJYE3HY.js.map
