package main

import (
	"os/exec"
	"testing"

	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// The static commands are run as whole processes, the way a packager's
// script or an editor plugin runs them: what these benchmarks measure is
// process start (package initialisation included) plus the command's work.
// Compare with the floor any Node CLI pays (BenchmarkNodeStartupFloor): the
// standard's reference CLI is a Node program.

// runProcess runs the harness binary with args and fails the benchmark
// unless it exits with want.
func runProcess(b *testing.B, bin string, want int, args ...string) {
	b.Helper()
	cmd := exec.Command(bin, args...)
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			b.Fatalf("conformance %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	if code != want {
		b.Fatalf("conformance %v exited %d, want %d", args, code, want)
	}
}

// BenchmarkValidateProjectProcesses: one op is `conformance validate` and
// `conformance project` of full-app (every layered file), as two processes.
func BenchmarkValidateProjectProcesses(b *testing.B) {
	bin := buildBinary(b)
	dir, err := platformconformance.Materialize("full-app", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		runProcess(b, bin, exitOK, "validate", dir)
		runProcess(b, bin, exitOK, "project", dir)
	}
}

// BenchmarkLevelsProcess: one op is `conformance levels` as a process.
func BenchmarkLevelsProcess(b *testing.B) {
	bin := buildBinary(b)
	for b.Loop() {
		runProcess(b, bin, exitOK, "levels")
	}
}

// BenchmarkVersionProcess is the harness binary's own floor: start,
// initialise every package, print one line.
func BenchmarkVersionProcess(b *testing.B) {
	bin := buildBinary(b)
	for b.Loop() {
		runProcess(b, bin, exitOK, "version")
	}
}

// BenchmarkNodeStartupFloor is `node -e 0`, the least any Node CLI (the
// reference CLI among them) pays per process.
func BenchmarkNodeStartupFloor(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("node is not installed")
	}
	for b.Loop() {
		if err := exec.Command(node, "-e", "0").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
