import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{z as o}from"./index-chunk-IRA5FUOD.js";import{b as i}from"./index-chunk-6PNRTFDC.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=index-chunk-FF43O43M.js.map
