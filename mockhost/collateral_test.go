package mockhost

import (
	"bytes"
	"slices"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// TestCollateralFileIsAsWritten checks collateral.json as selftest
// --write-collateral writes it: in EncodeCollateral's form (sorted, one id
// a line), naming only faults and requirements that exist, and no fault's
// own Breaks (those are what it is meant to break, not collateral).
func TestCollateralFileIsAsWritten(t *testing.T) {
	m, err := DecodeCollateral(collateralJSON)
	if err != nil {
		t.Fatal(err)
	}
	if got := EncodeCollateral(m); !bytes.Equal(got, collateralJSON) {
		t.Errorf("%s is not as selftest --write-collateral writes it; rewrite it with `conformance selftest --fault NAME --write-collateral`", CollateralFile)
	}
	faults := map[string]Fault{}
	for _, f := range Faults() {
		faults[f.Name] = f
	}
	cat := levels.Default()
	for name, ids := range m {
		f, ok := faults[name]
		if !ok {
			t.Errorf("%s names %s, which is no fault", CollateralFile, name)
		}
		for _, id := range ids {
			if _, ok := cat.Requirement(id); !ok {
				t.Errorf("%s: %s's collateral %s is no requirement", CollateralFile, name, id)
			}
			if slices.Contains(f.Breaks, id) {
				t.Errorf("%s: %s's collateral %s is in its Breaks", CollateralFile, name, id)
			}
		}
	}
}

// The collateral file has one form whatever order or repeats it was given.
func TestEncodeCollateralSortsAndDropsEmptyEntries(t *testing.T) {
	got := string(EncodeCollateral(map[string][]string{"b": {"Y", "X", "Y"}, "a": {"Z"}, "c": nil}))
	want := "{\n  \"a\": [\n    \"Z\"\n  ],\n  \"b\": [\n    \"X\",\n    \"Y\"\n  ]\n}\n"
	if got != want {
		t.Errorf("encoded\n%s\nwant\n%s", got, want)
	}
}

// Faults joins each fault's recorded collateral to it, and Fails is what
// must fail under it: the meant requirements first.
func TestFaultsCarryTheirRecordedCollateral(t *testing.T) {
	m, err := DecodeCollateral(collateralJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Faults() {
		if !slices.Equal(f.Collateral, m[f.Name]) {
			t.Errorf("%s: Collateral %v, the file records %v", f.Name, f.Collateral, m[f.Name])
		}
		if want := slices.Concat(f.Breaks, m[f.Name]); !slices.Equal(f.Fails(), want) {
			t.Errorf("%s: Fails %v, want %v", f.Name, f.Fails(), want)
		}
		if len(f.Breaks) == 0 && !f.Escapes {
			t.Errorf("%s is meant to break nothing", f.Name)
		}
	}
}
