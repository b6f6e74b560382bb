import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{o as c,p as s,q as a}from"./index-chunk-DN22NJMR.js";var p=(()=>{class o extends c{update(t,e){let{account_id:r,...n}=t;return this._client.put(s`/accounts/${r}/workers/subdomain`,{body:n,...e})._thenUnwrap(u=>u.result)}delete(t,e){let{account_id:r}=t;return this._client.delete(s`/accounts/${r}/workers/subdomain`,{...e,headers:a([{Accept:"*/*"},e?.headers])})}get(t,e){let{account_id:r}=t;return this._client.get(s`/accounts/${r}/workers/subdomain`,e)._thenUnwrap(n=>n.result)}}return o._key=Object.freeze(["workers","subdomains"]),o})();export{p as a};
//# sourceMappingURL=index-chunk-P3JGBV77.js.map
