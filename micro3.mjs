import { createSignatureVerifier } from './dist/src/signature/verifier.js';
import { createPrivateKey, createPublicKey, sign, randomBytes } from 'node:crypto';
const PK8 = Buffer.from('302e020100300506032b657004220420','hex');
const items=[];for(let i=0;i<1000;i++){const k=createPrivateKey({key:Buffer.concat([PK8,randomBytes(32)]),format:'der',type:'pkcs8'});const pub=createPublicKey(k).export({format:'der',type:'spki'}).subarray(12);const m='CHALLENGE::'+i;items.push([new Uint8Array(pub),m,new Uint8Array(sign(null,Buffer.from(m),k))]);}
const v=createSignatureVerifier({threads:1,maxBatch:64});
await Promise.all(items.slice(0,100).map(x=>v.verify(...x)));
const c0=process.cpuUsage(); const t0=performance.now();
let n=0;
for(let r=0;r<20;r++){ const ps=[]; for(let i=0;i<1000;i++) ps.push(v.verify(...items[i])); const res=await Promise.all(ps); n+=res.filter(Boolean).length; }
const c=process.cpuUsage(c0); console.log('ok',n,'wall ms',(performance.now()-t0).toFixed(0),'main+worker cpu ms',((c.user+c.system)/1000).toFixed(0));
await v.close();
