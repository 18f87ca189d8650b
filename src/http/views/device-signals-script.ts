// The login page's first-party script: fills hidden fields with a few client signals (automation flag, time
// zone, cores, screen, languages) that the server cannot see. Inline, and allowed by its hash on the login page
// only (LOGIN_PAGE_HEADERS). Without JavaScript the fields stay empty, which counts for nothing.
export const DEVICE_SIGNAL_FIELDS = ['ds_webdriver', 'ds_tz', 'ds_hc', 'ds_screen', 'ds_langs'] as const;

export const DEVICE_SIGNALS_SCRIPT = `(function(){var f=document.querySelector('form[data-device-signals]');if(!f)return;
function s(n,v){var i=f.querySelector('input[name="'+n+'"]');if(i)i.value=v==null?'':String(v).slice(0,100)}
try{s('ds_webdriver',navigator.webdriver?'1':'0');s('ds_tz',Intl.DateTimeFormat().resolvedOptions().timeZone);
s('ds_hc',navigator.hardwareConcurrency);s('ds_screen',screen.width+'x'+screen.height);
s('ds_langs',(navigator.languages||[]).slice(0,5).join(','))}catch(e){}})();`;
