/**
 * The dashboard's passkey glue, served as /dashboard/assets/passkey.js beside @simplewebauthn/browser's bundle
 * (/dashboard/assets/webauthn.min.js, global `SimpleWebAuthnBrowser`). Both load from every dashboard page's head, so
 * a page swapped in by htmx (which runs no scripts it swaps in) still has them. One delegated click handler acts on
 * `button[data-passkey]` (see passkey-button.ts): fetch options (JSON, CSRF header), run the browser's WebAuthn
 * prompt, post the answer, then follow `redirect`, submit the step-up form, or show new recovery codes.
 */
export const PASSKEY_JS = `(function () {
  'use strict';
  function post(url, csrf, body) {
    return fetch(url, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(body || {}) })
      .then(function (r) { return r.json().catch(function () { return {}; }).then(function (j) { return { status: r.status, body: j }; }); })
      .catch(function () { return { status: 0, body: {} }; });
  }
  document.addEventListener('click', function (ev) {
    var btn = ev.target && ev.target.closest ? ev.target.closest('button[data-passkey]') : null;
    if (!btn) return;
    ev.preventDefault();
    var d = btn.dataset;
    var status = document.getElementById(d.status);
    function say(text) { if (status) status.textContent = text || ''; }
    var W = window.SimpleWebAuthnBrowser;
    if (!W || !W.browserSupportsWebAuthn()) { say(d.unsupported); return; }
    var extra = {};
    if (d.nameInput) { var n = document.getElementById(d.nameInput); extra.name = n ? n.value : ''; }
    if (d.next) extra.next = d.next;
    btn.disabled = true;
    say('');
    post(d.options, d.csrf, {}).then(function (o) {
      if (o.status !== 200 || !o.body.options) { say(o.body.error || d.failed); return null; }
      var prompt = d.passkey === 'register' ? W.startRegistration({ optionsJSON: o.body.options }) : W.startAuthentication({ optionsJSON: o.body.options });
      return prompt.then(function (answer) {
        extra.challengeId = o.body.challengeId;
        extra.response = answer;
        return post(d.verify, d.csrf, extra);
      }, function () { say(d.cancelled); return null; });
    }).then(function (v) {
      if (!v) return;
      if (v.status !== 200) { say(v.body.error || d.failed); return; }
      if (d.form) { var f = document.getElementById(d.form); if (f) { f.submit(); return; } }
      if (d.codes && v.body.recoveryCodes && v.body.recoveryCodes.length) {
        var box = document.getElementById(d.codes);
        var list = box && box.querySelector('ol');
        if (box && list) {
          v.body.recoveryCodes.forEach(function (c) { var li = document.createElement('li'); var code = document.createElement('code'); code.textContent = c; li.appendChild(code); list.appendChild(li); });
          box.hidden = false;
          say(v.body.message || '');
          return;
        }
      }
      window.location.assign(v.body.redirect || window.location.href);
    }).then(function () { btn.disabled = false; }, function () { btn.disabled = false; say(d.failed); });
  });
})();
`;
