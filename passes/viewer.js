// dispatchkit graph viewer (passes/viewer.py inlines this file into each page; no other script is loaded).
// Reads the graphs from <script id="dk-data">, lays each out in layers (re-laid out when a module group opens
// or closes) and draws it as SVG. Every string from the graph is set with textContent, never as markup.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("dk-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var FILL = {placeholder: "#a6d8f0", get_attr: "#d9d2e9", view: "#eeeeee", elementwise: "#c9e7b6",
    reduction: "#ffe08a", matmul: "#f7b27a", backward: "#f4a6b7", other: "#ffffff", output: "#a6d8f0",
    group: "#d5ecc8", module: "#dfe6f6"};
  var CW = 6.4, LH = 13, PADX = 8, PADY = 5, GAP = 24, RANKGAP = 40, MAXCH = 42;

  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, cls, parent, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function cut(s) { s = String(s); return s.length > MAXCH ? s.slice(0, MAXCH - 1) + "\u2026" : s; }

  // ---- page skeleton ------------------------------------------------------------------------------------
  var top = html("div", "", document.body); top.id = "dk-top";
  html("span", "dk-brand", top, "dispatchkit viewer");
  var search = html("input", "", top); search.id = "dk-search"; search.type = "search";
  search.placeholder = "search op or node name (Enter: next)";
  var count = html("span", "", top, ""); count.id = "dk-count";
  function button(label, title, fn) {
    var b = html("button", "", top, label); b.title = title; b.addEventListener("click", fn); return b;
  }
  var main = html("div", "", document.body); main.id = "dk-main";
  var side = html("div", "", document.body); side.id = "dk-side";
  var details = html("div", "", side); details.id = "dk-details";
  html("div", "dk-hint", details, "Click a node for its details; click a module box to open it.");
  var tree = html("div", "", side); tree.id = "dk-tree";

  var panes = [];
  var active = null;

  // ---- one graph ----------------------------------------------------------------------------------------
  function Pane(g, index) {
    var self = this;
    this.g = g; this.index = index;
    this.open = {};
    g.open.forEach(function (s) { self.open[s] = true; });
    this.lr = false; this.tx = 20; this.ty = 20; this.k = 1;
    this.matches = {}; this.linked = {}; this.selected = -1;
    this.host = html("div", "dk-pane", main);
    html("div", "dk-pane-title", this.host, g.title + " \u00b7 " + g.nodes.length + " nodes");
    this.svg = svg("svg", {"class": "dk-canvas"}, this.host);
    var defs = svg("defs", {}, this.svg);
    var m = svg("marker", {id: "dk-arrow" + index, viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7",
      markerHeight: "7", orient: "auto"}, defs);
    svg("path", {d: "M0,0 L10,5 L0,10 z", fill: "#666"}, m);
    this.viewport = svg("g", {"class": "dk-viewport"}, this.svg);
    this.bindPanZoom();
    this.layout();
  }

  Pane.prototype.unitOf = function (i) {
    var s = this.g.nodes[i].scope, closed = -1;
    while (s >= 0) { if (!this.open[s]) closed = s; s = this.g.scopes[s].parent; }
    return closed >= 0 ? "s" + closed : "n" + i;
  };

  Pane.prototype.layout = function () {
    var g = this.g, self = this, units = {}, order = [], edges = {}, i;
    this.unitKey = new Array(g.nodes.length);
    for (i = 0; i < g.nodes.length; i++) {
      var key = this.unitOf(i);
      this.unitKey[i] = key;
      if (!units[key]) {
        var u = {key: key, first: i, preds: [], succs: [], members: []};
        if (key[0] === "s") {
          var sc = g.scopes[+key.slice(1)];
          u.scope = +key.slice(1);
          u.lines = [sc.fqn || "(root)", sc.cls + " \u00b7 " + sc.size + " nodes", "\u25b8 click to open"];
          u.kind = "module";
        } else {
          var n = g.nodes[i];
          u.node = i;
          u.lines = [n.short];
          if (n.op === "call_function" && n.name !== n.short.split(".")[0]) u.lines.push(n.name);
          if (n.label) u.lines.push(n.label);
          u.kind = n.kind;
        }
        units[key] = u; order.push(u);
      }
      units[key].members.push(i);
    }
    for (i = 0; i < g.nodes.length; i++) {
      var kv = this.unitKey[i];
      g.nodes[i].inputs.forEach(function (j) {
        var ku = self.unitKey[j];
        if (ku !== kv && !edges[ku + "|" + kv]) {
          edges[ku + "|" + kv] = true;
          units[ku].succs.push(units[kv]); units[kv].preds.push(units[ku]);
        }
      });
    }
    order.forEach(function (u) {
      var w = 0;
      u.lines = u.lines.map(cut);
      u.lines.forEach(function (l) { w = Math.max(w, l.length); });
      u.w = w * CW + 2 * PADX; u.h = u.lines.length * LH + 2 * PADY;
    });
    // ranks: longest path from the inputs; inputs sit just above their first use
    order.forEach(function (u) {
      u.rank = 0;
      u.preds.forEach(function (p) { u.rank = Math.max(u.rank, p.rank + 1); });
    });
    for (i = order.length - 1; i >= 0; i--) {  // then each as late as its users allow (weights next to their use)
      var v = order[i];
      if (v.succs.length) {
        var r = Infinity;
        v.succs.forEach(function (s) { r = Math.min(r, s.rank); });
        v.rank = Math.max(v.rank, r - 1);
      }
    }
    var layers = [];
    order.forEach(function (u) { (layers[u.rank] = layers[u.rank] || []).push(u); });
    for (i = 0; i < layers.length; i++) layers[i] = layers[i] || [];
    var lr = this.lr;
    function breadth(u) { return lr ? u.h : u.w; }
    function depth(u) { return lr ? u.w : u.h; }
    function place(layer) {
      layer.forEach(function (u, j) { u.pos = j; });
    }
    layers.forEach(place);
    function bary(u, list) {
      if (!list.length) return u.pos;
      var s = 0; list.forEach(function (p) { s += p.pos; }); return s / list.length;
    }
    for (var sweep = 0; sweep < 4; sweep++) {
      var down = sweep % 2 === 0;
      for (var r = 0; r < layers.length; r++) {
        var L = layers[down ? r : layers.length - 1 - r];
        L.forEach(function (u) { u.b = bary(u, down ? u.preds : u.succs); });
        L.sort(function (a, b) { return a.b - b.b || a.first - b.first; });
        place(L);
      }
    }
    // keep each open module call contiguous in every layer (so its frame encloses only its own boxes): order a
    // layer by the mean position of each enclosing call, outermost first, then by the box's own position
    var mean = {}, cnt = {};
    order.forEach(function (u) {
      u.chain = self.visibleOpenScopes(u).reverse();
      u.chain.forEach(function (s) { mean[s] = (mean[s] || 0) + u.pos; cnt[s] = (cnt[s] || 0) + 1; });
    });
    layers.forEach(function (L) {
      L.forEach(function (u) {
        u.key = u.chain.map(function (s) { return mean[s] / cnt[s]; }).concat([u.pos]);
      });
      L.sort(function (a, b) {
        for (var j = 0; j < Math.min(a.key.length, b.key.length); j++) {
          if (a.key[j] !== b.key[j]) return a.key[j] - b.key[j];
        }
        return a.key.length - b.key.length;
      });
      place(L);
    });
    // coordinates along the layer: under the mean of the inputs, without overlaps (then inputs over their users)
    function apart(a, b) {  // extra room between neighbours in different module calls (for the frames' margins)
      var common = 0;
      while (common < a.chain.length && common < b.chain.length && a.chain[common] === b.chain[common]) common++;
      return 16 * (Math.max(a.chain.length, b.chain.length) - common);
    }
    function resolve(L) {
      var end = null, prev = null;
      L.forEach(function (u) {
        var least = end === null ? -Infinity : end + GAP + apart(prev, u) + breadth(u) / 2;
        prev = u;
        u.c = Math.max(u.c, least);
        if (!isFinite(u.c)) u.c = breadth(u) / 2;
        end = u.c + breadth(u) / 2;
      });
    }
    layers.forEach(function (L) {
      L.forEach(function (u) {
        if (u.preds.length) { var s = 0; u.preds.forEach(function (p) { s += p.c; }); u.c = s / u.preds.length; }
        else u.c = -Infinity;
      });
      resolve(L);
    });
    for (r = layers.length - 1; r >= 0; r--) {
      layers[r].forEach(function (u) {
        if (!u.preds.length && u.succs.length) {
          var s = 0; u.succs.forEach(function (p) { s += p.c; }); u.c = s / u.succs.length;
        }
      });
      resolve(layers[r]);
    }
    var at = 0;
    layers.forEach(function (L) {
      var d = 0;
      L.forEach(function (u) { d = Math.max(d, depth(u)); });
      L.forEach(function (u) {
        var a = u.c - breadth(u) / 2, b = at + (d - depth(u)) / 2;
        u.x = lr ? b : a; u.y = lr ? a : b;
      });
      at += d + RANKGAP;
    });
    this.units = order; this.unitMap = units;
    this.draw();
  };

  Pane.prototype.visibleOpenScopes = function (u) {
    // the open scopes around unit u, innermost first
    var out = [], s = u.scope !== undefined ? this.g.scopes[u.scope].parent : this.g.nodes[u.node].scope;
    while (s >= 0) { if (this.open[s]) out.push(s); s = this.g.scopes[s].parent; }
    return out;
  };

  Pane.prototype.draw = function () {
    var self = this, g = this.g, vp = this.viewport, lr = this.lr;
    while (vp.firstChild) vp.removeChild(vp.firstChild);
    // clusters of open module calls (whole model excluded when it is the only top call)
    var boxes = {}, inner = {};
    this.units.forEach(function (u) {
      var chain = self.visibleOpenScopes(u);
      chain.forEach(function (s, depth) {
        var b = boxes[s] || (boxes[s] = {x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity, levels: 0});
        b.x0 = Math.min(b.x0, u.x); b.y0 = Math.min(b.y0, u.y);
        b.x1 = Math.max(b.x1, u.x + u.w); b.y1 = Math.max(b.y1, u.y + u.h);
        b.levels = Math.max(b.levels, depth);
        inner[s] = true;
      });
    });
    var tops = g.scopes.filter(function (s) { return s.parent < 0; }).length;
    var cl = svg("g", {"class": "dk-clusters"}, vp);
    Object.keys(boxes).map(Number).sort(function (a, b) { return boxes[b].levels - boxes[a].levels; })
      .forEach(function (s) {
        var sc = g.scopes[s];
        if (!sc.fqn && tops === 1) return;
        var b = boxes[s], pad = 6 + 6 * b.levels, head = 14 * (b.levels + 1);
        var grp = svg("g", {"class": "dk-cluster", "data-scope": sc.fqn}, cl);
        svg("rect", {x: b.x0 - pad, y: b.y0 - pad - head, width: b.x1 - b.x0 + 2 * pad,
          height: b.y1 - b.y0 + 2 * pad + head, rx: 6}, grp);
        var t = svg("text", {x: b.x0 - pad + 6, y: b.y0 - pad - head + 11, "class": "dk-cluster-title"}, grp);
        t.textContent = "\u25be " + sc.title;
        t.addEventListener("click", function (ev) { ev.stopPropagation(); self.toggle(s, false); });
      });
    var eg = svg("g", {"class": "dk-edges"}, vp);
    this.units.forEach(function (u) {
      u.succs.forEach(function (v) {
        var x1, y1, x2, y2, d;
        if (lr) {
          x1 = u.x + u.w; y1 = u.y + u.h / 2; x2 = v.x; y2 = v.y + v.h / 2; d = (x2 - x1) / 2;
          d = "M" + x1 + "," + y1 + " C" + (x1 + d) + "," + y1 + " " + (x2 - d) + "," + y2 + " " + x2 + "," + y2;
        } else {
          x1 = u.x + u.w / 2; y1 = u.y + u.h; x2 = v.x + v.w / 2; y2 = v.y; d = (y2 - y1) / 2;
          d = "M" + x1 + "," + y1 + " C" + x1 + "," + (y1 + d) + " " + x2 + "," + (y2 - d) + " " + x2 + "," + y2;
        }
        svg("path", {d: d, "class": "dk-edge", "marker-end": "url(#dk-arrow" + self.index + ")"}, eg);
      });
    });
    var ng = svg("g", {"class": "dk-units"}, vp);
    this.units.forEach(function (u) {
      var attrs = {"class": "dk-unit", transform: "translate(" + u.x + "," + u.y + ")",
        "data-kind": u.scope !== undefined ? "scope" : "node"};
      if (u.scope !== undefined) attrs["data-scope"] = g.scopes[u.scope].fqn;
      else attrs["data-name"] = g.nodes[u.node].name;
      var e = svg("g", attrs, ng);
      u.el = e;
      var rect = svg("rect", {width: u.w, height: u.h, rx: 5, fill: FILL[u.kind] || FILL.other}, e);
      if (u.scope !== undefined) rect.setAttribute("class", "dk-scope-box");
      u.lines.forEach(function (line, j) {
        var t = svg("text", {x: u.w / 2, y: PADY + (j + 0.8) * LH, "text-anchor": "middle"}, e);
        t.textContent = line;
      });
      var tip = svg("title", {}, e);
      tip.textContent = u.scope !== undefined ? g.scopes[u.scope].title : g.nodes[u.node].format;
      e.addEventListener("click", function (ev) {
        ev.stopPropagation();
        active = self;
        if (u.scope !== undefined) self.toggle(u.scope, true);
        else select(self, u.node, true);
      });
    });
    this.restyle();
    this.apply();
    if (active === this || (!active && this.index === 0)) showTree(this);
  };

  Pane.prototype.restyle = function () {
    var self = this;
    this.units.forEach(function (u) {
      var hits = 0, link = false, sel = false;
      u.members.forEach(function (i) {
        if (self.matches[i]) hits++;
        if (self.linked[i]) link = true;
        if (self.selected === i) sel = true;
      });
      u.el.classList.toggle("dk-match", hits > 0);
      u.el.classList.toggle("dk-linked", link);
      u.el.classList.toggle("dk-selected", sel);
      var badge = u.el.querySelector(".dk-badge");
      if (badge) u.el.removeChild(badge);
      if (hits && u.scope !== undefined) {
        var b = svg("text", {x: u.w - 4, y: -3, "text-anchor": "end", "class": "dk-badge"}, u.el);
        b.textContent = hits + (hits === 1 ? " match" : " matches");
      }
    });
  };

  Pane.prototype.toggle = function (s, open) {
    if (open) this.open[s] = true;
    else {
      var self = this;
      (function close(t) { delete self.open[t]; self.g.scopes[t].children.forEach(close); })(s);
    }
    this.layout();
  };

  Pane.prototype.reveal = function (i) {
    // open every module call around node i
    var s = this.g.nodes[i].scope, changed = false;
    while (s >= 0) { if (!this.open[s]) { this.open[s] = true; changed = true; } s = this.g.scopes[s].parent; }
    if (changed) this.layout();
  };

  Pane.prototype.center = function (i) {
    var u = this.unitMap[this.unitKey[i]], r = this.svg.getBoundingClientRect();
    this.tx = r.width / 2 - (u.x + u.w / 2) * this.k;
    this.ty = r.height / 2 - (u.y + u.h / 2) * this.k;
    this.apply();
  };

  Pane.prototype.apply = function () {
    this.viewport.setAttribute("transform", "translate(" + this.tx + "," + this.ty + ") scale(" + this.k + ")");
  };

  Pane.prototype.bounds = function () {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    this.units.forEach(function (u) {
      x0 = Math.min(x0, u.x); y0 = Math.min(y0, u.y); x1 = Math.max(x1, u.x + u.w); y1 = Math.max(y1, u.y + u.h);
    });
    return [x0, y0, x1, y1];
  };

  Pane.prototype.start = function () {
    // the first view: the top (the inputs), at the width of the pane but never smaller than readable
    var b = this.bounds(), r = this.svg.getBoundingClientRect(), w = r.width || 800, h = r.height || 600;
    var all = Math.min(w / (b[2] - b[0] + 60), h / (b[3] - b[1] + 60));
    this.k = Math.max(all, Math.min(1, w / (b[2] - b[0] + 60)), 0.6);
    if (this.k > 1.2) this.k = 1.2;
    this.tx = (w - (b[2] - b[0]) * this.k) / 2 - b[0] * this.k;
    this.ty = 30 - b[1] * this.k;
    this.apply();
  };

  Pane.prototype.fit = function () {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    this.units.forEach(function (u) {
      x0 = Math.min(x0, u.x); y0 = Math.min(y0, u.y); x1 = Math.max(x1, u.x + u.w); y1 = Math.max(y1, u.y + u.h);
    });
    var r = this.svg.getBoundingClientRect(), w = r.width || 800, h = r.height || 600;
    this.k = Math.min(1.5, Math.max(0.05, Math.min(w / (x1 - x0 + 60), h / (y1 - y0 + 60))));
    this.tx = (w - (x1 - x0) * this.k) / 2 - x0 * this.k;
    this.ty = 30 - y0 * this.k;
    this.apply();
  };

  Pane.prototype.zoom = function (f, cx, cy) {
    var r = this.svg.getBoundingClientRect();
    if (cx === undefined) { cx = r.width / 2; cy = r.height / 2; }
    var k = Math.min(4, Math.max(0.03, this.k * f));
    this.tx = cx - (cx - this.tx) * (k / this.k);
    this.ty = cy - (cy - this.ty) * (k / this.k);
    this.k = k;
    this.apply();
  };

  Pane.prototype.bindPanZoom = function () {
    var self = this, drag = null;
    this.svg.addEventListener("mousedown", function (ev) { drag = {x: ev.clientX, y: ev.clientY, tx: self.tx, ty: self.ty}; });
    window.addEventListener("mousemove", function (ev) {
      if (!drag) return;
      self.tx = drag.tx + ev.clientX - drag.x; self.ty = drag.ty + ev.clientY - drag.y; self.apply();
    });
    window.addEventListener("mouseup", function () { drag = null; });
    this.svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      var r = self.svg.getBoundingClientRect();
      self.zoom(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - r.left, ev.clientY - r.top);
    }, {passive: false});
  };

  // ---- selection, details, links -------------------------------------------------------------------------
  function row(parent, key, value, pre) {
    if (value === undefined || value === null || value === "") return;
    var r = html("div", "dk-row", parent);
    html("span", "dk-key", r, key);
    html(pre ? "pre" : "span", "dk-val", r, String(value));
  }

  function select(pane, i, link) {
    panes.forEach(function (p) { p.selected = -1; if (link) p.linked = {}; });
    pane.selected = i;
    var n = pane.g.nodes[i];
    details.textContent = "";
    html("div", "dk-d-title", details, n.name);
    row(details, "op", n.op);
    row(details, "target", n.target);
    row(details, "value", n.label);
    row(details, "module", n.module);
    row(details, "function", n.fn);
    row(details, "node", n.format, true);
    row(details, "stack trace", n.stack, true);
    if (link && panes.length === 2) {
      var other = panes[1 - pane.index], ids = DATA.links[pane.index][i] || [];
      var box = html("div", "dk-row", details);
      html("span", "dk-key", box, "matches in " + other.g.title);
      if (!ids.length) html("span", "dk-val", box, "none");
      ids.forEach(function (j) {
        other.linked[j] = true;
        var a = html("a", "dk-link", box, other.g.nodes[j].name);
        a.href = "#";
        a.addEventListener("click", function (ev) { ev.preventDefault(); other.reveal(j); other.center(j); });
      });
      if (ids.length) { ids.forEach(function (j) { other.reveal(j); }); other.restyle(); other.center(ids[0]); }
    }
    panes.forEach(function (p) { p.restyle(); });
  }

  function showTree(pane) {
    tree.textContent = "";
    var g = pane.g;
    if (!g.scopes.length) { html("div", "dk-hint", tree, "(no module stacks in " + g.title + ")"); return; }
    html("div", "dk-d-title", tree, "modules of " + g.title);
    (function add(list, depth) {
      list.forEach(function (s) {
        var sc = g.scopes[s], item = html("div", "dk-tree-item", tree);
        item.style.paddingLeft = (depth * 12) + "px";
        item.setAttribute("data-scope", sc.fqn);
        item.textContent = (pane.open[s] ? "\u25be " : "\u25b8 ") + (sc.fqn || "(root)") + "  " + sc.cls;
        item.addEventListener("click", function () { active = pane; pane.toggle(s, !pane.open[s]); });
        if (pane.open[s]) add(sc.children, depth + 1);
      });
    })(g.scopes.map(function (s, i) { return s.parent < 0 ? i : -1; }).filter(function (i) { return i >= 0; }), 0);
  }

  // ---- search ---------------------------------------------------------------------------------------------
  var hits = [], hitAt = -1;
  function runSearch() {
    var q = search.value.trim().toLowerCase();
    hits = []; hitAt = -1;
    panes.forEach(function (p) {
      p.matches = {};
      if (q) p.g.nodes.forEach(function (n, i) {
        if (n.name.toLowerCase().indexOf(q) >= 0 || n.target.toLowerCase().indexOf(q) >= 0
            || n.short.toLowerCase().indexOf(q) >= 0) { p.matches[i] = true; hits.push([p, i]); }
      });
      p.restyle();
    });
    count.textContent = q ? hits.length + (hits.length === 1 ? " match" : " matches") : "";
  }
  search.addEventListener("input", runSearch);
  search.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter" || !hits.length) return;
    hitAt = (hitAt + 1) % hits.length;
    var p = hits[hitAt][0], i = hits[hitAt][1];
    active = p;
    p.reveal(i); select(p, i, false); p.center(i);
    count.textContent = (hitAt + 1) + " of " + hits.length;
  });

  // ---- buttons --------------------------------------------------------------------------------------------
  button("fit", "show the whole graph", function () { panes.forEach(function (p) { p.fit(); }); });
  button("+", "zoom in", function () { panes.forEach(function (p) { p.zoom(1.25); }); });
  button("\u2212", "zoom out", function () { panes.forEach(function (p) { p.zoom(0.8); }); });
  button("\u21c4", "left to right / top to bottom", function () {
    panes.forEach(function (p) { p.lr = !p.lr; p.layout(); p.fit(); });
  });
  button("open all", "open every module group", function () {
    panes.forEach(function (p) { p.g.scopes.forEach(function (s, i) { p.open[i] = true; }); p.layout(); p.fit(); });
  });
  button("close all", "close every module group", function () {
    panes.forEach(function (p) { p.open = {}; p.layout(); p.fit(); });
  });

  DATA.graphs.forEach(function (g, i) { panes.push(new Pane(g, i)); });
  document.body.classList.toggle("dk-two", panes.length === 2);
  panes.forEach(function (p) { p.start(); });
  window.dkViewer = {panes: panes, search: function (q) { search.value = q; runSearch(); return hits.length; }};
  document.body.setAttribute("data-ready", "1");
})();
