#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
function e(r){return Number.isSafeInteger(r)?String(r).replace(/\B(?=(\d{3})+$)/g,","):String(r)}function i(r,t,n=`${t}s`){return`${e(r)} ${r===1?t:n}`}function u(r){return r.length<=1?r[0]??"":`${r.slice(0,-1).join(", ")} and ${r.at(-1)}`}function o(r){let t=r%100,n=t>=11&&t<=13?"th":r%10===1?"st":r%10===2?"nd":r%10===3?"rd":"th";return`${e(r)}${n}`}export{e as a,i as b,u as c,o as d};
//# sourceMappingURL=cli-chunk-TVX4IHHU.js.map
