import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{B as o}from"./index-chunk-IBC4AXNK.js";import{b as i}from"./index-chunk-T4JPFQP3.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=index-chunk-5IE5PSY7.js.map
