package browser

import (
	"context"
	"testing"
	"time"
)

// BenchmarkLaunch measures starting a browser and closing it (process
// killed and reaped, profile removed).
func BenchmarkLaunch(b *testing.B) {
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		br, err := LaunchChromium(ctx, Options{})
		cancel()
		skipWithoutBrowser(b, err)
		if err != nil {
			b.Fatal(err)
		}
		if err := br.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSession measures one spec's browser work on a running browser:
// a new session, opening a small page, one Eval, closing.
func BenchmarkSession(b *testing.B) {
	br := launch(b)
	site := serve(b, "127.0.0.1", html(map[string]string{"/": `<!doctype html><title>bench</title><p>hello`}))
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s, err := br.NewSession(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Open(ctx, site+"/"); err != nil {
			b.Fatal(err)
		}
		var title string
		if err := s.Eval(ctx, "", "document.title", &title); err != nil || title != "bench" {
			b.Fatalf("Eval: %q, %v", title, err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
}
