#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
var s=new Set(["rate-limited","budget","deadline","aborted"]),t=class n extends Error{kind;reason;status;codes;retryAfterMs;constructor(e,r){super(`${e.kind}: ${r}`),this.name="CloudflareCallError",this.kind=e.kind,this.reason=e.reason,this.status=e.status,this.codes=e.codes??[],this.retryAfterMs=e.retryAfterMs}withReason(e,r){return new n({kind:this.kind,reason:e,status:this.status,codes:this.codes,retryAfterMs:this.retryAfterMs},r)}get detail(){return this.message.slice(this.kind.length+2)}};export{s as a,t as b};
//# sourceMappingURL=cli-chunk-P53AKUIL.js.map
