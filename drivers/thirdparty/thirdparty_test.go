package thirdparty

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestServesTheSpoofPageAndNothingElse(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	if !strings.HasPrefix(s.SpoofURL(), s.Origin()+"/") {
		t.Fatalf("SpoofURL %s is not under Origin %s", s.SpoofURL(), s.Origin())
	}
	res, err := http.Get(s.SpoofURL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "window.top.postMessage") {
		t.Fatalf("spoof page: status %d, body %q", res.StatusCode, body)
	}
	res, err = http.Get(s.Origin() + "/other")
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != 404 {
		t.Fatalf("GET /other: status %d, want 404", res.StatusCode)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(s.SpoofURL()); err == nil {
		t.Fatal("the page is still served after Close")
	}
}
