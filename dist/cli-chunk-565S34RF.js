#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{o as c,p as s,q as a}from"./cli-chunk-HZD3X2ZQ.js";var p=(()=>{class o extends c{update(t,e){let{account_id:r,...n}=t;return this._client.put(s`/accounts/${r}/workers/subdomain`,{body:n,...e})._thenUnwrap(u=>u.result)}delete(t,e){let{account_id:r}=t;return this._client.delete(s`/accounts/${r}/workers/subdomain`,{...e,headers:a([{Accept:"*/*"},e?.headers])})}get(t,e){let{account_id:r}=t;return this._client.get(s`/accounts/${r}/workers/subdomain`,e)._thenUnwrap(n=>n.result)}}return o._key=Object.freeze(["workers","subdomains"]),o})();export{p as a};
//# sourceMappingURL=cli-chunk-565S34RF.js.map
