package reports

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// Host-controlled strings are hostile: they render as text, and the page
// references nothing outside itself.
func TestHTMLEscapesAndSelfContained(t *testing.T) {
	r := testReport(t, 0)
	r.Host.Name = `<script>alert("name")</script>`
	r.Host.Version = `1.0" onmouseover="alert(1)`
	setSpec(t, r, "READY-CAPABILITIES", Failed, `</pre><img src="https://evil.example/x.png">`)
	ex := map[[2]int]*Excerpt{}
	for _, rr := range r.Requirements {
		if rr.ID == "READY-CAPABILITIES" {
			ex[rr.Specs[0].Exchanges] = &Excerpt{From: 1, To: 2, Lines: []string{`#1 conn 1 recv {"x":"<script>bad()</script>"}`}}
		}
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, HTMLOptions{Excerpts: ex}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Error("report.html contains a script element")
	}
	if strings.Contains(page, `<img src="https://evil`) {
		t.Error("failure message rendered as HTML")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;") {
		t.Error("host name is not shown escaped")
	}
	if !strings.Contains(page, "&lt;script&gt;bad()&lt;/script&gt;") {
		t.Error("transcript excerpt is not shown escaped")
	}
	// No attribute loads anything from elsewhere.
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*"([^"]*)"`)
	for _, m := range ext.FindAllStringSubmatch(page, -1) {
		if m[2] != "data:," {
			t.Errorf("page references %s=%q", m[1], m[2])
		}
	}
	if !strings.Contains(page, "Content-Security-Policy") || !strings.Contains(page, "default-src &#39;none&#39;") && !strings.Contains(page, "default-src 'none'") {
		t.Error("no Content-Security-Policy forbidding fetches")
	}
}
