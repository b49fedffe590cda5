// Package levels is the catalog of conformance levels and requirements: each
// requirement has a stable id, the levels it belongs to, its strength and the
// clause it cites. Specs in suites/ carry the id as a Ginkgo label; faults in
// mockhost/ name the ids they break.
package levels

import (
	"fmt"
	"sort"
	"strings"
)

// Family is one of the two level ladders.
type Family string

// The two ladders. Levels are cumulative within a family.
const (
	Generic Family = "generic"
	Desktop Family = "desktop"
)

// Level is one rung of a ladder.
type Level struct {
	ID      string
	Name    string
	Family  Family
	Rank    int
	Meaning string
	// Judged is true when the catalog covers every host requirement the
	// standard states for this level, so a verdict on it means something.
	Judged bool
	// Browser is true when the level's specs open the app surface in a
	// browser (launch, the app center, Host Bridge v1).
	Browser bool
}

// Strength of a requirement.
type Strength string

// Strengths, as the standard states them (never raised by the harness). A
// failed Should or May is a warning and never fails a level.
const (
	Must    Strength = "must"
	MustNot Strength = "must-not"
	Should  Strength = "should"
	May     Strength = "may"
)

// Binding reports whether a failure of this strength fails a level.
func (s Strength) Binding() bool { return s == Must || s == MustNot }

// Kind says what a requirement binds: the standard, or the host control
// protocol the harness speaks (a precondition of judging, not a clause of
// the standard: a host that breaks it cannot be judged, it is not failed).
type Kind string

// Kinds of requirement.
const (
	StandardRule Kind = "standard"
	Precondition Kind = "protocol-precondition"
)

// Source says which text a clause comes from.
type Source string

// Clause sources. Guide clauses come from the standard's client-implementation
// guides (see ../shared/SPEC-NOTES.md); protocol clauses from
// docs/host-control-protocol.md.
const (
	SpecText     Source = "spec"
	GuideText    Source = "guide"
	ProtocolText Source = "protocol"
	InteropFact  Source = "interop"
)

// Clause is the text a requirement enforces.
type Clause struct {
	Source  Source `json:"source"`
	File    string `json:"file"`
	Section string `json:"section"`
	Quote   string `json:"quote"`
}

func (c Clause) String() string {
	return fmt.Sprintf("%s %s §%s: %q", c.Source, c.File, c.Section, c.Quote)
}

// Requirement is one checkable host obligation.
type Requirement struct {
	ID       string
	Title    string
	Strength Strength
	// Levels lists, per family, the lowest level that requires it.
	Levels []string
	Clause Clause
	// Kind is StandardRule unless set; PROTO- requirements are Preconditions.
	Kind Kind
	// Reading names the row of docs/decisions.md when the check rests on a
	// reading of the harness where the texts leave details open.
	Reading string
	// Refusal says what the check rests on when it rests on the host
	// refusing something the spec planted: a package refused (at verify or
	// install) or a not-ready readiness status. A host that refuses or
	// accepts those regardless of what was planted must pass none of these
	// (selftest proves it with mockhost's indiscriminate faults).
	Refusal []RefusalKind
	// BugFamilies are the families of host bugs its specs are built to catch
	// beyond one representative case (docs/decisions.md, "Families every
	// spec is checked against"): listed only where a spec covers them, and
	// each listed family is a label of at least one of the requirement's
	// specs (suites' Req), which suites' coverage test checks. Every
	// judged requirement lists at least one.
	BugFamilies []BugFamily
}

// BugFamily is a family of host bugs a spec covers by construction.
type BugFamily string

// The families (docs/decisions.md, "Families every spec is checked against").
const (
	EveryMember         BugFamily = "every member"         // each gate, message type, step, failure mode a clause lists
	EveryEntryPoint     BugFamily = "every entry point"    // each method and error path reaching the rule
	ChangeBetweenReads  BugFamily = "change between reads" // read, changed through the protocol, read again
	ConfusableIdentity  BugFamily = "confusable identities"
	EveryTransition     BugFamily = "every transition" // the same check after reset, configure, disable, uninstall, ...
	RepresentationLimit BugFamily = "representation boundaries"
	WhoAnswers          BugFamily = "who answers"
)

// Label is the Ginkgo label a spec carries when it covers family f for the
// requirement it cites (suites' Req): "family:" and the family's words
// joined by hyphens.
func (f BugFamily) Label() string {
	return "family:" + strings.ReplaceAll(string(f), " ", "-")
}

// BugFamilies lists every family, in the order docs/decisions.md gives them.
func BugFamilies() []BugFamily {
	return []BugFamily{EveryMember, EveryEntryPoint, ChangeBetweenReads, ConfusableIdentity, EveryTransition, RepresentationLimit, WhoAnswers}
}

// RefusalKind is what a refusal-based check needs the host to refuse.
type RefusalKind string

// Refusal kinds.
const (
	RefusesPackage RefusalKind = "package"   // package/verify or app/install refuses
	NotReady       RefusalKind = "readiness" // app/readiness answers a not-ready status
	// NotReadyInstalled: app/readiness of an installed app (by appId)
	// answers a not-ready status. Kept apart from NotReady because a host
	// may judge a package folder and an installed app differently: one that
	// calls every folder not ready can still judge installed apps honestly.
	NotReadyInstalled RefusalKind = "installed-readiness"
)

// IsPrecondition reports whether r is a rule of the control protocol.
func (r Requirement) IsPrecondition() bool { return r.Kind == Precondition }

// Catalog is the immutable set of levels and requirements.
type Catalog struct {
	levels []Level
	reqs   []Requirement
	byID   map[string]int
	level  map[string]int
}

// Default returns the catalog of this harness version.
func Default() *Catalog {
	c, err := New(allLevels(), allRequirements())
	if err != nil {
		panic(fmt.Sprintf("levels: built-in catalog is inconsistent: %v", err))
	}
	return c
}

// New checks and indexes a catalog.
func New(ls []Level, rs []Requirement) (*Catalog, error) {
	c := &Catalog{levels: ls, reqs: rs, byID: map[string]int{}, level: map[string]int{}}
	for i, l := range ls {
		if _, dup := c.level[l.ID]; dup {
			return nil, fmt.Errorf("level %q defined twice", l.ID)
		}
		c.level[l.ID] = i
	}
	for i, r := range rs {
		if _, dup := c.byID[r.ID]; dup {
			return nil, fmt.Errorf("requirement %q defined twice", r.ID)
		}
		if r.Title == "" || r.Clause.Quote == "" || r.Clause.File == "" {
			return nil, fmt.Errorf("requirement %q: title, clause file and quote are required", r.ID)
		}
		switch r.Strength {
		case Must, MustNot, Should, May:
		default:
			return nil, fmt.Errorf("requirement %q: strength %q is not must, must-not, should or may", r.ID, r.Strength)
		}
		switch r.Kind {
		case "":
			rs[i].Kind = StandardRule
		case StandardRule, Precondition:
		default:
			return nil, fmt.Errorf("requirement %q: kind %q is not %s or %s", r.ID, r.Kind, StandardRule, Precondition)
		}
		if (r.Clause.Source == ProtocolText) != (rs[i].Kind == Precondition) {
			return nil, fmt.Errorf("requirement %q: a protocol clause and the precondition kind go together", r.ID)
		}
		if len(r.Levels) == 0 {
			return nil, fmt.Errorf("requirement %q: no level", r.ID)
		}
		fams := map[Family]bool{}
		for _, l := range r.Levels {
			li, ok := c.level[l]
			if !ok {
				return nil, fmt.Errorf("requirement %q: unknown level %q", r.ID, l)
			}
			f := ls[li].Family
			if fams[f] {
				return nil, fmt.Errorf("requirement %q: two levels of family %s", r.ID, f)
			}
			fams[f] = true
		}
		c.byID[r.ID] = i
	}
	return c, nil
}

// Levels returns every level, generic family first, each in rank order.
func (c *Catalog) Levels() []Level { return append([]Level(nil), c.levels...) }

// Requirements returns every requirement in catalog order.
func (c *Catalog) Requirements() []Requirement { return append([]Requirement(nil), c.reqs...) }

// Level looks a level up by id.
func (c *Catalog) Level(id string) (Level, bool) {
	i, ok := c.level[id]
	if !ok {
		return Level{}, false
	}
	return c.levels[i], true
}

// Requirement looks a requirement up by id.
func (c *Catalog) Requirement(id string) (Requirement, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Requirement{}, false
	}
	return c.reqs[i], true
}

// LevelIDs lists all level ids in catalog order.
func (c *Catalog) LevelIDs() []string {
	ids := make([]string, len(c.levels))
	for i, l := range c.levels {
		ids[i] = l.ID
	}
	return ids
}

// ParseLevels checks user-given level ids, naming the bad one.
func (c *Catalog) ParseLevels(ids []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		id = strings.TrimSpace(strings.ToLower(id))
		if _, ok := c.level[id]; !ok {
			return nil, fmt.Errorf("unknown level %q (known: %s)", id, strings.Join(c.LevelIDs(), ", "))
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// JudgedLevels lists the levels this harness can judge: a level is judged
// when it and every level below it in its family are covered.
func (c *Catalog) JudgedLevels() []string {
	var out []string
	for _, l := range c.levels {
		if c.CanJudge(l.ID) {
			out = append(out, l.ID)
		}
	}
	return out
}

// CanJudge reports whether the level and all below it are covered.
func (c *Catalog) CanJudge(id string) bool {
	l, ok := c.Level(id)
	if !ok {
		return false
	}
	for _, o := range c.levels {
		if o.Family == l.Family && o.Rank <= l.Rank && !o.Judged {
			return false
		}
	}
	return true
}

// InLevel reports whether requirement r counts for level id: it does when
// r is introduced at a level of the same family with a rank not above id's.
func (c *Catalog) InLevel(r Requirement, id string) bool {
	l, ok := c.Level(id)
	if !ok {
		return false
	}
	for _, rl := range r.Levels {
		o := c.levels[c.level[rl]]
		if o.Family == l.Family && o.Rank <= l.Rank {
			return true
		}
	}
	return false
}

// ForLevels returns the requirements that count for any of the given levels,
// in catalog order.
func (c *Catalog) ForLevels(ids []string) []Requirement {
	var out []Requirement
	for _, r := range c.reqs {
		for _, id := range ids {
			if c.InLevel(r, id) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// LevelLabels returns the Ginkgo labels for a requirement: its id and the id
// of every level it counts for.
func (c *Catalog) LevelLabels(r Requirement) []string {
	var out []string
	for _, l := range c.levels {
		if c.InLevel(r, l.ID) {
			out = append(out, l.ID)
		}
	}
	sort.Strings(out)
	return out
}
