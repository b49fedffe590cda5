package harness

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
)

// Resources records what the current spec created (installed apps, folders)
// and releases it last-in-first-out when the spec ends, pass or fail.
// "Not found" is tolerated; so is a host that died, since the next spec
// reconnects and resets it. Other errors are collected and reported once.
type Resources struct {
	tc    *TestContext
	steps []cleanupStep
}

type cleanupStep struct {
	what string
	undo func() error
}

func newResources(tc *TestContext) *Resources { return &Resources{tc: tc} }

// Track registers an undo step.
func (r *Resources) Track(what string, undo func() error) {
	r.steps = append(r.steps, cleanupStep{what: what, undo: undo})
}

// TrackDir removes a folder at the end of the spec.
func (r *Resources) TrackDir(dir string) {
	r.Track("folder "+dir, func() error { return os.RemoveAll(dir) })
}

// TrackApp uninstalls an app (deleting its data) at the end of the spec.
func (r *Resources) TrackApp(appID string) {
	if appID == "" {
		return
	}
	r.Track("app "+appID, func() error {
		err := r.tc.Call(protocol.MethodUninstall, protocol.UninstallParams{AppID: appID}, &protocol.UninstallResult{})
		var he *control.HostError
		var te *control.TransportError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &he) && he.Code == protocol.CodeAppNotFound:
			return nil
		case errors.As(err, &te), r.tc.client == nil || !r.tc.client.Alive():
			return nil
		}
		return err
	})
}

// Cleanup runs every undo step, newest first, and fails the spec once if any
// of them failed.
func (r *Resources) Cleanup() {
	var errs []string
	for i := len(r.steps) - 1; i >= 0; i-- {
		s := r.steps[i]
		if err := s.undo(); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", s.what, err))
		}
	}
	r.steps = nil
	if len(errs) > 0 {
		Errorf("cleanup failed: %s", strings.Join(errs, "; "))
	}
}
