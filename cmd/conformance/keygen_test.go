package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// cliRun runs one conformance command in-process.
func cliRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(&cli{stdout: &out, stderr: &errb, self: "conformance"}, args)
	return code, out.String(), errb.String()
}

func TestKeygen(t *testing.T) {
	for _, alg := range []string{reports.Ed25519, reports.ECDSAP256} {
		dir := filepath.Join(t.TempDir(), "keys")
		code, out, errs := cliRun(t, "keygen", "--out", dir, "--algorithm", alg)
		if code != exitOK {
			t.Fatalf("keygen %s: exit %d: %s", alg, code, errs)
		}
		st, err := os.Stat(filepath.Join(dir, reports.PrivateKeyFile))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("private key mode %v", st.Mode().Perm())
		}
		pub, err := reports.LoadPublicKey(filepath.Join(dir, reports.PublicKeyFile))
		if err != nil {
			t.Fatal(err)
		}
		if pub.Algorithm() != alg || !strings.Contains(out, pub.ID()) {
			t.Errorf("keygen %s printed %q; key %s %s", alg, out, pub.Algorithm(), pub.ID())
		}
		if code, _, errs := cliRun(t, "keygen", "--out", dir); code != exitUsage || !strings.Contains(errs, "--force") {
			t.Errorf("second keygen without --force: exit %d: %s", code, errs)
		}
		if code, _, errs := cliRun(t, "keygen", "--out", dir, "--force"); code != exitOK {
			t.Errorf("keygen --force: exit %d: %s", code, errs)
		}
	}
	for _, args := range [][]string{
		{"keygen"},
		{"keygen", "--out", t.TempDir(), "--algorithm", "rsa"},
		{"keygen", "--out", t.TempDir(), "extra"},
		{"keygen", "--bogus"},
	} {
		if code, _, _ := cliRun(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
