import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
var e=class extends Error{status;failure;constructor(r,t,u="other"){super(r),this.name="GitHubError",this.status=t,this.failure=u}};export{e as a};
//# sourceMappingURL=index-chunk-AJLPXXOH.js.map
