import { createPrivateKey, createPublicKey, sign, verify, createHmac, createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
const PK8 = Buffer.from('302e020100300506032b657004220420','hex');
const SPKI = Buffer.from('302a300506032b6570032100','hex');
const N=20000;
const keys=[]; for(let i=0;i<1000;i++){const seed=randomBytes(32);const k=createPrivateKey({key:Buffer.concat([PK8,seed]),format:'der',type:'pkcs8'});const pub=createPublicKey(k).export({format:'der',type:'spki'}).subarray(12);keys.push({k,pub,po:createPublicKey(k)});}
const msg=Buffer.from('CHALLENGE::'+'a'.repeat(51)+'::/x404_auth/blacklist::SERVICE404_BLACKLIST');
function t(name,f){for(let i=0;i<2000;i++)f(i);const s=process.hrtime.bigint();for(let i=0;i<N;i++)f(i);console.log(name,(Number(process.hrtime.bigint()-s)/1000/N).toFixed(2),'us');}
const sigs=keys.map(x=>sign(null,msg,x.k));
t('sign',i=>sign(null,msg,keys[i%1000].k));
t('verify cached key',i=>verify(null,msg,keys[i%1000].po,sigs[i%1000]));
t('verify import key',i=>verify(null,msg,createPublicKey({key:Buffer.concat([SPKI,keys[i%1000].pub]),format:'der',type:'spki'}),sigs[i%1000]));
t('createPublicKey',i=>createPublicKey({key:Buffer.concat([SPKI,keys[i%1000].pub]),format:'der',type:'spki'}));
const b=keys.map(x=>bs58.encode(x.pub)), bs=sigs.map(s=>bs58.encode(s));
t('bs58 decode addr',i=>bs58.decode(b[i%1000]));
t('bs58 decode sig',i=>bs58.decode(bs[i%1000]));
t('bs58 encode sig',i=>bs58.encode(sigs[i%1000]));
const key=randomBytes(32);
t('hmac',i=>createHmac('sha256',key).update('blacklist').update('\0').update(msg.subarray(0,22)).digest());
t('sha256',i=>createHash('sha256').update(msg).digest('base64url'));
