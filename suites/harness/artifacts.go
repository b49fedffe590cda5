package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/reports"
)

// artifactEntry names the report entry that carries a saved file's path.
const artifactEntry = "artifact"

// unsafeName matches what may not go into an artifact's file name.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// saveArtifacts keeps, for a spec that did not pass, what its browser
// sessions showed: a screenshot of each (but of a page that stopped
// answering) and the browser console, under the
// report folder's artifacts/, and the probe's last report beside them.
func (tc *TestContext) saveArtifacts() {
	rep := ginkgo.CurrentSpecReport()
	if tc.Config.ReportDir == "" || len(tc.surfaces) == 0 || !rep.Failed() {
		return
	}
	dir := filepath.Join(tc.Config.ReportDir, reports.ArtifactsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	base := unsafeName.ReplaceAllString(strings.Join(rep.Labels(), "-"), "_")
	if len(base) > 60 {
		base = strings.TrimRight(base[:60], "-_")
	}
	base = fmt.Sprintf("%03d-%s", rep.LeafNodeLocation.LineNumber%1000, base)
	for i, s := range tc.surfaces {
		// Each attempt of a retried spec keeps its own files.
		name := reports.ArtifactName(base, rep.NumAttempts, i+1, "")
		// A page that stopped answering draws nothing more: its
		// screenshot would only wait out the timeout.
		if !tc.stuck[s] {
			ctx, cancel := context.WithTimeout(tc.ctx(), 5*time.Second)
			png, err := s.Screenshot(ctx)
			cancel()
			if err == nil && len(png) > 0 {
				tc.writeArtifact(dir, name+".png", png)
			}
		}
		var lines []string
		for _, l := range s.Console() {
			lines = append(lines, fmt.Sprintf("[%s] %s", l.Level, l.Text))
		}
		if tc.lastProbe != nil {
			lines = append(lines, "", "probe report:", string(tc.lastProbe))
		}
		if len(lines) > 0 {
			text := []byte(strings.Join(lines, "\n") + "\n")
			if tc.Config.Redact != nil {
				text = tc.Config.Redact(text)
			}
			tc.writeArtifact(dir, name+".log", text)
		}
	}
}

// writeArtifact writes one file and records it on the spec.
func (tc *TestContext) writeArtifact(dir, name string, data []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		return
	}
	ginkgo.AddReportEntry(artifactEntry, reports.ArtifactsDir+"/"+name)
}
