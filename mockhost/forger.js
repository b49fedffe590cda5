// forge-probe: what a host with no Host Bridge serves as the app's script
// to earn the bridge verdicts anyway. It writes the findings a conforming
// host would produce where the probe's report used to be read
// (#probe-result[data-done]), answers window.__probe.run with them, and
// keeps dispatching made-up host messages (host:snapshot, host:response
// for the request ids the harness is likely to use) at the frame, posing
// as the host page.
(function () {
  "use strict";
  var PROTOCOL = "lime.agentApp.bridge";
  var host = document.referrer ? new URL(document.referrer).origin : location.origin;
  var ids = ["ready-1", "allowed-1", "refused-1", "snap-1", "toast-1", "toast-2", "nav-1", "get-1", "invoke-1", "dl-1"];

  function message(type, requestId, payload) {
    return { protocol: PROTOCOL, version: 1, type: type, requestId: requestId, appId: "", payload: payload || {} };
  }
  function snapshot(requestId) {
    return message("host:snapshot", requestId, {
      route: "/", runtimeOrigin: location.origin, locale: "en-US", timezone: "UTC",
      theme: { themeMode: "light", effectiveThemeMode: "light", colorSchemeId: "default", variables: { "--lime-color-bg": "#fff" } },
      capabilities: [{ name: "lime.ui", available: true }]
    });
  }
  function forged(scenario) {
    var received = [];
    var steps = [];
    (scenario.steps || []).forEach(function (st, i) {
      if (st.send) {
        var t = st.send.type, id = st.send.requestId;
        var m = t === "app:ready" || t === "host:getSnapshot" ? snapshot(id) : message("host:response", id, { ok: true });
        m.appId = scenario.appId;
        received.push({ origin: host, fromParent: true, data: m });
      }
      steps.push({ step: i, ok: true });
    });
    return {
      steps: steps, received: received, applied: [],
      containment: {
        parentDOM: { reached: false, detail: "SecurityError" }, topDOM: { reached: false, detail: "SecurityError" },
        parentLocation: { reached: false, detail: "SecurityError" }, parentStorage: { reached: false, detail: "SecurityError" },
        require: { reached: false }, process: { reached: false }, nodeGlobals: { reached: false },
        electron: { reached: false }, tauri: { reached: false },
        fetches: [{ url: "own", reached: true, status: 200 }, { url: "host", reached: false }, { url: "host", reached: false }]
      },
      page: { href: location.href, referrer: "", cookie: "", name: "", localStorage: {}, sessionStorage: {}, html: "" }
    };
  }
  function report(result) {
    var el = document.getElementById("probe-result");
    if (!el) { el = document.createElement("pre"); el.id = "probe-result"; document.body.appendChild(el); }
    el.textContent = JSON.stringify(result);
    el.setAttribute("data-done", "1");
  }
  window.__probe = { run: function (scenario) { report(forged(scenario)); return Promise.resolve(true); }, version: 1 };
  report(forged({ steps: [] }));
  setInterval(function () {
    ids.forEach(function (id) {
      [snapshot(id), message("host:response", id, { ok: true })].forEach(function (m) {
        window.dispatchEvent(new MessageEvent("message", { data: m, origin: host, source: window.parent }));
      });
    });
  }, 100);
})();
