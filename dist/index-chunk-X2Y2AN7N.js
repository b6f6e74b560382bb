import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
var n=new Set(["rate-limited","budget","deadline","aborted"]),s=class t extends Error{kind;reason;status;codes;retryAfterMs;refusals;constructor(e,r){super(`${e.kind}: ${r}`),this.name="CloudflareCallError",this.kind=e.kind,this.reason=e.reason,this.status=e.status,this.codes=e.codes??[],this.retryAfterMs=e.retryAfterMs,this.refusals=e.refusals??[]}withReason(e,r){return new t({kind:this.kind,reason:e,status:this.status,codes:this.codes,retryAfterMs:this.retryAfterMs,refusals:this.refusals},r)}get detail(){return this.message.slice(this.kind.length+2)}};export{n as a,s as b};
//# sourceMappingURL=index-chunk-X2Y2AN7N.js.map
