import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{z as o}from"./index-chunk-5TN6I4SY.js";import{b as i}from"./index-chunk-OE6TYZIJ.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=index-chunk-DPPP4TMO.js.map
