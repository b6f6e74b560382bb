#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
function o(n){return Number.isSafeInteger(n)?String(n).replace(/\B(?=(\d{3})+$)/g,","):String(n)}function s(n,e,r=`${e}s`){return`${o(n)} ${n===1?e:r}`}function f(n){return n.length<=1?n[0]??"":`${n.slice(0,-1).join(", ")} and ${n.at(-1)}`}var i=/^\d+(\.\d+)?$/,a=/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;function c(n,e){let r=n?.trim()??"";if(i.test(r))return u(Number(r)*1e3);if(!a.test(r))return;let t=Date.parse(r);return Number.isNaN(t)?void 0:u(t-e)}function m(n){let e=n?.trim()??"";return i.test(e)?u(Number(e)):void 0}function u(n){return Math.min(Math.max(0,n),864e5)}function b(n,e,r=Math.random){let t=Math.min(e.maxMs,e.baseMs*2**(n-1));return t/2+r()*(t/2)}export{o as a,s as b,f as c,c as d,m as e,b as f};
//# sourceMappingURL=cli-chunk-AQXJMYIE.js.map
