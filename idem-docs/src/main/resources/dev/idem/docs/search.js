// Search over search-index.js, in the browser, offline: every word of the query must occur in a
// section (its page title, heading or text); sections whose heading holds the words rank first.
(function () {
  "use strict";
  var input = document.getElementById("search");
  var list = document.getElementById("search-results");
  var root = document.body.getAttribute("data-root") || "";
  var index = window.IDEM_SEARCH_INDEX || [];
  if (!input || !list) { return; }
  var entries = index.map(function (e) {
    return { e: e, head: (e.p + " " + e.s).toLowerCase(), body: e.x.toLowerCase() };
  });

  function words(query) {
    return query.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 1; });
  }

  function count(text, word) {
    var n = 0, at = text.indexOf(word);
    while (at >= 0 && n < 20) { n++; at = text.indexOf(word, at + word.length); }
    return n;
  }

  function snippet(text, word) {
    var at = text.toLowerCase().indexOf(word);
    var from = Math.max(0, at - 60);
    // Start at a word, not inside one.
    if (from > 0) { var space = text.indexOf(" ", from); if (space >= 0 && space < at) { from = space + 1; } }
    var part = (from > 0 ? "… " : "") + text.substr(from, 180) + (from + 180 < text.length ? " …" : "");
    return part;
  }

  function element(tag, cls, text) {
    var el = document.createElement(tag);
    if (cls) { el.className = cls; }
    if (text) { el.textContent = text; }
    return el;
  }

  function marked(text, ws) {
    var span = element("span", "snippet");
    var lower = text.toLowerCase(), at = 0;
    while (at < text.length) {
      var next = -1, len = 0;
      ws.forEach(function (w) {
        var i = lower.indexOf(w, at);
        if (i >= 0 && (next < 0 || i < next)) { next = i; len = w.length; }
      });
      if (next < 0) { span.appendChild(document.createTextNode(text.substring(at))); break; }
      span.appendChild(document.createTextNode(text.substring(at, next)));
      span.appendChild(element("mark", null, text.substr(next, len)));
      at = next + len;
    }
    return span;
  }

  function search() {
    var ws = words(input.value);
    list.textContent = "";
    if (ws.length === 0) { list.hidden = true; return; }
    var found = [];
    entries.forEach(function (en) {
      var score = 0;
      for (var i = 0; i < ws.length; i++) {
        var inHead = count(en.head, ws[i]), inBody = count(en.body, ws[i]);
        if (inHead + inBody === 0) { return; }
        score += inHead * 10 + inBody;
      }
      found.push({ en: en, score: score });
    });
    found.sort(function (a, b) { return b.score - a.score; });
    if (found.length === 0) {
      list.appendChild(element("li", "none", "Nothing found for \u201c" + input.value.trim() + "\u201d"));
    }
    found.slice(0, 12).forEach(function (f) {
      var e = f.en.e;
      var li = element("li");
      var a = element("a", null, e.s === e.p ? e.p : e.s + " \u2014 " + e.p);
      a.href = root + e.u;
      li.appendChild(a);
      li.appendChild(marked(snippet(e.x, ws[0]), ws));
      list.appendChild(li);
    });
    list.hidden = false;
  }

  input.addEventListener("input", search);
  input.addEventListener("keydown", function (event) {
    if (event.key === "Escape") { input.value = ""; search(); }
    if (event.key === "Enter") {
      var first = list.querySelector("a");
      if (first) { window.location.href = first.href; }
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "/" && document.activeElement !== input) { event.preventDefault(); input.focus(); }
  });
}());
