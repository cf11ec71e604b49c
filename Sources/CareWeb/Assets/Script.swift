/// The little script the pages use: when the store changes, the page's live region is fetched again and swapped
/// in (no reload, focus kept, a polite announcement). Without it the pages work as plain forms.
enum Script {
    static let text = """
        (function () {
          // Settings: offer the browser's zone as a choice; it is saved only when the user saves the form.
          var suggest = document.querySelector('[data-zone-suggest]');
          var select = document.getElementById('zone');
          var browserZone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
          if (suggest && select && browserZone && select.value !== browserZone &&
              Array.prototype.some.call(select.options, function (o) { return o.value === browserZone; })) {
            suggest.querySelector('span').textContent = 'This device is set to ' + browserZone + '.';
            suggest.querySelector('button').textContent = 'Choose ' + browserZone;
            suggest.querySelector('button').addEventListener('click', function () {
              select.value = browserZone;
              select.focus();
            });
            suggest.hidden = false;
          }
        })();
        (function () {
          var main = document.querySelector('[data-live]');
          if (!main || !window.EventSource || !window.fetch) return;
          var pending = null;
          var source = new EventSource(main.getAttribute('data-live'));
          function busy() {
            var active = document.activeElement;
            return active && (active.tagName === 'INPUT' || active.tagName === 'TEXTAREA') && active.value !== '';
          }
          function refresh() {
            pending = null;
            if (busy()) { pending = setTimeout(refresh, 1000); return; }
            fetch(window.location.href, { credentials: 'same-origin', headers: { 'Accept': 'text/html' } })
              .then(function (response) {
                if (response.redirected || !response.ok) { window.location.reload(); return null; }
                return response.text();
              })
              .then(function (html) {
                if (!html) return;
                var fresh = new DOMParser().parseFromString(html, 'text/html').querySelector('[data-live-region]');
                var old = document.querySelector('[data-live-region]');
                if (!fresh || !old || fresh.innerHTML === old.innerHTML) return;
                var focused = document.activeElement && document.activeElement.id;
                old.replaceWith(fresh);
                if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
                var status = document.getElementById('live-status');
                var progress = fresh.querySelector('#progress');
                if (status) status.textContent = 'Updated: ' + (progress ? progress.textContent : 'the page changed');
                document.body.setAttribute('data-updated', String(Date.now()));
              })
              .catch(function () {});
          }
          source.addEventListener('change', function () {
            if (!pending) pending = setTimeout(refresh, 150);
          });
        })();
        """
}
