package mockhost

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
)

// CollateralFile is where collateral.json sits in a checkout, relative to
// its root: `conformance selftest --write-collateral` rewrites it there.
const CollateralFile = "mockhost/collateral.json"

// collateralJSON is the collateral selftest observed, per fault: the
// requirements beyond a fault's Breaks whose specs failed under it. It is
// written by selftest (EncodeCollateral), never by hand, as Kubernetes
// generates its conformance.yaml; a recorded requirement that passes again
// fails selftest until the file is rewritten.
//
//go:embed collateral.json
var collateralJSON []byte

// recordedCollateral reads the embedded collateral.json; the file is
// checked by TestCollateralFileIsAsWritten, so a malformed one never ships.
func recordedCollateral() map[string][]string {
	m, err := DecodeCollateral(collateralJSON)
	if err != nil {
		panic(fmt.Sprintf("mockhost: %s: %v", CollateralFile, err))
	}
	return m
}

// DecodeCollateral reads a collateral file: fault name to requirement ids.
func DecodeCollateral(b []byte) (map[string][]string, error) {
	m := map[string][]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("reading the collateral file: %w", err)
	}
	return m, nil
}

// EncodeCollateral is the collateral file's one form: faults sorted, each
// one's requirement ids sorted and unique, a fault with none left out, one
// id a line, so that a rewrite shows in a diff as the ids that changed.
func EncodeCollateral(m map[string][]string) []byte {
	out := map[string][]string{}
	for name, ids := range m {
		if ids = slices.Compact(slices.Sorted(slices.Values(ids))); len(ids) > 0 {
			out[name] = ids
		}
	}
	b, err := json.MarshalIndent(out, "", "  ") // map keys come out sorted
	if err != nil {
		panic(fmt.Sprintf("mockhost: encoding collateral: %v", err)) // a map of strings always encodes
	}
	return append(b, '\n')
}
