package harness

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// Gomega's failure text becomes what the host answered and what the
// harness expected, values whole, without Go type annotations.
func TestCleanMessageNamesTheHostsValue(t *testing.T) {
	hash := "sha256:dbbbb6658beee42449f58b3be913e3a818beedbadfed2af8c56edc2acb2b9c00"
	in := "packageHash of x\nExpected\n    <string>: " + hash + "\nto equal\n    <string>: sha256:03b6"
	want := "packageHash of x\nthe host answered:\n    " + hash + "\nwhere the harness expected it to equal:\n    sha256:03b6"
	if got := cleanMessage(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := cleanMessage("no warning\nExpected\n    <bool>: false\nto be true"); got != "no warning" {
		t.Errorf("BeTrue noise kept: %q", got)
	}
	empty := cleanMessage("installed packageHash\nExpected\n    <string>: \nto equal\n    <string>: sha256:47")
	if want := "installed packageHash\nthe host answered:\n    \"\" (empty)\nwhere the harness expected it to equal:\n    sha256:47"; empty != want {
		t.Errorf("empty value: got\n%s", empty)
	}
	list := cleanMessage("x\nExpected\n    <string>: blocked\nto be an element of\n    <[]string | len:2, cap:2>: [\"ready\", \"ready-degraded\"]")
	if want := "x\nthe host answered:\n    blocked\nwhere the harness expected it to be an element of:\n    [\"ready\", \"ready-degraded\"]"; list != want {
		t.Errorf("list value: got\n%s", list)
	}
}

// A quoted value is an excerpt: a long answer keeps its first lines and
// says how many it left out; a member the host left out reads "nothing".
func TestCleanMessageQuotesExcerpts(t *testing.T) {
	var long []string
	for i := 0; i < 145; i++ {
		long = append(long, fmt.Sprintf("        \"k%d\": %d,", i, i))
	}
	in := "package/project /app\nExpected\n    <map[string]interface {} | len:145>: {\n" + strings.Join(long, "\n") + "\n    }\nto have key\n    <string>: description"
	got := strings.Split(cleanMessage(in), "\n")
	if len(got) != 2+maxValueLines-1+2 {
		t.Fatalf("%d lines:\n%s", len(got), strings.Join(got, "\n"))
	}
	if got[maxValueLines] != "    … (137 more lines)" || got[len(got)-1] != "    description" {
		t.Errorf("excerpt:\n%s", strings.Join(got, "\n"))
	}
	absent := cleanMessage("package/project /app/description\nExpected\n    <nil>: nil\nto equal\n    <string>: A demo app")
	if want := "package/project /app/description\nthe host answered:\n    nothing (the member is absent or null)\nwhere the harness expected it to equal:\n    A demo app"; absent != want {
		t.Errorf("absent member: got\n%s", absent)
	}
}

// A failure location names the harness's source relative to its tree, never
// the absolute path of the machine that built the harness.
func TestFailureLocationsAreRelative(t *testing.T) {
	if root := moduleRoot(); root != "" {
		if got := relativeLocation(root + "suites/verify.go:51"); got != "suites/verify.go:51" {
			t.Errorf("got %q", got)
		}
	}
	if got := relativeLocation("github.com/agentapp/conformance/suites/verify.go:51"); got != "suites/verify.go:51" {
		t.Errorf("trimpath form: got %q", got)
	}
	log := "In [It] at: /root/go/pkg/mod/github.com/onsi/ginkgo/v2@v2.34.0/table_dsl.go:301 @ 11/22/26"
	if got := string(StripBuildPaths([]byte(log))); got != "In [It] at: github.com/onsi/ginkgo/v2@v2.34.0/table_dsl.go:301 @ 11/22/26" {
		t.Errorf("module cache path kept: %q", got)
	}
}

// A planted secret is found however the host encodes it, wherever it
// stands in a longer text; a text without it is clean.
func TestFindCanaryInEveryForm(t *testing.T) {
	v := "canary-00112233445566778899aabbccddeeff"
	for pad := 0; pad < 3; pad++ {
		prefix := strings.Repeat("x", pad)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
			blob := enc.EncodeToString([]byte(prefix + "token=" + v + "&more"))
			if FindCanary([]byte(`{"data":"`+blob+`"}`), v) != "base64-encoded" {
				t.Errorf("base64 at offset %d not found in %s", pad, blob)
			}
		}
	}
	for form, text := range map[string]string{
		"as it is":    "Bearer " + v,
		"hex-encoded": "0x" + hex.EncodeToString([]byte(v)),
	} {
		if got := FindCanary([]byte(text), v); got != form {
			t.Errorf("%q: found %q, want %q", text, got, form)
		}
	}
	odd := "canary/with space"
	if got := FindCanary([]byte("https://x.example/?k="+url.QueryEscape(odd)), odd); got != "URL-escaped" {
		t.Errorf("URL-escaped value: found %q", got)
	}
	if got := FindCanary([]byte(`{"secret":"provider_api_key","configured":true}`), v); got != "" {
		t.Errorf("a clean answer reads as a leak (%s)", got)
	}
}

// A member holds a value only when it reads back exactly that value; the
// others say what they held or why the frame could not use them.
func TestHoldingSaysWhyAMemberHeldNothing(t *testing.T) {
	read := map[string]StorageRead{
		"localStorage": {Value: "v-1"},
		"indexedDB":    {Value: "v-10"},
		"cookie":       {Detail: "SecurityError: blocked"},
	}
	held, others := Holding(read, "v-1")
	if strings.Join(held, ",") != "localStorage" {
		t.Errorf("held = %v, want localStorage alone", held)
	}
	want := `indexedDB (held "v-10"),cookie (SecurityError: blocked)`
	if strings.Join(others, ",") != want {
		t.Errorf("others = %v, want %s", others, want)
	}
}
