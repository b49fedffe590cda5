package docs

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites"
)

// judgedField is what the CAT-FIELD-CONSTRAINTS specs plant in one APP.md
// field: the lengths, in characters, they expect accepted and refused, and
// the values they expect accepted.
type judgedField struct {
	acceptedLengths, refusedLengths []int
	acceptedItems, refusedItems     []int
	acceptedValues                  []string
}

var (
	judgedLengthRE = regexp.MustCompile(` (\w+) of (\d+) characters \(.*\) is (accepted|refused)$`)
	judgedItemsRE  = regexp.MustCompile(` (\w+) with (\d+) items is (accepted|refused)$`)
	judgedValueRE  = regexp.MustCompile(` (\w+) (\S+) is (accepted|refused)$`)
)

// judgedFields reads, from the names of the specs the suites declare with
// the label CAT-FIELD-CONSTRAINTS, what each field constraint spec plants.
func judgedFields(t *testing.T) map[string]*judgedField {
	t.Helper()
	cfg := suites.DefaultConfig()
	cfg.Catalog = levels.Default()
	specs, err := suites.Preview(cfg)
	if err != nil {
		t.Fatalf("listing the suites' specs: %v", err)
	}
	out := map[string]*judgedField{}
	of := func(field string) *judgedField {
		if out[field] == nil {
			out[field] = &judgedField{}
		}
		return out[field]
	}
	for _, s := range specs {
		if !slices.Contains(s.Labels, "CAT-FIELD-CONSTRAINTS") {
			continue
		}
		if m := judgedLengthRE.FindStringSubmatch(s.Name); m != nil {
			n, _ := strconv.Atoi(m[2])
			if m[3] == "accepted" {
				of(m[1]).acceptedLengths = append(of(m[1]).acceptedLengths, n)
			} else {
				of(m[1]).refusedLengths = append(of(m[1]).refusedLengths, n)
			}
		} else if m := judgedItemsRE.FindStringSubmatch(s.Name); m != nil {
			n, _ := strconv.Atoi(m[2])
			if m[3] == "accepted" {
				of(m[1]).acceptedItems = append(of(m[1]).acceptedItems, n)
			} else {
				of(m[1]).refusedItems = append(of(m[1]).refusedItems, n)
			}
		} else if m := judgedValueRE.FindStringSubmatch(s.Name); m != nil {
			if j := of(m[1]); m[3] == "accepted" {
				j.acceptedValues = append(j.acceptedValues, m[2])
			}
		}
	}
	return out
}

// The bounds and vocabularies the page states are those the specs judge
// hosts by: a field whose row names CAT-FIELD-CONSTRAINTS has specs that
// accept its bound and refuse one character more, or accept exactly the
// vocabulary the page lists; a field whose row does not name it has none;
// and every field those specs judge has its row naming it.
func TestPackagesPageBoundsAreTheOnesTheSpecsJudge(t *testing.T) {
	judged := judgedFields(t)
	if len(judged) < 6 {
		t.Fatalf("the CAT-FIELD-CONSTRAINTS specs judge %d fields as read from their names; the page's table has six such fields, so the reading of the names is broken", len(judged))
	}
	tab := fieldsTable(t)
	onPage := map[string]bool{} // field -> its row names CAT-FIELD-CONSTRAINTS
	for _, row := range tab.rows {
		field := fieldOf(t, tab, row)
		named := slices.Contains(requirementIDs(tab.cell(row, 3)), "CAT-FIELD-CONSTRAINTS")
		onPage[field] = named
		j := judged[field]
		if !named {
			if j != nil {
				t.Errorf("%s: the CAT-FIELD-CONSTRAINTS specs judge %s, but its row does not name that requirement", packagesPage, field)
			}
			continue
		}
		if j == nil {
			t.Errorf("%s: the row of %s names CAT-FIELD-CONSTRAINTS, but no spec of it plants %s", packagesPage, field, field)
			continue
		}
		constraint := tab.cell(row, 2)
		if m := lengthRE.FindStringSubmatch(constraint); m != nil {
			hi, _ := strconv.Atoi(m[2])
			if !slices.Contains(j.acceptedLengths, hi) || !slices.Contains(j.refusedLengths, hi+1) {
				t.Errorf("%s: %s is at most %d characters on the page; its specs accept %v characters and refuse %v",
					packagesPage, field, hi, j.acceptedLengths, j.refusedLengths)
			}
		}
		if m := itemsRE.FindStringSubmatch(constraint); m != nil {
			hi, _ := strconv.Atoi(m[1])
			if !slices.Contains(j.acceptedItems, hi) || !slices.Contains(j.refusedItems, hi+1) {
				t.Errorf("%s: %s has at most %d items on the page; its specs accept %v items and refuse %v",
					packagesPage, field, hi, j.acceptedItems, j.refusedItems)
			}
		}
		if strings.HasPrefix(constraint, "one of ") {
			listed, accepted := backticked(constraint), slices.Clone(j.acceptedValues)
			slices.Sort(listed)
			slices.Sort(accepted)
			if !slices.Equal(listed, accepted) {
				t.Errorf("%s: %s is one of %v on the page; its specs accept %v", packagesPage, field, listed, accepted)
			}
		}
	}
	for field := range judged {
		if _, ok := onPage[field]; !ok {
			t.Errorf("%s: the CAT-FIELD-CONSTRAINTS specs judge %s, which the fields table has no row for", packagesPage, field)
		}
	}
}
