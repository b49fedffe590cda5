package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agentapp/conformance/levels"
)

// Kinds of diff input.
const (
	InputReport    = "report"    // report.json
	InputEnvelope  = "envelope"  // report.intoto.json, read without verifying
	InputStatement = "statement" // report.statement.json (unsigned)
)

// DiffInput is one side of a diff.
type DiffInput struct {
	Kind   string
	Report *Report
}

// LoadForDiff reads report.json, a DSSE envelope or an unsigned statement.
// An envelope's payload is decoded without verifying its signatures: diff
// compares runs, verify judges them.
func LoadForDiff(path string) (*DiffInput, error) {
	data, err := ReadLimited(path, MaxInputBytes)
	if err != nil {
		return nil, err
	}
	in, err := ParseForDiff(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return in, nil
}

// ParseForDiff is LoadForDiff on bytes.
func ParseForDiff(data []byte) (*DiffInput, error) {
	if len(data) > MaxInputBytes {
		return nil, fmt.Errorf("input is %d bytes, over the limit of %d", len(data), MaxInputBytes)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("input is not UTF-8")
	}
	// Refused before the probe copies anything (each reader below checks
	// again what it parses).
	if err := checkJSONBounds(data); err != nil {
		return nil, fmt.Errorf("input refused: %w", err)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("input is not a JSON object: %w", err)
	}
	switch {
	case probe["payloadType"] != nil:
		pe, err := ParseEnvelope(data)
		if err != nil {
			return nil, err
		}
		if pe.Envelope.PayloadType != PayloadType {
			return nil, fmt.Errorf("envelope payloadType is %q, expected %q", pe.Envelope.PayloadType, PayloadType)
		}
		r, err := reportFromStatement(pe.Payload)
		if err != nil {
			return nil, err
		}
		return &DiffInput{Kind: InputEnvelope, Report: r}, nil
	case probe["_type"] != nil:
		r, err := reportFromStatement(data)
		if err != nil {
			return nil, err
		}
		return &DiffInput{Kind: InputStatement, Report: r}, nil
	case probe["format"] != nil:
		r, err := ParseReport(data)
		if err != nil {
			return nil, err
		}
		return &DiffInput{Kind: InputReport, Report: r}, nil
	}
	return nil, fmt.Errorf("input is neither report.json (no \"format\"), an in-toto statement (no \"_type\") nor a DSSE envelope (no \"payloadType\")")
}

// reportFromStatement reads the predicate of a conformance statement,
// checked against the predicate schema.
func reportFromStatement(payload []byte) (*Report, error) {
	s, err := compilePredicateSchema()
	if err != nil {
		return nil, err
	}
	_, p, err := decodeStatement(payload, s)
	if err != nil {
		return nil, err
	}
	if err := CheckOutcomes(p.Requirements); err != nil {
		return nil, fmt.Errorf("predicate: %w", err)
	}
	return p.Report(), nil
}

// Change is one requirement whose outcome differs between two runs.
type Change struct {
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Strength string  `json:"strength"`
	Old      Outcome `json:"old"` // "" when the requirement appeared
	New      Outcome `json:"new"` // "" when it vanished
	Message  string  `json:"message,omitempty"`
}

// DiffResult lists what changed from an old run to a new one.
type DiffResult struct {
	// Regressed: passed before, failed now; or a must / must-not that
	// passed before and is now skipped or not run.
	Regressed []Change `json:"regressed"`
	// Recovered: not passed before, passed now.
	Recovered []Change `json:"recovered"`
	// Changed: any other change of outcome (failed to skipped, ...).
	Changed  []Change `json:"changed"`
	Appeared []Change `json:"appeared"`
	Vanished []Change `json:"vanished"`
	// LevelsLost passed in the old run and do not in the new one;
	// LevelsGained the reverse. Both are recomputed from outcomes, over the
	// levels either run requested.
	LevelsLost   []string `json:"levelsLost"`
	LevelsGained []string `json:"levelsGained"`
}

// HasRegression is true when a requirement regressed or a level was lost:
// the condition on which `conformance diff` exits 1.
func (d *DiffResult) HasRegression() bool {
	return len(d.Regressed) > 0 || len(d.LevelsLost) > 0
}

// Diff compares two runs by requirement id.
func Diff(old, new *Report, cat *levels.Catalog) (*DiffResult, error) {
	if cat == nil {
		cat = levels.Default()
	}
	d := &DiffResult{Regressed: []Change{}, Recovered: []Change{}, Changed: []Change{}, Appeared: []Change{},
		Vanished: []Change{}, LevelsLost: []string{}, LevelsGained: []string{}}
	oldBy := map[string]RequirementResult{}
	for _, r := range old.Requirements {
		oldBy[r.ID] = r
	}
	newBy := map[string]RequirementResult{}
	for _, r := range new.Requirements {
		newBy[r.ID] = r
	}
	for _, n := range orderRequirements(cat, new.Requirements) {
		c := Change{ID: n.ID, Title: n.Title, Strength: strengthOf(cat, n), New: n.Outcome, Message: failureMessage(n)}
		o, ok := oldBy[n.ID]
		switch {
		case !ok:
			d.Appeared = append(d.Appeared, c)
		case o.Outcome == n.Outcome:
		case o.Outcome == Passed && (n.Outcome == Failed || levels.Strength(c.Strength).Binding()):
			c.Old = o.Outcome
			d.Regressed = append(d.Regressed, c)
		case n.Outcome == Passed:
			c.Old = o.Outcome
			d.Recovered = append(d.Recovered, c)
		default:
			c.Old = o.Outcome
			d.Changed = append(d.Changed, c)
		}
	}
	for _, o := range orderRequirements(cat, old.Requirements) {
		if _, ok := newBy[o.ID]; !ok {
			d.Vanished = append(d.Vanished, Change{ID: o.ID, Title: o.Title, Strength: strengthOf(cat, o), Old: o.Outcome})
		}
	}
	var ids []string
	for _, id := range append(append([]string{}, old.Requested...), new.Requested...) {
		if _, ok := cat.Level(id); ok {
			ids = append(ids, id)
		}
	}
	ids, err := orderLevels(cat, ids)
	if err != nil {
		return nil, err
	}
	ol, err := ComputeLevels(cat, ids, old.Requirements)
	if err != nil {
		return nil, fmt.Errorf("old run: %w", err)
	}
	nl, err := ComputeLevels(cat, ids, new.Requirements)
	if err != nil {
		return nil, fmt.Errorf("new run: %w", err)
	}
	for i := range ol {
		switch {
		case ol[i].Verdict == LevelPassed && nl[i].Verdict != LevelPassed:
			d.LevelsLost = append(d.LevelsLost, ol[i].ID)
		case ol[i].Verdict != LevelPassed && nl[i].Verdict == LevelPassed:
			d.LevelsGained = append(d.LevelsGained, ol[i].ID)
		}
	}
	return d, nil
}

func strengthOf(cat *levels.Catalog, r RequirementResult) string {
	if cr, ok := cat.Requirement(r.ID); ok {
		return string(cr.Strength)
	}
	return r.Strength
}

// failureMessage is the first line of the message of the first spec whose
// outcome is the requirement's, cut to 200 bytes.
func failureMessage(r RequirementResult) string {
	for _, s := range r.Specs {
		if s.Outcome != Passed && s.Outcome == r.Outcome && s.Failure != nil && s.Failure.Message != "" {
			return TruncateUTF8(firstLine(s.Failure.Message), 200)
		}
	}
	return r.Reason
}

// WriteText prints the diff for a person or a CI log.
func (d *DiffResult) WriteText(w io.Writer) error {
	var b strings.Builder
	section := func(title string, cs []Change) {
		fmt.Fprintf(&b, "%s (%d)\n", title, len(cs))
		for _, c := range cs {
			old, new := string(c.Old), string(c.New)
			if old == "" {
				old = "absent"
			}
			if new == "" {
				new = "absent"
			}
			// A report's text may be the host's words: quoted when it is
			// not plain text (ForTerminal).
			fmt.Fprintf(&b, "  %-26s %-8s %s -> %s", ForTerminal(c.ID), ForTerminal(c.Strength), ForTerminal(old), ForTerminal(new))
			if c.Message != "" {
				fmt.Fprintf(&b, ": %s", ForTerminal(c.Message))
			}
			b.WriteString("\n")
		}
	}
	section("regressed", d.Regressed)
	section("recovered", d.Recovered)
	section("changed", d.Changed)
	section("appeared", d.Appeared)
	section("vanished", d.Vanished)
	fmt.Fprintf(&b, "levels lost: %s\n", ForTerminal(orNone(d.LevelsLost)))
	fmt.Fprintf(&b, "levels gained: %s\n", ForTerminal(orNone(d.LevelsGained)))
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}

// DiffNote is one line saying that old and new were made of different
// hosts (another host name or kind: the host's version is what a diff
// compares, so a new version is not a different host) or by different
// harnesses (another version or, when both reports name one, another
// commit), so that a difference may come from that rather than from the
// host's change; "" when they are of the same host and harness. The host's
// words are made inert for the terminal.
func DiffNote(old, new *Report) string {
	var parts []string
	if old.Host.Name != new.Host.Name || old.Host.Kind != new.Host.Kind {
		parts = append(parts, fmt.Sprintf("of different hosts (%s, then %s)",
			ForTerminal(hostWithKind(old.Host)), ForTerminal(hostWithKind(new.Host))))
	}
	if old.Harness.Version != new.Harness.Version || (old.Harness.Commit != "" && new.Harness.Commit != "" && old.Harness.Commit != new.Harness.Commit) {
		parts = append(parts, fmt.Sprintf("made by different harness versions (%s, then %s)",
			ForTerminal(harnessText(old.Harness)), ForTerminal(harnessText(new.Harness))))
	}
	if len(parts) == 0 {
		return ""
	}
	return "note: the two reports are " + strings.Join(parts, " and ") + "; a difference below may come from that, not only from a change of the host"
}

func hostWithKind(h Host) string {
	if h.Kind == "" {
		return HostIdentity(h)
	}
	return HostIdentity(h) + " " + h.Kind
}

func harnessText(h Harness) string {
	s := h.Name + " " + h.Version
	if h.Commit != "" {
		s += " commit " + h.Commit
	}
	return s
}
