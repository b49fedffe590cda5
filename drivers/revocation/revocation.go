// Package revocation is the revocation service the harness plays on
// loopback (spec 000, Package signing and revocation: "Call
// revocation.checkUrl (with cache) for revocation status"). The texts
// define no wire format; the harness's is the smallest one
// (docs/host-control-protocol.md, "The revocation service the harness
// plays"):
//
//	GET <checkUrl>?packageHash=sha256:…&manifestHash=sha256:…
//	200 {"revoked": false}
//	200 {"revoked": true, "reason": "…"}
//
// Each spec scripts what it answers (revoked hashes, down, hanging, an
// error status, a redirect, garbage, JSON without the status) and
// reads back which requests it saw: the evidence of whether, and when,
// the host asked.
package revocation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Mode is how the service answers.
type Mode int

// Modes.
const (
	Answer      Mode = iota // answer from the revoked set
	Down                    // answer 503
	Hang                    // answer nothing until the host gives up (at most MaxHang)
	Garbage                 // answer 200 with a body that is not JSON
	ErrorStatus             // answer 500 with a body that reads as not revoked
	Redirect                // answer 302 to a path of the service that is not found
	NoStatus                // answer 200 with JSON that has no revoked member
	NullStatus              // answer 200 with JSON whose revoked member is null
)

// Describe says how the service answers in mode m, for spec texts and
// findings.
func (m Mode) Describe() string {
	switch m {
	case Down:
		return "is down (503)"
	case Hang:
		return "never answers"
	case Garbage:
		return "answers 200 with a body that is not JSON"
	case ErrorStatus:
		return `answers 500 with the body {"revoked": false}`
	case Redirect:
		return "answers 302 to a path that is not found"
	case NoStatus:
		return `answers 200 {"status": "degraded"}, JSON without the revoked member`
	case NullStatus:
		return `answers 200 {"revoked": null}`
	}
	return "answers from its revoked set"
}

// MaxHang bounds how long a hanging answer holds a request.
const MaxHang = 30 * time.Second

// Request is one request the service saw.
type Request struct {
	PackageHash  string
	ManifestHash string
	At           time.Time
}

// Service is a revocation endpoint on 127.0.0.1.
type Service struct {
	srv *http.Server
	url string

	// seen is told of every request and what it was answered.
	seen func(r Request, answer string)

	mu       sync.Mutex
	mode     Mode
	revoked  map[string]string // packageHash -> reason
	requests []Request
	done     chan struct{}
}

// Start listens on a free loopback port; seen (may be nil) is told of
// every request and what it was answered, for the transcript.
func Start(seen func(r Request, answer string)) (*Service, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("revocation service: listening on loopback: %w", err)
	}
	s := &Service{revoked: map[string]string{}, done: make(chan struct{}), seen: seen}
	mux := http.NewServeMux()
	mux.HandleFunc("/check", s.check)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	s.url = "http://" + ln.Addr().String() + "/check"
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the checkUrl a package names.
func (s *Service) URL() string { return s.url }

// Close stops the service; hanging requests end at once.
func (s *Service) Close() error {
	s.mu.Lock()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("revocation service: %w", err)
	}
	return nil
}

// Reset forgets the script and the requests seen.
func (s *Service) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode, s.revoked, s.requests = Answer, map[string]string{}, nil
}

// SetMode sets how the service answers from now on.
func (s *Service) SetMode(m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

// Revoke makes packageHash revoked, for reason.
func (s *Service) Revoke(packageHash, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revoked[packageHash] = reason
}

// Requests lists the requests seen for packageHash ("" for all).
func (s *Service) Requests(packageHash string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if packageHash == "" || r.PackageHash == packageHash {
			out = append(out, r)
		}
	}
	return out
}

func (s *Service) check(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := Request{PackageHash: q.Get("packageHash"), ManifestHash: q.Get("manifestHash"), At: time.Now()}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	mode := s.mode
	reason, revoked := s.revoked[req.PackageHash]
	s.mu.Unlock()
	tell := func(answer string) {
		if s.seen != nil {
			s.seen(req, answer)
		}
	}
	switch mode {
	case Down:
		tell("503 (the service is down)")
		http.Error(w, "revocation service unavailable", http.StatusServiceUnavailable)
		return
	case Hang:
		tell("no answer (the service hangs)")
		select {
		case <-r.Context().Done():
		case <-s.done:
		case <-time.After(MaxHang):
		}
		return
	case Garbage, ErrorStatus, NoStatus, NullStatus:
		status, body := http.StatusOK, map[Mode]string{
			Garbage:     "<html><body>revocation status: ok</body></html>",
			ErrorStatus: `{"revoked": false}`,
			NoStatus:    `{"status": "degraded", "message": "revocation database is rebuilding"}`,
			NullStatus:  `{"revoked": null}`,
		}[mode]
		if mode == ErrorStatus {
			status = http.StatusInternalServerError
		}
		tell(fmt.Sprintf("%d %s (%s)", status, body, mode.Describe()))
		if mode != Garbage {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body + "\n"))
		return
	case Redirect:
		tell("302 to /moved (not found)")
		http.Redirect(w, r, "/moved?"+r.URL.RawQuery, http.StatusFound)
		return
	}
	st := Status{Revoked: revoked, Reason: reason}
	b, _ := json.Marshal(st)
	tell("200 " + string(b))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(b, '\n'))
}

// Status is the service's answer.
type Status struct {
	Revoked bool   `json:"revoked"`
	Reason  string `json:"reason,omitempty"`
}
