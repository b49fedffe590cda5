package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/agentapp/conformance/reports"
)

// cmdKeygen writes a key pair for signing reports (docs/report-format.md
// "Keys"): conformance.key (PKCS#8 PEM, mode 0600) and conformance.pub
// (PKIX PEM).
func cmdKeygen(c *cli, args []string) int {
	fs := flag.NewFlagSet("keygen", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write conformance.key and conformance.pub into (required)")
	alg := fs.String("algorithm", reports.Ed25519, "key algorithm: "+reports.Ed25519+" or "+reports.ECDSAP256)
	force := fs.Bool("force", false, "replace existing key files")
	pos, code := parseArgs(c, fs, args)
	if code >= 0 {
		return code
	}
	switch {
	case len(pos) > 0:
		fmt.Fprintf(c.stderr, "conformance keygen: unexpected argument %q\n", pos[0])
		return exitUsage
	case *out == "":
		fmt.Fprintln(c.stderr, "conformance keygen: --out DIR is required")
		return exitUsage
	case *alg != reports.Ed25519 && *alg != reports.ECDSAP256:
		fmt.Fprintf(c.stderr, "conformance keygen: --algorithm %q: use %s or %s\n", *alg, reports.Ed25519, reports.ECDSAP256)
		return exitUsage
	}
	kf, err := reports.GenerateKey(*out, *alg, *force)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance keygen: %v\n", err)
		if errors.Is(err, reports.ErrKeyExists) {
			return exitUsage
		}
		return exitHarness
	}
	fmt.Fprintf(c.stdout, "private key: %s (%s, mode 0600: keep it secret)\n", kf.Private, kf.Algorithm)
	fmt.Fprintf(c.stdout, "public key:  %s (give this to registries)\n", kf.Public)
	fmt.Fprintf(c.stdout, "key id:      %s\n", kf.KeyID)
	return exitOK
}
