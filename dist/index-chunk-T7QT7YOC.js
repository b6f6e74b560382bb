import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{z as o}from"./index-chunk-6GXQK46P.js";import{b as i}from"./index-chunk-JLF2EGMT.js";function r(n){return n instanceof o?n.message:i(n instanceof Error?n.message:String(n))}export{r as a};
//# sourceMappingURL=index-chunk-T7QT7YOC.js.map
