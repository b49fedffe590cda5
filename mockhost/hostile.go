package mockhost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sourcegraph/jsonrpc2"
)

// floodBytes is the size the flood-on-project answer announces and streams.
const floodBytes = 100 * 1024 * 1024

// floodChunk is one write of the flood; the flood never holds more.
const floodChunk = 64 * 1024

// flood writes a frame announcing floodBytes of an answer to id and streams
// that much valid-looking JSON until the peer stops reading (flood-on-project).
// A write failure leaves the stream unusable, so the connection is dropped.
func (s *session) flood(id jsonrpc2.ID) {
	idJSON, _ := json.Marshal(id)
	head := []byte(`{"jsonrpc":"2.0","id":` + string(idJSON) + `,"result":{"ok":true,"projection":{"padding":"`)
	tail := []byte(`"}}}`)
	pad := bytes.Repeat([]byte("x"), floodChunk)
	err := s.stream.WriteRaw(func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", floodBytes); err != nil {
			return err
		}
		if _, err := w.Write(head); err != nil {
			return err
		}
		for left := floodBytes - len(head) - len(tail); left > 0; {
			n := min(left, len(pad))
			if _, err := w.Write(pad[:n]); err != nil {
				return err
			}
			left -= n
		}
		_, err := w.Write(tail)
		return err
	})
	if err != nil {
		s.kill()
	}
}

// crash writes a frame header announcing the whole answer, half of its body,
// and dies (crash-mid-uninstall): under ServeStdio the process exits with
// status 3; in-process the connection is dropped and refuses further work.
func (s *session) crash(id jsonrpc2.ID, result any) {
	resp := &jsonrpc2.Response{ID: id}
	body := []byte("{}")
	if err := resp.SetResult(result); err == nil {
		if b, err := json.Marshal(resp); err == nil {
			body = b
		}
	}
	_ = s.stream.WriteRaw(func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
			return err
		}
		_, err := w.Write(body[:len(body)/2])
		return err
	})
	if s.host.exit != nil {
		_ = s.host.Close() // the temp dir goes; os.Exit skips deferred calls
		s.host.exit(3)
		return
	}
	s.kill()
}

// garbageBody is what garbage-on-list answers with: framed correctly, not JSON.
func garbageBody() []byte {
	return []byte("\x00\xff<html><body>500 Internal Server Error</body></html>\x1b[0m not json")
}

// garbage writes a well-framed body that is not JSON (garbage-on-list).
func (s *session) garbage() {
	body := garbageBody()
	err := s.stream.WriteRaw(func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
			return err
		}
		_, err := w.Write(body)
		return err
	})
	if err != nil {
		s.kill()
	}
}

// hostileFaults are the faults of hostile hosts (the sites above; page.go
// for the spinning pages and the forgers): the harness must fail the check
// at hand, record it and go on.
func hostileFaults() []Fault {
	return []Fault{
		// Meant, as for the forgers below, every requirement judged on the
		// page it spoils: nothing narrower is honest when no page loads.
		{Name: "host-page-spins", Hostile: true, Breaks: bridgeRequirements("BRIDGE-CONTAINMENT", "CENTER-BLOCKERS"),
			Description: "the host's pages loop for ever: a surface's host page never finishes loading, and the app center stops answering once it has loaded"},
		// Forgers: a host that has no Host Bridge and writes what the
		// probe would report gains no pass (the probe is the harness's,
		// in a world the page cannot reach).
		{Name: "forge-probe", Hostile: true, Breaks: bridgeRequirements(),
			Description: "no Host Bridge at all: the app frame runs a forger that writes a conforming host's findings where the probe's report used to be read and dispatches made-up host messages"},
		{Name: "forge-probe-devtools", Hostile: true, Breaks: bridgeRequirements("BRIDGE-CONTAINMENT", "CENTER-BLOCKERS",
			// Every requirement judged on a surface: none can be judged
			// in a browser the operator did not name or trust.
			"AGENT-PROJECTIONS", "AGENT-APPROVAL", "AGENT-CANCEL-MAPPED", "AGENT-EVENTS-PROJECTED", "AGENT-FAIL-CLOSED", "AGENT-NO-LEAK", "AGENT-RESUME-CONFIRMED",
			"AGENT-STRUCTURED-OUTPUT", "AGENT-TASK-MAPPED", "APPSERVER-HANDSHAKE", "APP-DISABLE", "EVIDENCE-RELEASE-PROVENANCE", "LIFECYCLE-ISOLATED",
			"ROLLBACK-KEEPS-DATA", "STORAGE-NAMESPACED", "UNINSTALL-APP-STORAGE", "UNINSTALL-EXPORT", "UPDATE-KEEPS-DATA", "UPDATE-KEEPS-EVIDENCE", "UPDATE-VERIFIED"),
			Description: "forge-probe in a browser of the host's own: app/launch and app/center name the DevTools endpoint of a Chromium the host started"},
		// Meant: READY-STATUS, the plainest answer app/readiness owes;
		// whatever else is judged through readiness is collateral.
		{Name: "hang-on-readiness", Hostile: true,
			Breaks:      []string{"READY-STATUS"},
			Description: "app/readiness never answers"},
		// Meant: the two answers app/uninstall owes (keeping and deleting
		// data); what later specs cannot do on a dead host is collateral.
		{Name: "crash-mid-uninstall", Hostile: true,
			Breaks:      []string{"UNINSTALL-KEEP-DATA", "UNINSTALL-DELETE-DATA"},
			Description: "the host writes half an answer to app/uninstall and dies"},
		// Meant: INSTALL-PINNED, judged on app/list's answer alone; the
		// specs that only read app/list on the way are collateral.
		{Name: "garbage-on-list", Hostile: true,
			Breaks:      []string{"INSTALL-PINNED"},
			Description: "app/list is answered with bytes that are not JSON"},
		{Name: "leave-setsid-child", Hostile: true, Escapes: true,
			Description: "at start the host forks `sleep 300` into a session of its own (setsid) and never stops it, so it would outlive the run"},
		// Meant: PROJ-CONTENTS, what package/project owes; the specs that
		// read a projection on the way are collateral.
		{Name: "flood-on-project", Hostile: true,
			Breaks:      []string{"PROJ-CONTENTS"},
			Description: "package/project is answered with 100 MB"},
	}
}

// bridgeRequirements lists the requirements of the bridge levels
// (capability, desktop-p2) judged on what a launched app surface's Host
// Bridge does (what a host with no bridge cannot pass), and more. The
// levels a fault's requirements count in are the levels its child runs
// (selftest --scope levels): a surface fault that named a requirement of a
// higher level would run, and fail, every surface spec there too.
func bridgeRequirements(more ...string) []string {
	return append([]string{"BRIDGE-SNAPSHOT", "BRIDGE-SNAPSHOT-FIELDS", "BRIDGE-CAPS-DECLARED", "BRIDGE-ENVELOPE", "BRIDGE-REQUESTID",
		"BRIDGE-INVALID-ANSWERED", "BRIDGE-SOURCE", "BRIDGE-ORIGIN", "BRIDGE-ENVELOPE-CHECKED", "BRIDGE-APPID", "BRIDGE-FAIL-CLOSED",
		"BRIDGE-NO-LEAK", "BRIDGE-OPEN-EXTERNAL", "BRIDGE-DOWNLOAD", "BRIDGE-TOAST-TEXT", "BRIDGE-THEME-UPDATE",
		"BRIDGE-VISIBILITY", "BRIDGE-NAVIGATE"}, more...)
}
