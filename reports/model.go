// Package reports holds the conformance report model (docs/report-format.md),
// its verdict rules and its renderings.
package reports

import "time"

// FormatVersion is the version of report.json's format.
const FormatVersion = "agentapp-conformance/report/v1"

// Outcomes of a spec or a requirement. A requirement's outcome is the worst
// of its specs' outcomes: failed > skipped > passed; not-run when no spec ran.
const (
	Passed  = "passed"
	Failed  = "failed"
	Skipped = "skipped"
	NotRun  = "not-run"
)

// Level verdicts.
const (
	LevelPassed    = "passed"
	LevelFailed    = "failed"
	LevelNotJudged = "not-judged"
)

// Report is report.json.
type Report struct {
	Format       string              `json:"format"`
	Harness      Harness             `json:"harness"`
	Standard     Standard            `json:"standard"`
	Host         Host                `json:"host"`
	Environment  Environment         `json:"environment"`
	StartedAt    time.Time           `json:"startedAt"`
	FinishedAt   time.Time           `json:"finishedAt"`
	DurationMs   int64               `json:"durationMs"`
	Requested    []string            `json:"levelsRequested"`
	LevelsPassed []string            `json:"levelsPassed"`
	Levels       []LevelResult       `json:"levels"`
	Requirements []RequirementResult `json:"requirements"`
	Fixtures     []Digest            `json:"fixtures"`
	FixtureSet   string              `json:"fixtureSetDigest"`
	Transcript   TranscriptRef       `json:"transcript"`
	Readings     []Reading           `json:"readings,omitempty"`
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
	ArtifactDigest  string   `json:"artifactDigest,omitempty"`
}

// Environment is where the run happened.
type Environment struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	GoVersion string `json:"goVersion"`
	Browser   string `json:"browser,omitempty"`
}

// LevelResult is the verdict on one level, derived from requirement outcomes.
type LevelResult struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Family   string `json:"family"`
	Verdict  string `json:"verdict"`
	Reason   string `json:"reason,omitempty"`
	Passed   int    `json:"passed"`
	Failed   int    `json:"failed"`
	Warnings int    `json:"warnings"`
	Skipped  int    `json:"skipped"`
	NotRun   int    `json:"notRun"`
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
	ID       string       `json:"id"`
	Title    string       `json:"title"`
	Strength string       `json:"strength"`
	Levels   []string     `json:"levels"`
	Clause   Clause       `json:"clause"`
	Outcome  string       `json:"outcome"`
	Reason   string       `json:"reason,omitempty"`
	Specs    []SpecResult `json:"specs"`
}

// SpecResult is one Ginkgo spec's outcome.
type SpecResult struct {
	Name       string   `json:"name"`
	Outcome    string   `json:"outcome"`
	Failure    *Failure `json:"failure,omitempty"`
	DurationMs int64    `json:"durationMs"`
	// Exchanges are the transcript sequence numbers [from, to] of the
	// control-protocol exchanges this spec made.
	Exchanges [2]int `json:"exchanges"`
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
