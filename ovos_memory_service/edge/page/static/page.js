/* The memory page's only script; the page works without it. It
   (1) keeps the page current: every data-refresh seconds it asks /state for
   a fingerprint of the user's memories (no text), and when it changed
   (voice, another tab, the command line) it fetches this page again and
   swaps its [data-live] parts, keeping what was ticked; on a page that
   answers a form, it only says that memories changed; signed out (revoked,
   expired), it reloads to show so;
   (2) ticks or unticks every memory shown ("select all"). */
(function () {
  "use strict";
  var body = document.body;
  var stateUrl = body.getAttribute("data-state-url");
  var every = parseFloat(body.getAttribute("data-refresh") || "0") * 1000;
  var seen = body.getAttribute("data-state");
  var busy = false;

  function announce(text) {
    var notice = document.getElementById("notice");
    if (notice) { notice.textContent = text; }
  }

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var parts = document.querySelectorAll("[data-live]");
    for (var i = 0; i < parts.length; i++) {
      var old = parts[i];
      var next = fresh.getElementById(old.id);
      if (!next) { continue; }
      var ticked = {};
      var boxes = old.querySelectorAll("input[type=checkbox][name=ids]:checked");
      for (var j = 0; j < boxes.length; j++) { ticked[boxes[j].value] = true; }
      var adopted = document.importNode(next, true);
      var again = adopted.querySelectorAll("input[type=checkbox][name=ids]");
      for (var k = 0; k < again.length; k++) { again[k].checked = !!ticked[again[k].value]; }
      old.parentNode.replaceChild(adopted, old);
    }
    var state = fresh.body && fresh.body.getAttribute("data-state");
    if (state) { seen = state; }
    announce(body.getAttribute("data-updated"));
  }

  function check() {
    if (busy || document.hidden) { return; }
    busy = true;
    fetch(stateUrl, {credentials: "same-origin", cache: "no-store"}).then(function (answer) {
      if (answer.status === 401) { window.location.reload(); return null; }
      return answer.ok ? answer.json() : null;
    }).then(function (state) {
      if (!state || state.v === seen) { return null; }
      if (!body.getAttribute("data-reloadable")) {
        seen = state.v;
        announce(body.getAttribute("data-stale"));
        return null;
      }
      return fetch(window.location.href, {credentials: "same-origin", cache: "no-store"}).then(function (answer) {
        if (answer.status === 401) { window.location.reload(); return null; }
        return answer.ok ? answer.text().then(swap) : null;
      });
    }).catch(function () { return null; }).then(function () { busy = false; });
  }

  if (stateUrl && every > 0) { window.setInterval(check, every); }

  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box.hasAttribute || !box.hasAttribute("data-select-all")) { return; }
    var form = box.form || document;
    var all = form.querySelectorAll("input[type=checkbox][name=ids]");
    for (var i = 0; i < all.length; i++) { all[i].checked = box.checked; }
  });
}());
