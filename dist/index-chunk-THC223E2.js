import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{a as i,b as s}from"./index-chunk-PKZPUZLX.js";function l(t,e){return s(t?.get("retry-after-ms"))??i(t?.get("retry-after"),e)}async function u(t,e){let r=new AbortController,o=!1,n=()=>r.abort(t.signal.reason);t.signal.aborted?n():t.signal.addEventListener("abort",n,{once:!0});let a=setTimeout(()=>{o=!0,r.abort(new DOMException(`no answer within ${t.timeoutMs} ms`,"TimeoutError"))},t.timeoutMs);try{return await e(r.signal,()=>o)}finally{clearTimeout(a),t.signal.removeEventListener("abort",n)}}export{l as a,u as b};
//# sourceMappingURL=index-chunk-THC223E2.js.map
