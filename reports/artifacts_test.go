package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// testPNG is a w×h PNG.
func testPNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 0x80, 0xff})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// putArtifact writes data at the relative path p under dir.
func putArtifact(tb testing.TB, dir, p string, data []byte) {
	tb.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(full, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Artifact paths stay relative to the report folder, "/"-separated, and
// never leave it; the schema's pattern is the code's.
func TestArtifactPath(t *testing.T) {
	for _, p := range []string{
		"artifacts/012-BRIDGE-SNAPSHOT-1.png", "artifacts/012-BRIDGE-SNAPSHOT-1.log", "shot.png",
		"a/b/c/d/e/f/g/h.log", "artifacts/x..y.png", "_x/-y",
	} {
		if err := CheckArtifactPath(p); err != nil {
			t.Errorf("%q refused: %v", p, err)
		}
	}
	for p, says := range map[string]string{
		"":                      "empty",
		"/etc/passwd":           "absolute",
		`\\server\share\x.png`:  "absolute",
		`C:\x.png`:              "absolute",
		"C:/x.png":              "absolute",
		`artifacts\x.png`:       `\`,
		"..":                    "leaves",
		"../report.json":        "leaves",
		"artifacts/../../x.png": "leaves",
		"artifacts/..":          "leaves",
		"artifacts/./x.png":     "not 1 to 8",
		"./x.png":               "not 1 to 8",
		"artifacts//x.png":      "not 1 to 8",
		"artifacts/":            "not 1 to 8",
		".hidden":               "not 1 to 8",
		"artifacts/a b.png":     "not 1 to 8",
		"artifacts/é.png":       "not 1 to 8",
		"a/b/c/d/e/f/g/h/i.log": "not 1 to 8",
		"x\n.png":               "not 1 to 8",
	} {
		err := CheckArtifactPath(p)
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want an error saying %q", p, err, says)
		}
	}
	var schema struct {
		Defs map[string]struct {
			Properties map[string]struct {
				Pattern string `json:"pattern"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(PredicateSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	if got := schema.Defs["artifact"].Properties["path"].Pattern; got != ArtifactPathPattern {
		t.Errorf("the schema's artifact path pattern is %q, the code's %q", got, ArtifactPathPattern)
	}
	if ArtifactKind("artifacts/a.png") != ArtifactScreenshot || ArtifactKind("artifacts/a.PNG") != ArtifactScreenshot ||
		ArtifactKind("artifacts/a.log") != ArtifactLog || ArtifactKind("artifacts/png") != ArtifactLog {
		t.Error("kinds: want screenshot for .png, log otherwise")
	}
}

// ArtifactsIn digests what is there and drops what is not, what would
// leave the folder, what is not a regular file, and repeats.
func TestArtifactsIn(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "report")
	shot := testPNG(t, 4, 3)
	putArtifact(t, dir, "artifacts/001-X-1.png", shot)
	putArtifact(t, dir, "artifacts/001-X-1.log", []byte("[error] boom\n"))
	putArtifact(t, parent, "outside.log", []byte("not the report's"))
	if err := os.Mkdir(filepath.Join(dir, "artifacts", "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(parent, "outside.log"), filepath.Join(dir, "artifacts", "escape.log")); err != nil {
		t.Fatal(err)
	}
	got := ArtifactsIn(dir, []string{
		"artifacts/001-X-1.png", "artifacts/missing.png", "../outside.log", filepath.Join(parent, "outside.log"),
		"artifacts/escape.log", "artifacts/folder", "artifacts/001-X-1.png", `artifacts\001-X-1.log`, "artifacts/001-X-1.log",
	})
	want := []Artifact{
		{Path: "artifacts/001-X-1.png", SHA256: sha(string(shot)), Kind: ArtifactScreenshot},
		{Path: "artifacts/001-X-1.log", SHA256: sha("[error] boom\n"), Kind: ArtifactLog},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ArtifactsIn = %+v\nwant %+v", got, want)
	}
	if got := ArtifactsIn("", []string{"artifacts/001-X-1.png"}); got != nil {
		t.Errorf("with no folder: %+v, want nil", got)
	}
	if got := ArtifactsIn(dir, []string{"artifacts/missing.png"}); got != nil {
		t.Errorf("with every file missing: %+v, want nil (no artifacts key)", got)
	}
	if got := ArtifactsIn(filepath.Join(parent, "nope"), []string{"artifacts/001-X-1.png"}); got != nil {
		t.Errorf("with a missing folder: %+v, want nil", got)
	}
	many := make([]string, 0, 2*MaxSpecArtifacts)
	for i := 0; i < 2*MaxSpecArtifacts; i++ {
		p := "artifacts/" + itoa(i) + ".log"
		putArtifact(t, dir, p, []byte(p))
		many = append(many, p)
	}
	if got := ArtifactsIn(dir, many); len(got) != MaxSpecArtifacts {
		t.Errorf("%d artifacts kept, want at most %d", len(got), MaxSpecArtifacts)
	}
}

// artifactReport is testReport with a failed spec that saved a screenshot
// and a log into dir, and a passed one that (against the rules) lists one.
func artifactReport(t *testing.T, dir string) *Report {
	t.Helper()
	r := testReport(t, 0)
	setSpec(t, r, "READY-CAPABILITIES", Failed, "the surface showed nothing")
	putArtifact(t, dir, "artifacts/012-BRIDGE-SNAPSHOT-1.png", testPNG(t, 800, 600))
	putArtifact(t, dir, "artifacts/012-BRIDGE-SNAPSHOT-1.log", []byte("[error] bridge not ready\n\nprobe report:\n{}\n"))
	putArtifact(t, dir, "artifacts/passed.png", testPNG(t, 2, 2))
	arts := ArtifactsIn(dir, []string{"artifacts/012-BRIDGE-SNAPSHOT-1.png", "artifacts/012-BRIDGE-SNAPSHOT-1.log"})
	if len(arts) != 2 {
		t.Fatalf("artifacts: %+v", arts)
	}
	for i := range r.Requirements {
		switch r.Requirements[i].ID {
		case "READY-CAPABILITIES":
			r.Requirements[i].Specs[0].Artifacts = arts
		case "CAT-METADATA":
			r.Requirements[i].Specs[0].Artifacts = ArtifactsIn(dir, []string{"artifacts/passed.png"})
		}
	}
	return r
}

// report.json carries a spec's artifacts as {path, sha256, kind} and reads
// them back; a spec without any has no artifacts key; the signed predicate
// carries them too, within its schema.
func TestArtifactsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r := artifactReport(t, dir)
	writeTranscript(t, dir, r)
	if _, err := WriteAll(dir, r, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	shotSHA, err := FileSHA256(filepath.Join(dir, "artifacts/012-BRIDGE-SNAPSHOT-1.png"))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `"artifacts": [
            {
              "path": "artifacts/012-BRIDGE-SNAPSHOT-1.png",
              "sha256": "` + shotSHA + `",
              "kind": "screenshot"
            },
            {
              "path": "artifacts/012-BRIDGE-SNAPSHOT-1.log",`
	if !strings.Contains(string(raw), wantJSON) {
		t.Errorf("report.json does not carry the artifacts as %s", wantJSON)
	}
	if n := strings.Count(string(raw), `"artifacts"`); n != 2 {
		t.Errorf(`report.json has %d "artifacts" keys, want 2 (only the specs that list some)`, n)
	}
	back, err := Load(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Requirements, r.Requirements) {
		t.Error("report.json does not read back to the same requirements")
	}
	st, err := BuildStatements(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidatePredicate(st.Predicate); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(st.Conformance, []byte(`"sha256":"`+shotSHA+`"`)) {
		t.Error("the signed statement does not carry the screenshot's digest")
	}
}

// WriteAll refuses to write a report whose artifacts are not as listed:
// verify would refuse it.
func TestWriteAllChecksArtifacts(t *testing.T) {
	dir := t.TempDir()
	r := artifactReport(t, dir)
	writeTranscript(t, dir, r)
	if err := os.Remove(filepath.Join(dir, "artifacts/012-BRIDGE-SNAPSHOT-1.log")); err != nil {
		t.Fatal(err)
	}
	_, err := WriteAll(dir, r, WriteOptions{})
	if err == nil || !strings.Contains(err.Error(), "artifacts/012-BRIDGE-SNAPSHOT-1.log") {
		t.Errorf("WriteAll with a missing artifact: %v", err)
	}
}

// With ArtifactDir, verify checks every artifact the signed predicate lists
// against the file in the folder: a changed byte or a missing file is
// refused with one line naming it.
func TestVerifyArtifacts(t *testing.T) {
	k := testKey(t, Ed25519)
	dir := t.TempDir()
	r := artifactReport(t, dir)
	writeTranscript(t, dir, r)
	trSum, err := FileSHA256(filepath.Join(dir, TranscriptFile))
	if err != nil {
		t.Fatal(err)
	}
	r.Transcript = TranscriptRef{Path: TranscriptFile, SHA256: trSum, Exchanges: 3}
	env := signedEnvelope(t, r, k)
	opts := VerifyOptions{Keys: []*Key{publicOnly(t, k)}, ArtifactDir: dir}
	v, err := VerifyEnvelope(context.Background(), env, opts)
	if err != nil {
		t.Fatal(err)
	}
	if v.Artifacts != 3 {
		t.Errorf("%d artifacts checked, want 3", v.Artifacts)
	}

	shot := filepath.Join(dir, "artifacts/012-BRIDGE-SNAPSHOT-1.png")
	orig, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), orig...)
	bad[len(bad)/2] ^= 1
	if err := os.WriteFile(shot, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	err = verifyWith(env, opts)
	wantKind(t, err, KindArtifact)
	if msg := err.Error(); !strings.Contains(msg, "artifacts/012-BRIDGE-SNAPSHOT-1.png has SHA-256") || strings.Contains(msg, "\n") {
		t.Errorf("tampered screenshot: %q, want one line naming it", msg)
	}
	if err := verifyWith(env, VerifyOptions{Keys: opts.Keys}); err != nil {
		t.Errorf("without ArtifactDir the artifacts are not read: %v", err)
	}
	if err := os.WriteFile(shot, orig, 0o644); err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(filepath.Join(dir, "artifacts/012-BRIDGE-SNAPSHOT-1.log")); err != nil {
		t.Fatal(err)
	}
	err = verifyWith(env, opts)
	wantKind(t, err, KindArtifact)
	if msg := err.Error(); !strings.Contains(msg, "artifacts/012-BRIDGE-SNAPSHOT-1.log is missing") || strings.Contains(msg, "\n") {
		t.Errorf("missing log: %q, want one line naming it", msg)
	}
}

// A signer cannot point verify outside the folder: the schema refuses an
// artifact path that leaves it, before any file is read.
func TestVerifyRefusesEscapingArtifactPath(t *testing.T) {
	k := testKey(t, Ed25519)
	dir := t.TempDir()
	r := artifactReport(t, dir)
	for _, p := range []string{"../report.json", "/etc/passwd", `artifacts\x.png`} {
		r.Requirements[findReq(r, "READY-CAPABILITIES")].Specs[0].Artifacts[0].Path = p
		r.Transcript = TranscriptRef{Path: TranscriptFile, SHA256: sha("transcript"), Exchanges: 3}
		pr := &Predicate{Results: r.Results}
		env := signPredicate(t, r, pr, k)
		err := verifyWith(env, VerifyOptions{Keys: []*Key{publicOnly(t, k)}, ArtifactDir: dir})
		wantKind(t, err, KindMalformed)
		if _, err := CheckArtifacts(dir, &r.Results); KindOf(err) != KindArtifact || !strings.Contains(err.Error(), strconv.Quote(p)) {
			t.Errorf("CheckArtifacts on %q: %v", p, err)
		}
	}
}

// report.html shows, under a failed spec's failure, a thumbnail of each
// screenshot linking to the file and a link to each log; a passed spec
// shows none; img-src allows 'self' only on a page that shows a screenshot.
func TestHTMLArtifacts(t *testing.T) {
	dir := t.TempDir()
	r := artifactReport(t, dir)
	page := writeHTMLPage(t, r, HTMLOptions{})
	card := page[strings.Index(page, `id="req-READY-CAPABILITIES"`):]
	card = card[:strings.Index(card, "</article>")]
	for _, want := range []string{
		`<ul class="artifacts">`,
		`<li class="artifact" data-kind="screenshot"><figure><a href="artifacts/012-BRIDGE-SNAPSHOT-1.png"><img src="artifacts/012-BRIDGE-SNAPSHOT-1.png" alt="screenshot artifacts/012-BRIDGE-SNAPSHOT-1.png" loading="lazy"></a><figcaption>screenshot</figcaption></figure></li>`,
		`<li class="artifact" data-kind="log"><a href="artifacts/012-BRIDGE-SNAPSHOT-1.log">artifacts/012-BRIDGE-SNAPSHOT-1.log</a> (log)</li>`,
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the failed spec's card lacks %s", want)
		}
	}
	if i, j := strings.Index(card, `pre class="message"`), strings.Index(card, `class="artifacts"`); i < 0 || j < i {
		t.Error("the artifacts do not follow the failure message")
	}
	if strings.Contains(page, "passed.png") {
		t.Error("a passed spec's artifact is shown")
	}
	if n := strings.Count(page, "<img "); n != 1 {
		t.Errorf("%d images, want 1", n)
	}
	if got := pageCSP(t, page); !strings.HasSuffix(got, "; img-src 'self' data:") || !strings.HasPrefix(got, "default-src 'none'; style-src 'sha256-") {
		t.Errorf("a page with a screenshot has CSP %q, want img-src 'self' data: added and nothing else changed", got)
	}
	if !strings.Contains(reportCSS, ".artifacts img{display:block;max-width:480px;") {
		t.Error("thumbnails are not capped at 480px")
	}

	// A log alone needs no image source; no artifact, no change.
	r.Requirements[findReq(r, "READY-CAPABILITIES")].Specs[0].Artifacts = r.Requirements[findReq(r, "READY-CAPABILITIES")].Specs[0].Artifacts[1:]
	page = writeHTMLPage(t, r, HTMLOptions{})
	if strings.HasSuffix(pageCSP(t, page), "'self' data:") || strings.Contains(page, "<img ") || !strings.Contains(page, `data-kind="log"`) {
		t.Error("a page with a log alone: want its link, no image and img-src data: alone")
	}
	plain := writeHTMLPage(t, testReport(t, 0), HTMLOptions{})
	if !strings.HasSuffix(pageCSP(t, plain), "; img-src data:") || strings.Contains(plain, `class="artifacts"`) {
		t.Error("a page without artifacts changed")
	}
}

// junit.xml attaches each artifact of a spec to its testcase with a
// "[[ATTACHMENT|path]]" line of its own in system-out, and stays valid.
func TestJUnitAttachments(t *testing.T) {
	dir := t.TempDir()
	r := artifactReport(t, dir)
	doc := writeJUnitDoc(t, r)
	for _, p := range validateJUnit(doc) {
		t.Errorf("junit.xml: %s", p)
	}
	root, err := parseXMLTree(doc)
	if err != nil {
		t.Fatal(err)
	}
	attached := map[string][]string{}
	for _, c := range root.child("testsuite").children("testcase") {
		out := c.child("system-out")
		if out == nil {
			continue
		}
		for _, line := range strings.Split(out.Text, "\n") {
			if strings.Contains(line, "ATTACHMENT") {
				attached[c.Attrs["classname"]] = append(attached[c.Attrs["classname"]], line)
			}
		}
	}
	want := map[string][]string{
		"READY-CAPABILITIES": {"[[ATTACHMENT|artifacts/012-BRIDGE-SNAPSHOT-1.png]]", "[[ATTACHMENT|artifacts/012-BRIDGE-SNAPSHOT-1.log]]"},
		"CAT-METADATA":       {"[[ATTACHMENT|artifacts/passed.png]]"},
	}
	if !reflect.DeepEqual(attached, want) {
		t.Errorf("attachment lines by testcase: %q\nwant %q", attached, want)
	}
	if n := bytes.Count(writeJUnitDoc(t, testReport(t, 0)), []byte("ATTACHMENT")); n != 0 {
		t.Errorf("a run without artifacts has %d attachment lines", n)
	}
}

// pageCSP is the page's Content-Security-Policy, unescaped.
func pageCSP(t *testing.T, page string) string {
	t.Helper()
	_, after, ok := strings.Cut(page, `<meta http-equiv="Content-Security-Policy" content="`)
	csp, _, ok2 := strings.Cut(after, `"`)
	if !ok || !ok2 {
		t.Fatal("no Content-Security-Policy")
	}
	return html.UnescapeString(csp)
}
