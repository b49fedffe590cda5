// Package reports holds the conformance report model (docs/report-format.md),
// its verdict rules and its renderings.
package reports

import "time"

// FormatVersion is the version of report.json's format. v2 brought the
// outcome lattice (outcome.go) and the run status.
const FormatVersion = "agentapp-conformance/report/v2"

// Verdict is a level's verdict, decided by ComputeLevels alone.
// MaxLabelFilter is the longest run.labelFilter the report schema takes
// (schema/predicate.schema.json): a run refuses a longer --label-filter
// before any spec runs.
const MaxLabelFilter = 4096

type Verdict string

// Level verdicts, worst first after not-judged (docs/report-format.md "Level
// verdicts"). Only failed says the host broke the standard.
const (
	LevelNotJudged   Verdict = "not-judged"  // this harness version cannot judge the level
	LevelFailed      Verdict = "failed"      // a must / must-not of the standard failed
	LevelInterrupted Verdict = "interrupted" // the run was stopped before the level settled
	LevelError       Verdict = "error"       // a binding requirement could not be judged
	LevelIncomplete  Verdict = "incomplete"  // a binding requirement was skipped or not run
	LevelPassed      Verdict = "passed"      // every binding requirement passed
)

// Run statuses: how the run ended.
const (
	RunComplete        = "complete"
	RunInterrupted     = "interrupted"
	RunHostUnreachable = "host-unreachable"
)

// Report is report.json: the results plus what only the local report carries.
type Report struct {
	Format string `json:"format"`
	Results
	Transcript TranscriptRef `json:"transcript"`
}

// Results is the one model of a run's outcomes and verdicts. report.json
// carries it whole; the signed predicate is the same value (Predicate).
// Outcomes and verdicts are decided once (Settle); every writer renders it.
type Results struct {
	Harness      Harness             `json:"harness"`
	Standard     Standard            `json:"standard"`
	Host         Host                `json:"host"`
	Environment  Environment         `json:"environment"`
	StartedAt    time.Time           `json:"startedAt"`
	FinishedAt   time.Time           `json:"finishedAt"`
	DurationMs   int64               `json:"durationMs"`
	Run          RunStatus           `json:"run"`
	Requested    []string            `json:"levelsRequested"`
	LevelsPassed []string            `json:"levelsPassed"`
	Levels       []LevelResult       `json:"levels"`
	Requirements []RequirementResult `json:"requirements"`
	Fixtures     []Digest            `json:"fixtures"`
	FixtureSet   string              `json:"fixtureSetDigest"`
	Readings     []Reading           `json:"readings,omitempty"`
}

// RunStatus says how the run ended and what it selected.
type RunStatus struct {
	// Status is complete, interrupted (a signal stopped it) or
	// host-unreachable (the host could not be reached twice in a row).
	Status string `json:"status"`
	// Reason says why a run did not complete, in the user's terms.
	Reason string `json:"reason,omitempty"`
	// Focus and LabelFilter are the selection the user asked for; with
	// either, unselected requirements are not-run and their levels incomplete.
	Focus       []string `json:"focus,omitempty"`
	LabelFilter string   `json:"labelFilter,omitempty"` // at most MaxLabelFilter characters
	// ExpectedFailures is the baseline the user gave (--expected-failures):
	// requirements known to fail, with why. It only changes the run's exit
	// code; every outcome and verdict in the report is as the run found it.
	ExpectedFailures []ExpectedFailure `json:"expectedFailures,omitempty"`
	// Shard is the slice of the run this report holds (--shard I/N): its
	// unselected requirements are not-run, as with a label filter.
	// `conformance merge` joins the shards and drops it.
	Shard *Shard `json:"shard,omitempty"`
	// EscapedProcesses are the processes of the host found outside its
	// process group when it stopped (stdio hosts only): the harness killed
	// them. A finding of the host's, which no requirement rests on: a host
	// MUST NOT leave processes behind in other groups
	// (docs/host-control-protocol.md, Transports).
	EscapedProcesses []EscapedProcess `json:"escapedProcesses,omitempty"`
}

// EscapedProcess is a command line of the host's processes that escaped
// its process group, and how many did.
type EscapedProcess struct {
	Command string `json:"command"` // space-separated, redacted, at most 200 bytes
	// NewSession says they made a session of their own (setsid), not only
	// a process group.
	NewSession bool `json:"newSession"`
	Count      int  `json:"count"`
}

// Shard is one slice of a run split across CI jobs: the k-th (0-based)
// requirement of the requested levels, in catalog order, is in shard
// (k mod Total)+1.
type Shard struct {
	Index int `json:"index"`
	Total int `json:"total"`
}

// ExpectedFailure is one entry of a baseline of known failures.
type ExpectedFailure struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Harness identifies the tool that produced the report.
type Harness struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
}

// Standard is the standard and version judged against.
type Standard struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Host is the host under test as it described itself in conformance/hello.
type Host struct {
	Name            string   `json:"name"`
	Version         string   `json:"version"`
	Kind            string   `json:"kind"`
	ProtocolVersion string   `json:"protocolVersion"`
	LevelsClaimed   []string `json:"levelsClaimed,omitempty"`
	Transport       string   `json:"transport"` // in-process | stdio | tcp
	Faults          []string `json:"faults,omitempty"`
	Variants        []string `json:"variants,omitempty"`
	ArtifactDigest  string   `json:"artifactDigest,omitempty"`
}

// Environment is where the run happened.
type Environment struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	GoVersion string `json:"goVersion"`
	// Browser names, as text, each browser the run judged the app surface
	// in, who chose it and where the evidence came from ("; "-separated).
	Browser string `json:"browser,omitempty"`
	// Browsers are the same browsers as values, in the same order: engine,
	// versions, protocol (docs/report-format.md, environment.browsers[]).
	Browsers []BrowserEnv `json:"browsers,omitempty"`
}

// BrowserEnv is one browser the run judged the app surface in.
type BrowserEnv struct {
	// Engine renders the surface: "chromium" (Blink, as in Chrome, Edge and
	// Electron); another engine names itself ("webkit").
	Engine        string `json:"engine"`
	EngineVersion string `json:"engineVersion"`
	// Product and Version name the browser as its maker does: "Chromium",
	// "Chrome", "Electron" with Electron's version.
	Product string `json:"product"`
	Version string `json:"version"`
	// Protocol is how the harness drives it: "devtools" (the Chrome
	// DevTools Protocol); "webdriver" for a WebDriver engine.
	Protocol string `json:"protocol"`
	// Reached says how the harness reached it: "launched headless",
	// "launched", "attached to ws://…".
	Reached string `json:"reached"`
}

// LevelResult is the verdict on one level, derived from requirement outcomes.
// The counts are of requirements by outcome; Warnings counts failed should
// and may requirements (also counted in Failed). Flaky is absent from JSON
// when zero, so a report without a flaky requirement is what a v2 harness
// before flaky wrote (docs/report-format.md "Outcomes").
type LevelResult struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Family      string  `json:"family"`
	Verdict     Verdict `json:"verdict"`
	Reason      string  `json:"reason,omitempty"`
	Passed      int     `json:"passed"`
	Failed      int     `json:"failed"`
	Warnings    int     `json:"warnings"`
	Errors      int     `json:"errors"`
	Flaky       int     `json:"flaky,omitempty"`
	Blocked     int     `json:"blocked"`
	Interrupted int     `json:"interrupted"`
	Skipped     int     `json:"skipped"`
	NotRun      int     `json:"notRun"`
	// NotApplicable counts requirements whose clause binds nothing on
	// this host (outcome not-applicable); they neither pass nor hold back
	// the level.
	NotApplicable int `json:"notApplicable,omitempty"`
}

// Clause is the text a requirement cites.
type Clause struct {
	Source  string `json:"source"`
	File    string `json:"file"`
	Section string `json:"section"`
	Quote   string `json:"quote"`
}

// RequirementResult is one requirement's outcome and evidence.
type RequirementResult struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Strength string   `json:"strength"`
	Kind     string   `json:"kind"`
	Levels   []string `json:"levels"`
	Clause   Clause   `json:"clause"`
	// Reading names the docs/decisions.md row the check rests on, when it
	// rests on a reading of the harness rather than on the clause alone.
	Reading string       `json:"reading,omitempty"`
	Outcome Outcome      `json:"outcome"`
	Reason  string       `json:"reason,omitempty"`
	Specs   []SpecResult `json:"specs"`
}

// SpecResult is one Ginkgo spec's outcome.
type SpecResult struct {
	Name       string   `json:"name"`
	Outcome    Outcome  `json:"outcome"`
	Failure    *Failure `json:"failure,omitempty"`
	DurationMs int64    `json:"durationMs"`
	// Exchanges are the transcript sequence numbers [from, to] of the
	// control-protocol exchanges this spec made.
	Exchanges [2]int `json:"exchanges"`
	// Artifacts are the files the spec saved into the report folder when
	// it did not pass (artifacts.go), with their digests.
	Artifacts []Artifact `json:"artifacts,omitempty"`
	// Engine is the browser engine a browser spec judged in ("chromium",
	// "webkit"); absent for a browser-free spec. A run over several engines
	// (--browser-engine chromium,webkit) lists a browser spec once per engine.
	Engine string `json:"engine,omitempty"`
}

// Failure says what a spec observed.
type Failure struct {
	Message  string `json:"message"`
	Location string `json:"location,omitempty"`
}

// Digest names a file or set by its SHA-256.
type Digest struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// TranscriptRef points at transcript.jsonl.
type TranscriptRef struct {
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
	Exchanges int    `json:"exchanges"`
}

// Reading records which of the readings the texts allow the host took, where
// the texts leave a choice (docs/decisions.md).
type Reading struct {
	Topic   string `json:"topic"`
	Reading string `json:"reading"`
}
