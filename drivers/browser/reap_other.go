//go:build !linux

package browser

// reap does nothing outside Linux: there the browser's helpers end with
// their parent, which Close kills.
func reap(string) int { return 0 }

// usingProfile finds nothing outside Linux.
func usingProfile(string) []int { return nil }
