import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{z as o}from"./index-chunk-HO3VV7GZ.js";import{b as i}from"./index-chunk-K34BYU7Q.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=index-chunk-SZDSZJIT.js.map
