// The harness's Host Bridge v1 probe. The harness installs it in an
// isolated world of the app's frame (DevTools Page.addScriptToEvaluateOnNewDocument
// with a world name): it shares the frame's DOM and window but none of the
// page's JavaScript, so the app's own scripts, which the host serves and
// could rewrite, can neither see it nor change what it reports. It records
// every trusted message the frame receives and runs the scenario the
// harness hands to __agentappProbe.run(scenario), whose value (a JSON
// string) goes back to the harness over DevTools, never through the page.
// It judges nothing: the harness judges what it saw against the standard.
(function () {
  "use strict";
  if (globalThis.__agentappProbe) return;
  var PROTOCOL = "lime.agentApp.bridge";
  var MAX_RESULT = 4 << 20;
  var received = [];
  var applied = [];
  // untrusted counts message events a script of the page made up
  // (dispatchEvent): only the browser's own are evidence.
  var untrusted = 0;

  function clone(v) {
    try { return JSON.parse(JSON.stringify(v)); } catch (e) { return String(v); }
  }

  window.addEventListener("message", function (ev) {
    if (!ev.isTrusted) { untrusted++; return; }
    var data = clone(ev.data);
    received.push({ origin: ev.origin, fromParent: ev.source === window.parent, data: data });
    // A conforming app applies theme tokens to its own root only (spec 000,
    // Host Bridge v1: theme synchronization).
    if (data && typeof data === "object" && data.payload && typeof data.payload === "object") {
      var theme = data.type === "theme:update" ? data.payload : (data.type === "host:snapshot" ? data.payload.theme : null);
      if (theme && theme.variables && typeof theme.variables === "object") {
        Object.keys(theme.variables).forEach(function (k) {
          if (k.indexOf("--") === 0) document.documentElement.style.setProperty(k, String(theme.variables[k]));
        });
        applied.push(clone(theme.variables));
      }
    }
  }, true);

  function envelope(defaults, send) {
    var msg = { protocol: PROTOCOL, version: 1, appId: defaults.appId, entryKey: defaults.entryKey };
    Object.keys(send).forEach(function (k) {
      if (send[k] === null) delete msg[k]; else msg[k] = send[k];
    });
    return msg;
  }

  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }

  function matches(m, want) {
    var d = m.data;
    if (!d || typeof d !== "object") return false;
    if (want.types && want.types.indexOf(d.type) < 0) return false;
    if (want.type && d.type !== want.type) return false;
    if (want.requestId !== undefined && d.requestId !== want.requestId) return false;
    return true;
  }

  // unnumbered tells a host:response or host:error from the host that
  // carries no requestId: an answer no request can be matched with.
  function unnumbered(m) {
    var d = m.data;
    return m.fromParent && d && typeof d === "object" && (d.type === "host:response" || d.type === "host:error") &&
      (d.requestId === undefined || d.requestId === null || d.requestId === "");
  }

  // awaitMessage waits for a message matching want. Awaiting a requestId,
  // it stops waiting shortly (GRACE_MS) after the host answered without
  // one: the answer came and cannot be matched, and waiting out the whole
  // timeout would only make a broken host slow to judge.
  var GRACE_MS = 300;
  async function awaitMessage(want, timeoutMs, from) {
    var deadline = Date.now() + (timeoutMs || 3000);
    var scanned = from;
    for (;;) {
      var n = 0;
      for (var i = from; i < received.length; i++) {
        if (matches(received[i], want) && ++n >= (want.atLeast || 1)) return { ok: true, index: i };
      }
      if (want.requestId !== undefined) {
        for (; scanned < received.length; scanned++) {
          if (unnumbered(received[scanned])) deadline = Math.min(deadline, Date.now() + GRACE_MS);
        }
      }
      if (Date.now() > deadline) return { ok: false, detail: "no matching message within " + (timeoutMs || 3000) + " ms" };
      await sleep(20);
    }
  }

  // nested posts a message to the host from a frame nested in the app's:
  // "same-origin" is an about:blank child sharing the app's origin (right
  // origin, wrong source); "url" is a page of a third origin, given by the
  // harness, that posts the message in its URL fragment to window.top.
  async function nested(spec) {
    var f = document.createElement("iframe");
    f.style.display = "none";
    if (spec.mode === "url") {
      f.src = spec.url + "#" + encodeURIComponent(JSON.stringify(spec.message));
      var loaded = new Promise(function (r) { f.onload = r; });
      document.body.appendChild(f);
      await Promise.race([loaded, sleep(3000)]);
      await sleep(spec.settleMs || 300);
      return { ok: true };
    }
    document.body.appendChild(f);
    var doc = f.contentDocument;
    if (!doc) return { ok: false, detail: "the same-origin child has no document" };
    var s = doc.createElement("script");
    s.textContent = "window.parent.parent.postMessage(" + JSON.stringify(spec.message) + ", '*');";
    (doc.body || doc.documentElement).appendChild(s);
    await sleep(spec.settleMs || 300);
    return { ok: true };
  }

  function attempt(fn) {
    try {
      var v = fn();
      return { reached: v !== undefined && v !== null && v !== false, detail: typeof v === "string" ? v.slice(0, 200) : typeof v };
    } catch (e) {
      return { reached: false, detail: String(e && e.name || e) };
    }
  }

  async function fetchAttempt(url) {
    try {
      var timeout = function () { return sleep(3000).then(function () { throw new Error("timeout"); }); };
      var res = await Promise.race([fetch(url, { credentials: "omit", mode: "cors" }), timeout()]);
      var body = "";
      try { body = (await Promise.race([res.text(), timeout()])).slice(0, 4096); } catch (e) { body = ""; }
      return { url: url, reached: true, status: res.status, body: body };
    } catch (e) {
      return { url: url, reached: false, detail: String(e && e.message || e) };
    }
  }

  // socketAttempt opens a WebSocket to url and reports whether it opened.
  function socketAttempt(url) {
    return new Promise(function (resolve) {
      var settle = function (reached, detail) { resolve({ url: url, reached: reached, status: 0, detail: detail }); };
      var ws;
      try { ws = new WebSocket(url); } catch (e) { settle(false, String(e && e.name || e)); return; }
      var timer = setTimeout(function () { try { ws.close(); } catch (e) { /* closing */ } settle(false, "timeout"); }, 3000);
      ws.onopen = function () { clearTimeout(timer); ws.close(); settle(true, "open"); };
      ws.onerror = function () { clearTimeout(timer); settle(false, "error"); };
    });
  }

  // contain tries to reach the host's DOM, location and storage from the
  // frame (spec 000, Host Bridge v1: the frame "must not directly access
  // host DOM ... or credentials"). What the page's own globals offer
  // (Node, Electron, Tauri) lives in the main world, which this world
  // cannot see: the harness reads those itself over DevTools.
  async function contain(spec) {
    var out = {
      parentDOM: attempt(function () { return window.parent !== window && window.parent.document.documentElement.outerHTML; }),
      topDOM: attempt(function () { return window.top !== window && window.top.document.documentElement.outerHTML; }),
      parentLocation: attempt(function () { return window.parent !== window && window.parent.location.href; }),
      parentStorage: attempt(function () { return window.parent !== window && JSON.stringify(window.parent.localStorage); }),
      fetches: []
    };
    var urls = spec.hostURLs || [];
    for (var i = 0; i < urls.length; i++) out.fetches.push(await fetchAttempt(urls[i]));
    var sockets = spec.socketURLs || [];
    for (var j = 0; j < sockets.length; j++) out.fetches.push(await socketAttempt(sockets[j]));
    return out;
  }

  // The browser storage an app's frame keeps (spec 002, Required desktop
  // host behavior: app data namespaced by app; Electron surfaces in
  // host-owned session partitions): keep writes a value under a name in
  // each member and reads it back in the same frame, recall reads what a
  // frame finds under the name. A member the frame cannot use reports why.
  var KEPT_DB = "agentapp-conformance-kept";

  function idb(mode, name, value) {
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () { reject(new Error("timeout")); }, 3000);
      var done = function (v) { clearTimeout(timer); resolve(v); };
      var fail = function (e) { clearTimeout(timer); reject(e || new Error("failed")); };
      var open = indexedDB.open(KEPT_DB, 1);
      open.onupgradeneeded = function () { open.result.createObjectStore("kept"); };
      open.onerror = function () { fail(open.error); };
      open.onsuccess = function () {
        var db = open.result;
        var tx = db.transaction("kept", mode);
        var req = mode === "readwrite" ? tx.objectStore("kept").put(value, name) : tx.objectStore("kept").get(name);
        req.onerror = function () { db.close(); fail(req.error); };
        tx.oncomplete = function () { db.close(); done(mode === "readwrite" ? value : req.result); };
      };
    });
  }

  function cookieValue(name) {
    var parts = document.cookie.split(";");
    for (var i = 0; i < parts.length; i++) {
      var kv = parts[i].trim();
      if (kv.indexOf(name + "=") === 0) return kv.slice(name.length + 1);
    }
    return null;
  }

  async function member(read) {
    try {
      var v = await read();
      return { value: v === undefined || v === null ? "" : String(v) };
    } catch (e) {
      return { value: "", detail: String(e && (e.name + ": " + e.message) || e) };
    }
  }

  async function recall(spec) {
    return {
      localStorage: await member(function () { return window.localStorage.getItem(spec.name); }),
      cookie: await member(function () { return cookieValue(spec.name); }),
      indexedDB: await member(function () { return idb("readonly", spec.name); })
    };
  }

  async function keep(spec) {
    var wrote = {
      localStorage: await member(function () { window.localStorage.setItem(spec.name, spec.value); }),
      cookie: await member(function () {
        // A frame of another site than its host page may keep a cookie
        // only as SameSite=None; Secure (loopback counts as secure).
        document.cookie = spec.name + "=" + spec.value + "; path=/; max-age=600";
        if (cookieValue(spec.name) !== spec.value) {
          document.cookie = spec.name + "=" + spec.value + "; path=/; max-age=600; SameSite=None; Secure";
        }
      }),
      indexedDB: await member(function () { return idb("readwrite", spec.name, spec.value); })
    };
    var back = await recall(spec);
    Object.keys(back).forEach(function (k) {
      if (wrote[k].detail) back[k].detail = "writing: " + wrote[k].detail;
    });
    return back;
  }

  function dump(storage) {
    var o = {};
    try { for (var i = 0; i < storage.length; i++) { var k = storage.key(i); o[k] = storage.getItem(k); } } catch (e) { o = { error: String(e) }; }
    return o;
  }

  function page() {
    var html = document.documentElement.outerHTML;
    return {
      href: location.href, referrer: document.referrer, cookie: document.cookie, name: window.name,
      localStorage: dump(window.localStorage), sessionStorage: dump(window.sessionStorage),
      html: html.length > 200000 ? html.slice(0, 200000) : html
    };
  }

  async function run(scenario) {
    var defaults = { appId: scenario.appId, entryKey: scenario.entryKey };
    var steps = [];
    var result = { steps: steps };
    var mark = 0;
    for (var i = 0; i < (scenario.steps || []).length; i++) {
      var st = scenario.steps[i];
      var r = { ok: true };
      try {
        if (st.send) {
          mark = received.length;
          window.parent.postMessage(envelope(defaults, st.send), "*");
        } else if ("raw" in st) {
          mark = received.length;
          window.parent.postMessage(st.raw, "*");
        } else if (st.await) {
          r = await awaitMessage(st.await, st.timeoutMs, st.since === "start" ? 0 : mark);
        } else if (st.sleep) {
          await sleep(st.sleep);
        } else if (st.nested) {
          mark = received.length;
          r = await nested(st.nested);
        } else if (st.contain) {
          result.containment = await contain(st.contain);
        } else if (st.keep) {
          result.storage = await keep(st.keep);
        } else if (st.recall) {
          result.storage = await recall(st.recall);
        } else if (st.page) {
          result.page = page();
        } else {
          r = { ok: false, detail: "unknown step " + JSON.stringify(st) };
        }
      } catch (e) {
        r = { ok: false, detail: String(e && e.message || e) };
      }
      r.step = i;
      steps.push(r);
    }
    result.received = received.slice();
    result.applied = applied.slice();
    result.untrusted = untrusted;
    var text = JSON.stringify(result);
    if (text.length > MAX_RESULT) return JSON.stringify({ tooLarge: text.length });
    return text;
  }

  // instance names this document: the harness tells a reloaded frame by it.
  var words = new Uint32Array(2);
  crypto.getRandomValues(words);
  globalThis.__agentappProbe = { run: run, version: 2, instance: words[0].toString(36) + words[1].toString(36) };
})();
