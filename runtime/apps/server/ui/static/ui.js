// The reviewer UI's keyboard shortcuts and the end of a decided card. No inline script: the
// page's Content-Security-Policy allows scripts from this server's /ui/static/ only.
"use strict";

(function () {
  function cards() {
    return Array.from(document.querySelectorAll("article.review:not(.done)"));
  }

  function current() {
    var focused = document.activeElement && document.activeElement.closest
      ? document.activeElement.closest("article.review") : null;
    return focused || cards()[0] || null;
  }

  function move(step) {
    var all = cards();
    if (!all.length) return;
    var at = all.indexOf(current());
    var next = all[Math.max(0, Math.min(all.length - 1, at + step))];
    next.focus();
    next.scrollIntoView({ block: "nearest" });
  }

  function press(selector) {
    var card = current();
    var button = card ? card.querySelector(selector) : null;
    if (button) button.click();
  }

  function follow(rel) {
    var link = document.querySelector('nav.pages a[rel="' + rel + '"]');
    if (link) window.location.assign(link.href);
  }

  function typing(target) {
    return target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
  }

  var keys = {
    j: function () { move(1); },
    k: function () { move(-1); },
    a: function () { press("button.approve"); },
    r: function () { press("button.reject"); },
    m: function () { press("button.merge"); },
    e: function () {
      var card = current();
      var reason = card ? card.querySelector("textarea[name=reason]") : null;
      if (reason) reason.focus();
    },
    n: function () { follow("next"); },
    p: function () { follow("first"); },
    "?": function () { document.getElementById("keys").showModal(); },
  };

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && typing(event.target)) {
      var card = event.target.closest("article.review");
      if (card) card.focus(); else event.target.blur();
      return;
    }
    if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    var action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });

  // a decision swapped into a card: the card is done, its buttons go, the next one has focus
  document.addEventListener("htmx:afterSwap", function (event) {
    var card = event.target.closest ? event.target.closest("article.review") : null;
    if (!card || !event.target.querySelector(".decided")) return;
    card.classList.add("done");
    card.querySelectorAll("form.decide button, form.decide textarea, form.decide select, form.decide input")
      .forEach(function (control) { control.disabled = true; });
    var rest = cards();
    if (rest.length) rest[0].focus();
  });

  document.addEventListener("DOMContentLoaded", function () {
    var help = document.getElementById("show-keys");
    if (help) help.addEventListener("click", function () { document.getElementById("keys").showModal(); });
    var first = cards()[0];
    if (first && !document.querySelector("[autofocus]")) first.focus();
  });
})();
