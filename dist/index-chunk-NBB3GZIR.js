import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{C as o}from"./index-chunk-TCKO26JU.js";import{b as i}from"./index-chunk-43KEZWF7.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=index-chunk-NBB3GZIR.js.map
