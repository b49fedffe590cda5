package browser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// stillUsable checks that b serves a new session after a hostile page.
func stillUsable(t *testing.T, b *Browser, site string) {
	t.Helper()
	s := session(t, b)
	if err := s.Open(within(t, 5*time.Second), site+"/ok"); err != nil {
		t.Fatalf("after the hostile page: %v", err)
	}
	var n int
	if err := s.Eval(within(t, 2*time.Second), "", "6 * 7", &n); err != nil || n != 42 {
		t.Fatalf("after the hostile page: Eval = %d, %v", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// quick asserts that a call bounded by d returned an error, in time, whose
// text has want.
func quick(t *testing.T, what string, d time.Duration, call func() error, want string) {
	t.Helper()
	start := time.Now()
	err := call()
	took := time.Since(start)
	switch {
	case err == nil:
		t.Errorf("%s succeeded, want an error", what)
	case !strings.Contains(err.Error(), want):
		t.Errorf("%s: %v, want an error saying %q", what, err, want)
	}
	if took > d+time.Second {
		t.Errorf("%s took %v with a deadline of %v", what, took, d)
	}
}

// closes asserts that Session.Close is prompt: within limit (it waits for
// the browser's answer, which a flooding page delays).
func closes(t *testing.T, s *Session, limit time.Duration) {
	t.Helper()
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if took := time.Since(start); took > limit {
		t.Errorf("Close took %v", took)
	}
}

// Hostile pages: each call at hand fails within its deadline with an error
// that says what happened, the session closes promptly, and the browser
// serves the next session.
func TestHostilePages(t *testing.T) {
	b := sharedBrowser(t)
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	pages := map[string]string{
		"/ok":       `<!doctype html><title>ok</title>`,
		"/spin":     `<!doctype html><script>setTimeout(() => { for (;;) {} }, 30)</script>`,
		"/spin-now": `<!doctype html><script>for (;;) {}</script>`,
		"/dialogs": `<!doctype html><script>
			alert("hello"); window.said = confirm("sure?"); window.named = prompt("name?", "x");
			onbeforeunload = (e) => { e.preventDefault(); return "stay"; };
			</script>`,
		"/alerts":      `<!doctype html><script>for (let i = 0; ; i++) alert("again " + i)</script>`,
		"/wander":      `<!doctype html><script>setTimeout(() => location.href = "/wander?" + Math.random(), 20)</script>`,
		"/flood":       `<!doctype html><script>setInterval(() => { for (let i = 0; i < 500; i++) console.log("flood", i, "x".repeat(200)) }, 0)</script>`,
		"/flood-sync":  `<!doctype html><script>for (let i = 0; ; i++) console.log("flood", i)</script>`,
		"/flood-large": `<!doctype html><script>console.log("y".repeat(1 << 20))</script>`,
	}
	site := serve(t, "127.0.0.1", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/never" {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<!doctype html><p>loading")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-hang:
			}
			return
		}
		html(pages)(w, r)
	})
	const d = 700 * time.Millisecond

	t.Run("never loads", func(t *testing.T) {
		s := session(t, b)
		quick(t, "Open", d, func() error { return s.Open(within(t, d), site+"/never") }, "did not load in time")
		closes(t, s, 2*time.Second)
	})
	t.Run("spins after load", func(t *testing.T) {
		s := session(t, b)
		if err := s.Open(within(t, 5*time.Second), site+"/spin"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		quick(t, "Eval", d, func() error { return s.Eval(within(t, d), "", "1", nil) }, "no answer")
		quick(t, "AwaitResult", d, func() error { return s.AwaitResult(within(t, d), "", nil) }, "did not answer")
		quick(t, "Screenshot", d, func() error { _, err := s.Screenshot(within(t, d)); return err }, "deadline")
		closes(t, s, 2*time.Second)
	})
	t.Run("spins while loading", func(t *testing.T) {
		s := session(t, b)
		quick(t, "Open", d, func() error { return s.Open(within(t, d), site+"/spin-now") }, "did not load in time")
		closes(t, s, 2*time.Second)
	})
	t.Run("script spins", func(t *testing.T) {
		s := session(t, b)
		if err := s.Open(within(t, 5*time.Second), site+"/ok"); err != nil {
			t.Fatal(err)
		}
		quick(t, "Eval", d, func() error { return s.Eval(within(t, d), "", "for (;;) {}", nil) }, "")
		// The evaluation's own timeout stopped the loop: the page answers.
		var n int
		if err := s.Eval(within(t, 2*time.Second), "", "1 + 1", &n); err != nil || n != 2 {
			t.Errorf("after a spinning script: %d, %v", n, err)
		}
		closes(t, s, 2*time.Second)
	})
	t.Run("dialogs", func(t *testing.T) {
		s := session(t, b)
		if err := s.Open(within(t, 5*time.Second), site+"/dialogs"); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Said  bool
			Named *string
		}
		if err := s.Eval(within(t, 2*time.Second), "", "({Said: window.said, Named: window.named})", &got); err != nil {
			t.Fatal(err)
		}
		if got.Said || got.Named != nil {
			t.Errorf("dialogs answered %+v, want dismissed (false, null)", got)
		}
		var confirmed bool
		if err := s.Eval(within(t, 2*time.Second), "", `confirm("again?")`, &confirmed); err != nil || confirmed {
			t.Errorf("confirm during Eval: %v, %v", confirmed, err)
		}
		var dialogs []string
		for _, l := range s.Console() {
			if l.Level == "dialog" {
				dialogs = append(dialogs, l.Text)
			}
		}
		want := []string{"alert: hello", "confirm: sure?", "prompt: name?", "confirm: again?"}
		if strings.Join(dialogs, "|") != strings.Join(want, "|") {
			t.Errorf("dialog lines %q, want %q", dialogs, want)
		}
		// The beforeunload handler cannot keep the session on the page.
		if err := s.Open(within(t, 5*time.Second), site+"/ok"); err != nil {
			t.Errorf("leaving a page with a beforeunload handler: %v", err)
		}
		closes(t, s, 2*time.Second)
	})
	t.Run("endless alerts", func(t *testing.T) {
		s := session(t, b)
		quick(t, "Open", d, func() error { return s.Open(within(t, d), site+"/alerts") }, "did not load in time")
		if n := len(s.Console()); n < 2 {
			t.Errorf("%d console lines, want the alerts recorded", n)
		}
		closes(t, s, 2*time.Second)
	})
	t.Run("navigates away", func(t *testing.T) {
		s := session(t, b)
		if err := s.Open(within(t, 5*time.Second), site+"/ok"); err != nil {
			t.Fatal(err)
		}
		quick(t, "Eval navigating away", d, func() error {
			return s.Eval(within(t, d), "", `location.href = "/wander"; new Promise(() => {})`, nil)
		}, "")
		quick(t, "AwaitResult", d, func() error { return s.AwaitResult(within(t, d), site+"/wander", nil) }, "no #probe-result")
		quick(t, "Eval in the page it left", d, func() error { return s.Eval(within(t, d), site+"/ok", "1", nil) }, "no frame's URL starts with")
		closes(t, s, 2*time.Second)
	})
	t.Run("floods the console", func(t *testing.T) {
		s := session(t, b)
		if err := s.Open(within(t, 5*time.Second), site+"/flood"); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for s.ConsoleDropped() == 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if n, dropped := len(s.Console()), s.ConsoleDropped(); n != maxConsoleLines || dropped == 0 {
			t.Errorf("%d lines kept, %d dropped: want the cap held", n, dropped)
		}
		// The page's flood competes with the answer over the one
		// connection: the call succeeds or fails, but in time.
		start := time.Now()
		var n int
		err := s.Eval(within(t, d), "", "2 + 3", &n)
		if took := time.Since(start); took > d+time.Second || (err == nil && n != 5) {
			t.Errorf("Eval on a flooding page: %d, %v after %v", n, err, took)
		}
		t.Logf("Eval on a flooding page: %d, %v", n, err)
		closes(t, s, 6*time.Second)
	})
	t.Run("floods without yielding", func(t *testing.T) {
		s := session(t, b)
		quick(t, "Open", d, func() error { return s.Open(within(t, d), site+"/flood-sync") }, "did not load in time")
		quick(t, "Eval", d, func() error { return s.Eval(within(t, d), "", "1", nil) }, "")
		closes(t, s, 6*time.Second)
	})
	t.Run("one huge line", func(t *testing.T) {
		s := session(t, b)
		if err := s.Open(within(t, 5*time.Second), site+"/flood-large"); err != nil {
			t.Fatal(err)
		}
		var lines []ConsoleLine
		for _, l := range s.Console() {
			if l.Level == "log" {
				lines = append(lines, l)
			}
		}
		if len(lines) != 1 || len(lines[0].Text) > maxLineBytes {
			t.Fatalf("got log lines %.200v, want one of at most %d bytes", lines, maxLineBytes)
		}
		closes(t, s, 2*time.Second)
	})
	// Each case ran after the one before it, in a new session of the same
	// browser; a plain page still works after the last.
	t.Run("browser still usable", func(t *testing.T) { stillUsable(t, b, site) })
}
