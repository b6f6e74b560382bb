import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
function e(r){return Number.isSafeInteger(r)?String(r).replace(/\B(?=(\d{3})+$)/g,","):String(r)}function i(r,n,t=`${n}s`){return`${e(r)} ${r===1?n:t}`}function u(r){return r.length<=1?r[0]??"":`${r.slice(0,-1).join(", ")} and ${r.at(-1)}`}export{e as a,i as b,u as c};
//# sourceMappingURL=index-chunk-VL3S77SC.js.map
