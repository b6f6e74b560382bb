#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
var i=/^\d+(\.\d+)?$/,s=/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;function a(e,n){let t=e?.trim()??"";if(i.test(t))return u(Number(t)*1e3);if(!s.test(t))return;let r=Date.parse(t);return Number.isNaN(r)?void 0:u(r-n)}function f(e){let n=e?.trim()??"";return i.test(n)?u(Number(n)):void 0}function u(e){return Math.min(Math.max(0,e),864e5)}function o(e,n,t=Math.random){let r=Math.min(n.maxMs,n.baseMs*2**(e-1));return r/2+t()*(r/2)}export{a,f as b,o as c};
//# sourceMappingURL=cli-chunk-2IGBBFHH.js.map
