#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{d as r}from"./cli-chunk-5KAD6FHR.js";import"./cli-chunk-N6TTJVEY.js";import{L as c}from"./cli-chunk-RRX26576.js";import"./cli-chunk-GQ2T535C.js";import"./cli-chunk-2IGBBFHH.js";import"./cli-chunk-QNGGRDQF.js";async function p(e){let s=new r({apiToken:e.apiToken,accountId:e.accountId,baseUrl:e.baseUrl,pacer:e.pacer,...e.fetch===void 0?{}:{fetch:e.fetch}}),t=await e.pacer.shared(()=>c(s));return new Map(t.map(a=>[a.id,{script:a.script,className:a.className}]))}export{p as listNamespaceOwners};
//# sourceMappingURL=cli-namespaces-N6OIAZBT.js.map
