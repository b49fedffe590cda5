// The Host Bridge v1 script of agentapp-mockhost's host page (spec 000,
// Host Bridge v1; spec 001, UI runtime). BRIDGE_CONFIG is set by the page.
//
// A message is trusted only when event.source is the app frame's window and
// event.origin is the runtime origin; any other message is ignored (never
// answered) and reported to the host (POST rejected). A trusted message goes
// to the host as it came (POST message), which checks its envelope, decides,
// and answers {post: [messages], toast?}: the page shows the toast and posts
// each message to the frame, at the runtime origin only. Host pushes arrive
// on the events stream. Every request carries the surface token in a header;
// the frame never learns it. Messages are handled one at a time, in order.
(function () {
  "use strict";
  var cfg = BRIDGE_CONFIG;
  while (cfg.spin) { /* a host page that never yields (fault host-page-spins) */ }
  var queue = Promise.resolve();

  function frameWindow() {
    var f = document.getElementById("app-frame");
    return f ? f.contentWindow : null;
  }

  function later(task) {
    queue = queue.then(task).catch(function (e) {
      console.warn("host bridge:", e);
    });
  }

  function post(path, body) {
    return fetch(cfg.base + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Surface-Token": cfg.token },
      body: body,
      cache: "no-store",
      credentials: "same-origin"
    });
  }

  function deliver(list) {
    var w = frameWindow();
    if (!w || !list) return;
    list.forEach(function (m) { w.postMessage(m, cfg.runtimeOrigin); });
  }

  // A toast is text: never markup from the app.
  function toast(t) {
    var box = document.getElementById("host-toasts");
    if (!box || !t) return;
    var el = document.createElement("div");
    el.className = "host-toast";
    el.setAttribute("data-level", String(t.level || "info"));
    if (cfg.toastHTML || t.html) el.innerHTML = String(t.message);
    else el.textContent = String(t.message);
    box.appendChild(el);
  }

  function serialize(data) {
    try {
      var s = JSON.stringify(data);
      return s === undefined ? "null" : s;
    } catch (e) {
      return "null";
    }
  }

  function typeOf(data) {
    try {
      return data && typeof data === "object" && typeof data.type === "string" ? data.type.slice(0, 200) : "";
    } catch (e) {
      return "";
    }
  }

  window.addEventListener("message", function (ev) {
    var reason = "";
    if (cfg.checkSource && ev.source !== frameWindow()) reason = "source";
    else if (cfg.checkOrigin && ev.origin !== cfg.runtimeOrigin) reason = "origin";
    if (reason) {
      var report = JSON.stringify({ type: typeOf(ev.data), reason: reason, origin: String(ev.origin).slice(0, 200) });
      later(function () { return post("/rejected", report); });
      return;
    }
    var body = serialize(ev.data);
    later(function () {
      return post("/message", body)
        .then(function (res) { return res.ok ? res.json() : null; })
        .then(function (answer) {
          if (!answer) return;
          if (typeof answer.log === "string" && answer.log) console.log(answer.log); // fault host-page-logs-secret
          if (answer.toast) toast(answer.toast);
          deliver(answer.post);
          // A navigation that reloads the app frame (variant navigate-reloads-frame).
          if (typeof answer.reload === "string" && answer.reload) {
            var f = document.getElementById("app-frame");
            if (f) f.src = answer.reload;
          }
        });
    });
  });

  function pushed(data) {
    var msg = JSON.parse(data);
    // An instruction to the page alone: load the app frame afresh
    // (variant locale-reloads-frame).
    if (msg && typeof msg.reload === "string" && msg.reload) {
      var f = document.getElementById("app-frame");
      if (f) f.src = msg.reload;
      return;
    }
    later(function () { deliver([msg]); });
  }

  // The events stream is read with fetch, which can send the token header
  // (EventSource cannot). It ends when the surface is closed; a 404 then
  // stops the page from listening.
  function listen() {
    fetch(cfg.base + "/events", { headers: { "X-Surface-Token": cfg.token }, cache: "no-store", credentials: "same-origin" })
      .then(function (res) {
        if (!res.ok || !res.body) return;
        var reader = res.body.getReader();
        var decoder = new TextDecoder();
        var buf = "";
        function pump() {
          return reader.read().then(function (r) {
            if (r.done) return;
            buf += decoder.decode(r.value, { stream: true });
            var i;
            while ((i = buf.indexOf("\n\n")) >= 0) {
              var data = buf.slice(0, i).split("\n")
                .filter(function (line) { return line.indexOf("data:") === 0; })
                .map(function (line) { return line.slice(5).replace(/^ /, ""); })
                .join("\n");
              buf = buf.slice(i + 2);
              if (data) pushed(data);
            }
            return pump();
          });
        }
        return pump().then(function () { setTimeout(listen, 500); });
      })
      .catch(function () { setTimeout(listen, 1000); });
  }
  listen();
})();
