//go:build !mutation

package mockhost

import (
	"strings"
	"testing"
)

// TestRevocationCacheHonoursYAMLIntegers checks that cacheSeconds written
// as a YAML integer (decoded as int64) is a cache time: the second
// verification inside the window asks the service nothing, and with
// cacheSeconds 0 every verification asks.
func TestRevocationCacheHonoursYAMLIntegers(t *testing.T) {
	for _, c := range []struct {
		cacheSeconds int
		want         string
	}{{600, "requests=0"}, {0, "requests=1"}} {
		got := revocationProbe(c.cacheSeconds, nil, false)(t, start(t))
		if !strings.HasSuffix(got, c.want) {
			t.Errorf("second verification with cacheSeconds %d: %s, want %s", c.cacheSeconds, got, c.want)
		}
	}
}
