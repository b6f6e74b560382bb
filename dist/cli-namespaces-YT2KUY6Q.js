#!/usr/bin/env node
import { createRequire as __createRequire } from 'node:module';
const require = __createRequire(import.meta.url);
import{d as r}from"./cli-chunk-EKNPRLRJ.js";import"./cli-chunk-UALQTJ7C.js";import{w as c}from"./cli-chunk-4YDY4W6V.js";import"./cli-chunk-565S34RF.js";import"./cli-chunk-HZD3X2ZQ.js";import"./cli-chunk-GQ2T535C.js";import"./cli-chunk-2IGBBFHH.js";import"./cli-chunk-4GJYLMS4.js";async function p(e){let s=new r({apiToken:e.apiToken,accountId:e.accountId,baseUrl:e.baseUrl,pacer:e.pacer,...e.fetch===void 0?{}:{fetch:e.fetch}}),t=await e.pacer.shared(()=>c(s));return new Map(t.map(a=>[a.id,{script:a.script,className:a.className}]))}export{p as listNamespaceOwners};
//# sourceMappingURL=cli-namespaces-YT2KUY6Q.js.map
