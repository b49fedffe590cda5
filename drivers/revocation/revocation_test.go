package revocation

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"
)

func get(t *testing.T, s *Service, hash string, timeout time.Duration) (*http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"?packageHash="+url.QueryEscape(hash), nil)
	if err != nil {
		t.Fatal(err)
	}
	return http.DefaultClient.Do(req)
}

// TestServiceAnswersAsScripted: revoked hashes, down and hanging, and every
// request recorded.
func TestServiceAnswersAsScripted(t *testing.T) {
	var mu sync.Mutex
	var answers []string
	s, err := Start(func(r Request, answer string) {
		mu.Lock()
		defer mu.Unlock()
		answers = append(answers, r.PackageHash+" "+answer)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	s.Revoke("sha256:bad", "key compromised")
	for hash, want := range map[string]bool{"sha256:bad": true, "sha256:good": false} {
		resp, err := get(t, s, hash, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var st Status
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || st.Revoked != want {
			t.Errorf("%s: %+v, %v; want revoked=%v", hash, st, err, want)
		}
		_ = resp.Body.Close()
	}
	s.SetMode(Down)
	if resp, err := get(t, s, "sha256:good", 2*time.Second); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("down: %v %v", resp, err)
	}
	s.SetMode(Hang)
	if _, err := get(t, s, "sha256:good", 200*time.Millisecond); err == nil {
		t.Error("hang: an answer came")
	}
	if n := len(s.Requests("sha256:good")); n != 3 {
		t.Errorf("requests for sha256:good: %d, want 3", n)
	}
	mu.Lock()
	if len(answers) != 4 || !slices.Contains(answers, `sha256:bad 200 {"revoked":true,"reason":"key compromised"}`) ||
		!slices.Contains(answers, "sha256:good 503 (the service is down)") {
		t.Errorf("answers told: %q", answers)
	}
	mu.Unlock()
	s.Reset()
	if n := len(s.Requests("")); n != 0 {
		t.Errorf("after Reset: %d requests", n)
	}
}

// TestServiceFailureModes: every mode that withholds a status answers
// something no host may read as a revocation status.
func TestServiceFailureModes(t *testing.T) {
	s, err := Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	for mode, want := range map[Mode]int{Garbage: 200, ErrorStatus: 500, Redirect: 404, NoStatus: 200, NullStatus: 200} {
		s.SetMode(mode)
		resp, err := get(t, s, "sha256:good", 2*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", mode.Describe(), err)
		}
		var st struct {
			Revoked *bool `json:"revoked"`
		}
		decodeErr := json.NewDecoder(resp.Body).Decode(&st)
		_ = resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: HTTP %d, want %d", mode.Describe(), resp.StatusCode, want)
		}
		if resp.StatusCode == 200 && decodeErr == nil && st.Revoked != nil {
			t.Errorf("%s: a 200 answer with a revocation status", mode.Describe())
		}
	}
}
