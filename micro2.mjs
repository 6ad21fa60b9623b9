import { createPrivateKey, createPublicKey, sign, verify, randomBytes } from 'node:crypto';
const PK8 = Buffer.from('302e020100300506032b657004220420','hex');
const SPKI = Buffer.from('302a300506032b6570032100','hex');
const N=10000;
const keys=[]; for(let i=0;i<1000;i++){const seed=randomBytes(32);const k=createPrivateKey({key:Buffer.concat([PK8,seed]),format:'der',type:'pkcs8'});const pub=createPublicKey(k).export({format:'der',type:'spki'}).subarray(12);keys.push({k,pub,po:createPublicKey(k)});}
const msg=Buffer.from('CHALLENGE::'+'a'.repeat(51)+'::/x404_auth/blacklist::SERVICE404_BLACKLIST');
const sigs=keys.map(x=>sign(null,msg,x.k));
function t(name,f){for(let i=0;i<2000;i++)f(i);const s=process.hrtime.bigint();for(let i=0;i<N;i++)f(i);return (Number(process.hrtime.bigint()-s)/1000/N);}
const jwk=i=>createPublicKey({key:{kty:'OKP',crv:'Ed25519',x:keys[i%1000].pub.toString('base64url')},format:'jwk'});
const der=i=>createPublicKey({key:Buffer.concat([SPKI,keys[i%1000].pub]),format:'der',type:'spki'});
for (let r=0;r<3;r++) console.log(['cached',t('',i=>verify(null,msg,keys[i%1000].po,sigs[i%1000])).toFixed(1),'jwk',t('',i=>verify(null,msg,jwk(i),sigs[i%1000])).toFixed(1),'der',t('',i=>verify(null,msg,der(i),sigs[i%1000])).toFixed(1)].join(' '));
