import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{n as r}from"./index-chunk-VDFNVIQC.js";import{w as c}from"./index-chunk-KM7FXTVV.js";import"./index-chunk-P3JGBV77.js";import"./index-chunk-DN22NJMR.js";import"./index-chunk-THC223E2.js";import"./index-chunk-PKZPUZLX.js";import"./index-chunk-X2Y2AN7N.js";import"./index-chunk-35JUW3SR.js";async function p(e){let s=new r({apiToken:e.apiToken,accountId:e.accountId,baseUrl:e.baseUrl,pacer:e.pacer,...e.fetch===void 0?{}:{fetch:e.fetch}}),t=await e.pacer.shared(()=>c(s));return new Map(t.map(a=>[a.id,{script:a.script,className:a.className}]))}export{p as listNamespaceOwners};
//# sourceMappingURL=index-namespaces-DKZB5WI3.js.map
