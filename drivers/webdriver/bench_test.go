package webdriver

import (
	"context"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
)

// launchForBench starts a WebKit browser over WebDriver for a benchmark.
func launchForBench(b *testing.B) *Browser {
	b.Helper()
	if testing.Short() {
		b.Skip("-short: starts a browser")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	wb, err := Launch(ctx, Options{Engine: browser.EngineWebKit})
	if err != nil {
		b.Skipf("no WebKit over WebDriver here: %v", err)
	}
	b.Cleanup(func() { _ = wb.Close() })
	return wb
}

// BenchmarkWebKitPage measures what each browser spec pays on WebKit: a
// new session (a fresh MiniBrowser on a kept WebKitWebDriver), a
// cross-site page opened, the probe's world installed in its frame and one
// evaluation there, and the session closed.
func BenchmarkWebKitPage(b *testing.B) {
	wb := launchForBench(b)
	host := crossSitePage(b)
	ctx := context.Background()
	for b.Loop() {
		p, err := wb.NewPage(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Open(ctx, host); err != nil {
			b.Fatal(err)
		}
		if err := p.Install(ctx, "http://localhost", "w", probeLike); err != nil {
			b.Fatal(err)
		}
		var s string
		if err := p.EvalIn(ctx, "http://localhost", "w", "globalThis.probe.instance", &s); err != nil {
			b.Fatal(err)
		}
		if err := p.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWebKitEvalIn measures one evaluation in the app frame's world:
// the frame looked up from the top, then the script.
func BenchmarkWebKitEvalIn(b *testing.B) {
	wb := launchForBench(b)
	host := crossSitePage(b)
	ctx := context.Background()
	p, err := wb.NewPage(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	if err := p.Open(ctx, host); err != nil {
		b.Fatal(err)
	}
	if err := p.Install(ctx, "http://localhost", "w", probeLike); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var s string
		if err := p.EvalIn(ctx, "http://localhost", "w", "globalThis.probe.instance", &s); err != nil {
			b.Fatal(err)
		}
	}
}
