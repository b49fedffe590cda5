// Package browser is the harness's one small browser layer: the specs that
// look at a host's app surface open the host page, pick the app's frame,
// run scripts in it and read the result blob its probe writes. The
// surface is deliberately that narrow (navigate, select a frame by URL
// prefix, install a script in a world of the harness's and run scripts
// there or in the page, read a blob, plus console, frames and a
// screenshot for the report) so that a W3C WebDriver backend can follow
// without touching a spec: BiDi has browsingContext.navigate,
// browsingContext.getTree, script.evaluate in a frame's realm and, for the
// blob, script.evaluate in a named sandbox. This backend speaks the Chrome
// DevTools Protocol through chromedp.
//
// # Browsers and sessions
//
// A run starts ONE browser: [LaunchChromium] starts Chromium (headless by
// default) with a fresh temporary profile and talks to it over a pipe;
// [Browser.Close] kills it, kills whatever helper process outlived it
// (found by the profile directory on their command lines, or by an
// environment marker for the crash handler, which names no profile) and
// removes the profile, also after a crash. [Attach] instead connects to a
// browser somebody else runs (see "Electron hosts" below) and leaves it
// running on Close.
//
// Each spec opens its own [Session]: a new browser context (separate
// cookies, storage and cache, like an incognito window) with one page.
// [Session.Close] disposes of the context, which closes the page without
// running its unload handlers and kills its renderers, even one stuck in an
// endless loop.
//
// # Frames and site isolation
//
// A host page on http://127.0.0.1:P1 mounting its app from
// http://127.0.0.2:P2 in a sandboxed iframe is cross-site. With site
// isolation Chromium runs that frame in another renderer process (an
// out-of-process iframe, OOPIF), and DevTools shows it as a target of its
// own, of type "iframe", whose ID is the frame's ID. The page's target
// neither lists the frames below it nor runs scripts in them. A session
// therefore watches the page's target for iframe targets of its browser
// context and attaches to each (chromedp.WithTargetID on a child context
// that detaches, never closes, on cancel), learns their frames from their
// events and Page.getFrameTree, and routes each call to the target that
// runs the frame. [Session.Frames] shows the merged tree; [Session.Eval]
// and [Session.AwaitResult] take the first frame, in tree order, whose URL
// starts with a prefix, "" being the top page.
//
// A frame of the same site runs in the page's own process and is reported
// by the page's target; when a frame's document is replaced, the frames of
// the old document are forgotten (the browser reports no detach for them).
//
// # Evidence the page cannot write
//
// A page under test belongs to the host, which has an interest in the
// verdict, so nothing the harness judges is read through the page's own
// JavaScript. [Session.Install] puts a script of the harness's in an
// isolated world of a frame (Page.addScriptToEvaluateOnNewDocument with a
// world name and runImmediately): the world shares the frame's DOM and
// window but has its own globals, built-ins and DOM wrappers, which the
// page's scripts can neither see nor replace, and it is installed again in
// each document the frame's target loads, before the page's scripts run.
// [Session.EvalIn] runs a script there and returns its value over
// DevTools. [Session.Inspect] reads the DOM from a reader world made on
// demand, and [Session.Globals] lists what a frame's main world holds
// under given names by inspecting it (Runtime.getProperties,
// Runtime.globalLexicalScopeNames) without running the page's code.
// [Session.Eval] runs in the page's main world: for acting as the page
// (navigating it), never for evidence.
//
// [Session.AwaitResult] still reads a result blob a page writes into its
// document,
//
//	<pre id="probe-result" data-done>{"ok": true, ...}</pre>
//
// polling until the element carries data-done and decoding its text (at
// most 4 MiB) from the reader world: for pages of the harness's own, such
// as the third-origin page of the spoofing specs.
//
// # Never trusting the page
//
// Every call that waits is bounded by its context, and a page that never
// loads, spins in a loop, opens dialogs, navigates away or floods its
// console makes the call at hand fail within its deadline with an error
// that says what was awaited and what was last seen; the browser serves
// the next session. To that end: alert, confirm and prompt are dismissed
// at once (beforeunload is accepted, so a page cannot veto leaving) and
// recorded as console lines of level "dialog"; a session keeps 1000
// console lines of at most 4 KiB and counts the rest; an Eval passes its
// deadline to Runtime.evaluate as a timeout, so a script of its own that
// never yields is stopped; the DOM domain, which nothing here uses and
// whose document refresh would stall chromedp's event loop of a target on
// a renderer that never answers, is turned off; and each target's event
// loop keeps reading until the browser has confirmed the detach, since a
// target that stopped reading first would let its messages fill the
// shared connection and stall every session.
//
// # Electron hosts
//
// An Electron host under certification opens its DevTools endpoint, and
// only then: started with the switch --remote-debugging-port=PORT (or,
// from its main process before the app is ready,
// app.commandLine.appendSwitch("remote-debugging-port", PORT)), Chromium
// listens on 127.0.0.1:PORT and prints
//
//	DevTools listening on ws://127.0.0.1:PORT/devtools/browser/<id>
//
// on standard error; http://127.0.0.1:PORT/json/version gives the same
// address as webSocketDebuggerUrl. PORT 0 picks a free port. The endpoint
// gives full control of the app, so a host turns it on for a
// certification run only, on loopback only. The harness is then run with
// --browser-endpoint ws://127.0.0.1:PORT/devtools/browser/<id>, which it
// hands to [Attach] instead of launching Chromium; ws://HOST:PORT and
// http://HOST:PORT are looked up through /json/version.
package browser
