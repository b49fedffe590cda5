package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/reports"
)

// The harness's own static tools: the same code that is its oracle for
// hashes, projection and readiness.

// packageArg parses flags and the single package folder argument. A code
// >= 0 means stop with that exit code.
func packageArg(c *cli, cmd string, fs *flag.FlagSet, args []string) (string, int) {
	pos, code := parseArgs(c, fs, args)
	if code >= 0 {
		return "", code
	}
	if len(pos) != 1 {
		fmt.Fprintf(c.stderr, "conformance %s: want exactly one package folder, got %d arguments\n", cmd, len(pos))
		return "", exitUsage
	}
	dir := pos[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		fmt.Fprintf(c.stderr, "conformance %s: %s is not a package folder\n", cmd, dir)
		return "", exitUsage
	}
	return dir, -1
}

// loadPackage loads a package folder and prints why when it cannot be used.
func loadPackage(c *cli, cmd, dir string) (*agentpkg.Package, int) {
	p, err := agentpkg.Load(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		var pe *agentpkg.PackageError
		if errors.As(err, &pe) {
			printFindings(c, pe.Findings)
		} else {
			fmt.Fprintf(c.stderr, "conformance %s: %v\n", cmd, err)
		}
		return nil, exitFailed
	}
	return p, -1
}

// printFindings prints one line per finding, naming the file and field
// (findings of drivers/agentpkg already start with them). A file name or a
// message the package supplied that is not plain text is quoted
// (reports.ForTerminal): no finding controls the terminal or spans lines.
func printFindings(c *cli, fs []protocol.Finding) {
	for _, f := range fs {
		msg := f.Message
		if f.File != "" && !strings.HasPrefix(msg, f.File) {
			loc := f.File
			if f.Field != "" {
				loc += ": field " + f.Field
			}
			msg = loc + ": " + msg
		}
		fmt.Fprintf(c.stderr, "%s: %s [%s]\n", reports.ForTerminal(f.Severity), reports.ForTerminal(msg), reports.ForTerminal(f.Code))
	}
}

func cmdValidate(c *cli, args []string) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the verdict as JSON")
	dir, code := packageArg(c, "validate", fs, args)
	if code >= 0 {
		return code
	}
	p, code := loadPackage(c, "validate", dir)
	if p == nil {
		return code
	}
	// Validation plus what can be verified without a release: the signature
	// file's manifest hash and capability ranges against the standard profile.
	findings := agentpkg.Verify(p, nil, agentpkg.FullProfile())
	ok := !agentpkg.HasErrors(findings)
	if *asJSON {
		out := protocol.VerifyResult{OK: ok, AppName: str(p.Manifest["name"]), AppVersion: str(p.Manifest["version"]),
			PackageHash: p.PackageHash, ManifestHash: p.ManifestHash, Findings: findings}
		if out.Findings == nil {
			out.Findings = []protocol.Finding{}
		}
		printJSON(c, out)
	} else {
		printFindings(c, findings)
		if ok {
			fmt.Fprintf(c.stdout, "valid: %s %s\npackageHash %s\nmanifestHash %s\n",
				reports.ForTerminal(str(p.Manifest["name"])), reports.ForTerminal(str(p.Manifest["version"])), p.PackageHash, p.ManifestHash)
		}
	}
	if !ok {
		return exitFailed
	}
	return exitOK
}

func cmdProject(c *cli, args []string) int {
	fs := flag.NewFlagSet("project", flag.ContinueOnError)
	dir, code := packageArg(c, "project", fs, args)
	if code >= 0 {
		return code
	}
	p, code := loadPackage(c, "project", dir)
	if p == nil {
		return code
	}
	if !p.Valid() {
		printFindings(c, p.Findings)
		return exitFailed
	}
	raw, err := agentpkg.Project(p, agentpkg.Profile{Capabilities: agentpkg.FullProfile()})
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance project: %v\n", err)
		return exitFailed
	}
	c.stdout.Write(raw)
	fmt.Fprintln(c.stdout)
	return exitOK
}

func cmdReadiness(c *cli, args []string) int {
	fs := flag.NewFlagSet("readiness", flag.ContinueOnError)
	clock := fs.String("clock", "", "RFC 3339 instant to treat as now (default: the wall clock)")
	entry := fs.String("entry", "", "judge this entry only")
	secrets := multiFlag{}
	fs.Var(&secrets, "secret", "secret key to treat as configured (repeatable)")
	disabled := multiFlag{}
	fs.Var(&disabled, "disable-capability", "capability to treat as disabled (repeatable)")
	dir, code := packageArg(c, "readiness", fs, args)
	if code >= 0 {
		return code
	}
	now := time.Now().UTC()
	if *clock != "" {
		t, err := parseClock(*clock)
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance readiness: %v\n", err)
			return exitUsage
		}
		now = t
	}
	p, code := loadPackage(c, "readiness", dir)
	if p == nil {
		return code
	}
	caps := agentpkg.FullProfile()
	for _, d := range disabled {
		caps[d] = protocol.Capability{Version: caps[d].Version, Enabled: false}
	}
	set := map[string]bool{}
	for _, s := range secrets {
		set[strings.TrimSpace(s)] = true
	}
	res := agentpkg.Readiness(p, agentpkg.Env{Now: now, Capabilities: caps, Secrets: set, Entry: *entry})
	printJSON(c, res)
	if !res.OK {
		return exitFailed
	}
	return exitOK
}

func printJSON(c *cli, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(c.stderr, "encoding JSON: %v\n", err)
		return
	}
	c.stdout.Write(append(b, '\n'))
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// parseClock reads --clock: an RFC 3339 instant. Its error is in the
// user's terms, with an example; never Go's reference layout
// (2006-01-02T15:04:05Z07:00), which reads like a date the user gave.
func parseClock(v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--clock %q is not an RFC 3339 date and time: want e.g. 2026-03-01T12:00:00Z or 2026-03-01T13:00:00+01:00 (date, T, time, then Z or an offset)", v)
	}
	return t, nil
}
