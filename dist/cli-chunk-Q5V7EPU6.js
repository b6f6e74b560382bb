#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
var o={workerRequests:0,workerSubrequests:0,workerCpuMs:0,objectRequests:0,alarms:0,websocketMessages:0,activeSeconds:0,gbSeconds:0,rowsRead:0,rowsWritten:0,storedBytes:0};function n(e,t){let r={...e};for(let s of Object.keys(o)){let i=t[s]??0;r[s]=s==="storedBytes"?Math.max(r[s],i):r[s]+i}return r}function c(e){return Object.keys(o).some(t=>t!=="storedBytes"&&e[t]>0)}function u(e){return e.objectRequests>0||e.activeSeconds>0||e.gbSeconds>0||e.websocketMessages>0||e.workerSubrequests>0}function a(e){let t=Math.floor(e/3e5)*3e5;return{from:t-36e5,until:t}}function y(e){return Array.from({length:12},(t,r)=>({...o,start:e.from+r*3e5}))}export{o as a,n as b,c,u as d,a as e,y as f};
//# sourceMappingURL=cli-chunk-Q5V7EPU6.js.map
