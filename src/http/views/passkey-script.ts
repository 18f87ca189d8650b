// The passkey pages' first-party script: asks the server for WebAuthn options, runs the ceremony with the browser's own
// navigator.credentials (WebAuthn L3 §5.1.3 create(), §5.1.4 get()), and posts the credential's JSON (§5.1.8 toJSON()
// form, base64url by the helpers below) in the form's hidden `credential` field. Inline, allowed by its hash on the
// pages that show a passkey form only. Without JavaScript or WebAuthn the passkey buttons stay hidden.
//
// A form `data-passkey="get"` signs in (or answers a second factor) with a passkey; `data-passkey="create"` registers
// one; `data-options` is where the options come from, posted with the form's CSRF field. A `get` form marked
// `data-conditional` also offers the passkeys in the username field's autofill (§5.1.4 conditional mediation), when the
// browser can (PublicKeyCredential.isConditionalMediationAvailable()); that background request fails silently.
// `data-unused` and `data-failed` are the page's words, in its language, for a ceremony the person cancelled and one
// that failed (the script itself stays one text, allowed by one hash, whatever the language).
export const PASSKEY_SCRIPT = `(function(){
function enc(b){var a=new Uint8Array(b),s='';for(var i=0;i<a.length;i++)s+=String.fromCharCode(a[i]);return btoa(s).replace(/\\+/g,'-').replace(/\\//g,'_').replace(/=+$/,'')}
function dec(t){t=t.replace(/-/g,'+').replace(/_/g,'/');while(t.length%4)t+='=';var s=atob(t),a=new Uint8Array(s.length);for(var i=0;i<s.length;i++)a[i]=s.charCodeAt(i);return a.buffer}
function ids(l){return(l||[]).map(function(c){return{type:c.type,id:dec(c.id),transports:c.transports}})}
function json(c){var r=c.response,o={id:c.id,rawId:enc(c.rawId),type:c.type,clientExtensionResults:c.getClientExtensionResults?c.getClientExtensionResults():{},response:{clientDataJSON:enc(r.clientDataJSON)}};
if(r.attestationObject){o.response.attestationObject=enc(r.attestationObject);o.response.transports=r.getTransports?r.getTransports():[]}
else{o.response.authenticatorData=enc(r.authenticatorData);o.response.signature=enc(r.signature);if(r.userHandle)o.response.userHandle=enc(r.userHandle)}return o}
function setup(f){var btn=f.querySelector('[data-passkey-start]'),err=f.querySelector('[data-passkey-error]'),mode=f.getAttribute('data-passkey'),ctl=null;
function fail(m){if(err){err.textContent=m;err.hidden=false}}
var failed=f.getAttribute('data-failed')||'The passkey could not be used.',unused=f.getAttribute('data-unused')||failed;
function options(){var d=new URLSearchParams();d.set('csrf',f.querySelector('input[name="csrf"]').value);
return fetch(f.getAttribute('data-options'),{method:'POST',body:d,credentials:'same-origin',headers:{accept:'application/json'}}).then(function(r){return r.json().then(function(j){if(!r.ok)throw new Error(j.error_description||failed);return j})})}
function run(conditional){if(ctl)ctl.abort();var mine=ctl=new AbortController();if(err)err.hidden=true;
return options().then(function(o){if(mine.signal.aborted)return null;o.challenge=dec(o.challenge);
if(mode==='create'){o.user.id=dec(o.user.id);o.excludeCredentials=ids(o.excludeCredentials);return navigator.credentials.create({publicKey:o,signal:mine.signal})}
o.allowCredentials=ids(o.allowCredentials);var q={publicKey:o,signal:mine.signal};if(conditional)q.mediation='conditional';return navigator.credentials.get(q)})
.then(function(c){if(!c)return;f.querySelector('input[name="credential"]').value=JSON.stringify(json(c));f.submit()})
.catch(function(e){if(conditional||mine.signal.aborted||(e&&e.name==='AbortError'))return;fail(e&&e.name==='NotAllowedError'?unused:(e&&e.message)||failed)})}
if(btn){btn.hidden=false;btn.addEventListener('click',function(){run(false)})}
if(mode==='get'&&f.hasAttribute('data-conditional')&&PublicKeyCredential.isConditionalMediationAvailable){PublicKeyCredential.isConditionalMediationAvailable().then(function(ok){if(ok)run(true)})}}
if(!window.PublicKeyCredential||!navigator.credentials)return;
Array.prototype.forEach.call(document.querySelectorAll('form[data-passkey]'),setup)})();`;
