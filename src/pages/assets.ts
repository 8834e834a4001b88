/**
 * Static assets of the hosted pages, served same-origin (CSP `script-src 'self'`). The script only enhances pages
 * that already work without it; every part looks for its element and does nothing when the page has none.
 */
export const PAY_JS = `(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  // The page's language (<html lang>): the script's few words follow it.
  var en = document.documentElement.lang === 'en';

  // Session-expiry countdown; the page itself states the expiry time.
  var expiry = $('expiry'), countdown = $('countdown');
  if (expiry && countdown) {
    var end = Date.now() + Number(expiry.getAttribute('data-remaining')) * 1000;
    var tick = function () {
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      var m = Math.floor(left / 60), s = left % 60;
      countdown.textContent = (en ? ' (time left ' : ' (남은 시간 ') + m + ':' + (s < 10 ? '0' : '') + s + ')';
      if (left === 0) { location.reload(); return; }
      setTimeout(tick, 1000);
    };
    tick();
  }

  var form = $('pay-form'), button = $('pay-button');
  if (form && button) {
    // The pay button says how and how much: "카카오페이로 12,000원 결제".
    var texts = {};
    try { JSON.parse(form.getAttribute('data-pay-texts') || '[]').forEach(function (t) { texts[t.value] = t.text; }); } catch (e) {}
    form.addEventListener('change', function (e) {
      if (e.target && e.target.name === 'method' && texts[e.target.value]) button.textContent = texts[e.target.value];
    });
    // One submission: the button is disabled while the payment is with the server (a second one would be harmless
    // on the server, but the buyer should see that the first one is on its way).
    var sent = false;
    form.addEventListener('submit', function (e) {
      if (sent) { e.preventDefault(); return; }
      sent = true;
      button.disabled = true;
      button.setAttribute('aria-busy', 'true');
      button.textContent = en ? 'Processing…' : '결제 진행 중…';
    });
    window.addEventListener('pageshow', function (e) {
      if (e.persisted) { sent = false; button.disabled = false; button.removeAttribute('aria-busy'); }
    });
  }

  // 전체 동의 ticks and unticks the others, and follows them.
  var all = $('agreeAll');
  if (all) {
    var items = ['agreeTerms', 'agreePrivacy', 'agreeThirdParty'].map($).filter(Boolean);
    all.addEventListener('change', function () { items.forEach(function (i) { i.checked = all.checked; }); });
    items.forEach(function (i) { i.addEventListener('change', function () { all.checked = items.every(function (x) { return x.checked; }); }); });
  }

  // Applying a coupon keeps what the buyer already typed (the coupon form carries copies; never the card number).
  var coupon = $('coupon-form');
  if (coupon && form) {
    coupon.addEventListener('submit', function () {
      ['buyerName', 'buyerEmail', 'buyerPhone'].forEach(function (n) {
        var src = form.elements[n];
        if (!src) return;
        var h = document.createElement('input');
        h.type = 'hidden'; h.name = n; h.value = src.value;
        coupon.appendChild(h);
      });
      var m = form.querySelector('input[name=method]:checked');
      if (m) { var h = document.createElement('input'); h.type = 'hidden'; h.name = 'method'; h.value = m.value; coupon.appendChild(h); }
    });
  }

  // The unknown-outcome page: poll the small status route and move on as soon as the payment is settled.
  var checking = $('checking');
  if (checking && window.fetch) {
    var url = checking.getAttribute('data-status-url'), next = checking.getAttribute('data-next');
    var poll = function () {
      fetch(url, { cache: 'no-store', headers: { accept: 'application/json' } })
        .then(function (r) { return r.json(); })
        .then(function (b) { if (b && b.status !== 'checking') location.replace(next); else setTimeout(poll, 3000); })
        .catch(function () { setTimeout(poll, 5000); });
    };
    setTimeout(poll, 3000);
  }

  // Copy buttons (the license key on the receipt); without the script the key is plain selectable text.
  Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (b) {
    if (!navigator.clipboard) return;
    b.hidden = false;
    b.addEventListener('click', function () {
      var target = $(b.getAttribute('data-copy'));
      if (!target) return;
      navigator.clipboard.writeText(target.textContent.trim()).then(function () {
        var label = b.textContent;
        b.textContent = b.getAttribute('data-copied') || (en ? 'Copied' : '복사됨');
        setTimeout(function () { b.textContent = label; }, 2000);
      });
    });
  });
})();
`;

/** A small card-and-check mark in the product's blue: the tab icon of every hosted page. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#3182f6"/><rect x="12" y="18" width="40" height="28" rx="5" fill="#fff"/><rect x="12" y="24" width="40" height="6" fill="#1b64da"/><path d="M22 38l5 4 10-9" stroke="#3182f6" stroke-width="4" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
