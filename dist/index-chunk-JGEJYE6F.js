import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{C as o}from"./index-chunk-SJ25WJQH.js";import{b as i}from"./index-chunk-T4JPFQP3.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=index-chunk-JGEJYE6F.js.map
