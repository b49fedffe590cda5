//go:build !mutation

package mockhost

import "testing"

func TestLoopbackAddr(t *testing.T) {
	cases := map[string]string{
		":0":             "127.0.0.1:0",
		"127.0.0.1:7700": "127.0.0.1:7700",
		"[::1]:7700":     "[::1]:7700",
		"localhost:7700": "localhost:7700",
		"127.0.0.2:80":   "127.0.0.2:80",
	}
	for in, want := range cases {
		if got, err := LoopbackAddr(in); err != nil || got != want {
			t.Errorf("LoopbackAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"0.0.0.0:80", "10.0.0.1:80", "example.org:80", "7700"} {
		if _, err := LoopbackAddr(bad); err == nil {
			t.Errorf("LoopbackAddr(%q) accepted a non-loopback address", bad)
		}
	}
}
