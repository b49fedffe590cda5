package main

import (
	"flag"
	"fmt"
	"net"
	"strings"

	"github.com/agentapp/conformance/mockhost"
)

// cmdMockhost runs the reference host on stdio or a loopback TCP address,
// optionally with faults switched on.
func cmdMockhost(c *cli, args []string) int {
	fl := flag.NewFlagSet("mockhost", flag.ContinueOnError)
	stdio := fl.Bool("stdio", false, "serve one session on stdin/stdout")
	tcp := fl.String("tcp", "", "serve on this loopback `ADDR` (e.g. 127.0.0.1:7700)")
	devtools := fl.Bool("devtools", false, "be a browser runtime as an Electron host is: open surfaces in a Chromium of its own and answer app/launch with its DevTools endpoint and target")
	browserBin := fl.String("browser", "", "Chromium `BINARY` for --devtools (default: chromium on PATH)")
	webview := fl.String("webview", "", "be a host whose web view a WebDriver session starts, as tauri-driver starts a Tauri app: with --tcp, start the WebKitGTK browser `BINARY` (the arguments after -- go to it, then the window's page), show every surface and the app center in its one window and answer app/launch with that window; the host exits with the browser")
	list := fl.Bool("list-faults", false, "list the faults: name, the requirement ids that fail under it (what it breaks, then its recorded collateral), # description")
	listVariants := fl.Bool("list-variants", false, "list the variants: name, requirement ids it touches, # description (clause)")
	var faults, variants multiFlag
	fl.Var(&faults, "fault", "switch a fault `NAME` on (repeatable)")
	fl.Var(&variants, "variant", "switch a variant `NAME` on (repeatable): a reading the standard allows that mockhost does not take by default")
	pos, code := parseArgs(c, fl, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 && *webview == "" {
		fmt.Fprintf(c.stderr, "conformance mockhost: unexpected argument %q\n", pos[0])
		return exitUsage
	}
	if *webview != "" && (*tcp == "" || *devtools) {
		fmt.Fprintln(c.stderr, "conformance mockhost: --webview wants --tcp ADDR (the harness reaches the host there) and excludes --devtools")
		return exitUsage
	}
	if *list {
		for _, f := range mockhost.Faults() {
			fmt.Fprintf(c.stdout, "%s %s # %s\n", f.Name, strings.Join(f.Fails(), " "), f.Description)
		}
		return exitOK
	}
	if *listVariants {
		for _, v := range mockhost.Variants() {
			fmt.Fprintf(c.stdout, "%s %s # %s (%s)\n", v.Name, strings.Join(v.Touches, " "), v.Description, v.Clause)
		}
		return exitOK
	}
	fs, err := mockhost.ParseFaults(faults)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance mockhost: %v\n", err)
		return exitUsage
	}
	vs, err := mockhost.ParseVariants(variants)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance mockhost: %v\n", err)
		return exitUsage
	}
	o := mockhost.Options{Faults: fs, Variants: vs, DevTools: *devtools, Browser: *browserBin, WebView: *webview, WebViewArgs: pos}
	switch {
	case *stdio && *tcp != "":
		fmt.Fprintln(c.stderr, "conformance mockhost: give --stdio or --tcp, not both")
		return exitUsage
	case *stdio:
		if err := mockhost.ServeStdio(o); err != nil {
			fmt.Fprintf(c.stderr, "conformance mockhost: %v\n", err)
			return exitHarness
		}
		return exitOK
	case *tcp != "":
		if _, err := mockhost.LoopbackAddr(*tcp); err != nil {
			fmt.Fprintf(c.stderr, "conformance mockhost: --tcp %v\n", err)
			return exitUsage
		}
		err := mockhost.ServeTCP(*tcp, o, func(a net.Addr) {
			fmt.Fprintf(c.stderr, "listening on %s\n", a)
		})
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance mockhost: %v\n", err)
			return exitHarness
		}
		return exitOK
	default:
		fmt.Fprintln(c.stderr, "conformance mockhost: give --stdio, --tcp ADDR, --list-faults or --list-variants (conformance mockhost -h)")
		return exitUsage
	}
}
