"""What the RM's pages get from jQuery DataTables and ``yarn.dt.plugins.js``, in a small inline script.

The RM UI's tables (``WebPageUtils.appsTableInit``, ``JQueryUI.tableInit``) sort by a click on a header (again for
descending), filter on a search box and show 20 rows a page (``iDisplayLength: 20``, lengths 20 to 100, "full
numbers" paging); the applications table starts sorted by id, newest first (``aaSorting: [[0, 'desc']]``). Times are
rendered by ``renderHadoopDate`` as ``ddd MMM DD HH:mm:ss ZZ YYYY`` (``Times.format`` on the server-rendered pages:
``Sat Nov 28 16:44:35 +0000 2026``), "N/A" for 0, and sorted by their number.

yarnball renders the cells on the server (:func:`hadoop_date`, in UTC so that a report is the same everywhere) and
gives each the value it sorts by in ``data-sort``; :data:`TABLE_JS` makes every ``<table data-page="N">`` sortable,
searchable and paged, with no library and no network. A table's state (sort, search, page, page length) lives in
the URL's fragment (``#apps.sort=7.asc&apps.search=q&apps.page=2&apps.size=40``), so a link keeps it and so does the
live pages' periodic reload; that reload waits while the search box is being typed in.
"""

from __future__ import annotations

import datetime

__all__ = ["PAGE_LENGTHS", "TABLE_JS", "hadoop_date"]

#: JQueryUI.tableInit's ``aLengthMenu``; the first is ``iDisplayLength``.
PAGE_LENGTHS = (20, 40, 60, 80, 100)

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def hadoop_date(ms: int) -> str:
    """``renderHadoopDate`` / ``Times.format``: ``Sat Nov 28 16:44:35 +0000 2026`` (UTC), "N/A" when not positive."""
    if ms <= 0:
        return "N/A"
    t = datetime.datetime.fromtimestamp(ms // 1000, tz=datetime.UTC)
    return f"{_DAYS[t.weekday()]} {_MONTHS[t.month - 1]} {t.day:02d} {t:%H:%M:%S} +0000 {t.year}"


_SCRIPT = """
(function () {
  "use strict";
  var LENGTHS = [@LENGTHS@];
  function params() { return new URLSearchParams(location.hash.slice(1)); }
  function sortKey(td) { return td.hasAttribute("data-sort") ? td.getAttribute("data-sort") : td.textContent.trim(); }
  function number(s) { var t = s.replace(/%$/, ""); return t !== "" && isFinite(t) ? parseFloat(t) : null; }
  function natural(a, b) {
    var x = a.match(/\\d+|\\D+/g) || [], y = b.match(/\\d+|\\D+/g) || [];
    for (var i = 0; i < x.length && i < y.length; i++) {
      if (/^\\d/.test(x[i]) && /^\\d/.test(y[i])) {
        var d = parseInt(x[i], 10) - parseInt(y[i], 10);
        if (d) return d;
      } else if (x[i] !== y[i]) {
        return x[i] < y[i] ? -1 : 1;
      }
    }
    return x.length - y.length;
  }
  function compare(a, b) {
    var m = number(a), n = number(b);
    if (m !== null && n !== null) return m - n;
    if (m !== null || n !== null) return m !== null ? -1 : 1;
    return natural(a, b);
  }
  function button(text, enabled, go) {
    var b = document.createElement("button");
    b.type = "button"; b.textContent = text; b.disabled = !enabled;
    b.addEventListener("click", go);
    return b;
  }
  function setup(table) {
    var id = table.id, p = params();
    var body = table.tBodies[0], heads = table.tHead.rows[0].cells;
    var rows = Array.prototype.slice.call(body.rows), index = new Map();
    rows.forEach(function (r, i) { index.set(r, i); });
    var sort = (p.get(id + ".sort") || table.getAttribute("data-order") || "").split(".");
    var s = {
      col: sort[0] === "" ? -1 : parseInt(sort[0], 10), dir: sort[1] === "desc" ? -1 : 1,
      q: p.get(id + ".search") || "", page: parseInt(p.get(id + ".page") || "1", 10) - 1,
      size: parseInt(p.get(id + ".size") || table.getAttribute("data-page"), 10)
    };
    if (!(s.col >= 0 && s.col < heads.length)) s.col = -1;
    if (LENGTHS.indexOf(s.size) < 0) s.size = LENGTHS[0];
    var top = document.createElement("div"), bottom = document.createElement("div");
    top.className = "dt-top"; bottom.className = "dt-bottom";
    var lengths = document.createElement("select"), search = document.createElement("input");
    LENGTHS.forEach(function (n) { lengths.add(new Option(String(n), String(n), false, n === s.size)); });
    search.type = "search"; search.value = s.q; search.id = id + "-search";
    var label = document.createElement("label");
    label.append("Show ", lengths, " entries");
    var find = document.createElement("label");
    find.append("Search: ", search);
    top.append(label, find);
    var info = document.createElement("span"), pager = document.createElement("span");
    info.className = "dt-info"; pager.className = "dt-pager";
    bottom.append(info, pager);
    table.parentNode.insertBefore(top, table);
    table.parentNode.insertBefore(bottom, table.nextSibling);
    function draw() {
      var order = rows.slice();
      if (s.col >= 0) {
        order.sort(function (a, b) {
          return s.dir * compare(sortKey(a.cells[s.col]), sortKey(b.cells[s.col])) || index.get(a) - index.get(b);
        });
      }
      var q = s.q.toLowerCase(), shown = [];
      order.forEach(function (r) {
        var text = Array.prototype.map.call(r.cells, function (c) { return c.textContent; }).join("\\t");
        if (!q || text.toLowerCase().indexOf(q) >= 0) shown.push(r);
        body.appendChild(r);
        r.hidden = true;
      });
      var pages = Math.max(1, Math.ceil(shown.length / s.size));
      s.page = Math.min(Math.max(s.page, 0), pages - 1);
      var first = s.page * s.size, last = Math.min(first + s.size, shown.length);
      for (var i = first; i < last; i++) shown[i].hidden = false;
      Array.prototype.forEach.call(heads, function (th, i) {
        th.className = i === s.col ? (s.dir > 0 ? "sorting_asc" : "sorting_desc") : "sorting";
        th.setAttribute("aria-sort", i === s.col ? (s.dir > 0 ? "ascending" : "descending") : "none");
      });
      info.textContent = "Showing " + (shown.length ? first + 1 : 0) + " to " + last + " of " + shown.length +
        " entries" + (shown.length < rows.length ? " (filtered from " + rows.length + " total entries)" : "");
      pager.textContent = "";
      function to(n) { return function () { s.page = n; draw(); }; }
      pager.append(button("First", s.page > 0, to(0)), button("Previous", s.page > 0, to(s.page - 1)));
      for (var n = 0; n < pages; n++) {
        var b = button(String(n + 1), n !== s.page, to(n));
        if (n === s.page) b.className = "current";
        pager.append(b);
      }
      var more = s.page < pages - 1;
      pager.append(button("Next", more, to(s.page + 1)), button("Last", more, to(pages - 1)));
      var h = params();
      if (s.col >= 0) h.set(id + ".sort", s.col + (s.dir > 0 ? ".asc" : ".desc"));
      if (s.q) h.set(id + ".search", s.q); else h.delete(id + ".search");
      if (s.page) h.set(id + ".page", String(s.page + 1)); else h.delete(id + ".page");
      if (s.size !== LENGTHS[0]) h.set(id + ".size", String(s.size)); else h.delete(id + ".size");
      var hash = h.toString();
      history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
    }
    Array.prototype.forEach.call(heads, function (th, i) {
      th.style.cursor = "pointer";
      th.addEventListener("click", function () {
        if (s.col === i) s.dir = -s.dir; else { s.col = i; s.dir = 1; }
        draw();
      });
    });
    lengths.addEventListener("change", function () { s.size = parseInt(lengths.value, 10); s.page = 0; draw(); });
    search.addEventListener("input", function () { s.q = search.value; s.page = 0; draw(); });
    draw();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table[data-page]"), setup);
  var refresh = document.querySelector('meta[name="yarnball-refresh"]');
  if (refresh) {
    var wait = 1000 * parseFloat(refresh.getAttribute("content"));
    var tick = function () {
      var a = document.activeElement;
      if (a && a.type === "search") setTimeout(tick, wait); else location.reload();
    };
    setTimeout(tick, wait);
  }
})();
"""
#: The script of every page (launcher/web/_html.py): the tables' sorting, search and paging, and the live reload.
TABLE_JS = _SCRIPT.replace("@LENGTHS@", ", ".join(str(n) for n in PAGE_LENGTHS))
