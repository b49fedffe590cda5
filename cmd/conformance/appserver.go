package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/mockhost"
)

// cmdAppServerRelay relays its stdio to the harness's App Server: the
// command a host that spawns its App Server as a sidecar is told to run.
func cmdAppServerRelay(c *cli, args []string) int {
	fl := flag.NewFlagSet("appserver-relay", flag.ContinueOnError)
	pos, code := parseArgs(c, fl, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(c.stderr, "conformance appserver-relay: give the App Server's loopback ADDR (host:port)")
		return exitUsage
	}
	if _, err := mockhost.LoopbackAddr(pos[0]); err != nil {
		fmt.Fprintf(c.stderr, "conformance appserver-relay: ADDR %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := appserver.Relay(ctx, pos[0], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(c.stderr, "conformance appserver-relay: %v\n", err)
		return exitHarness
	}
	return exitOK
}
