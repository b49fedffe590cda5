package agentpkg

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// FuzzParseManifest: any APP.md bytes are parsed, validated, projected and
// judged without a panic.
func FuzzParseManifest(f *testing.F) {
	fixtures := platformconformance.FS()
	_ = fs.WalkDir(fixtures, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, "/APP.md") || strings.HasSuffix(p, ".yaml")) {
			if b, err := fs.ReadFile(fixtures, p); err == nil && len(b) < 64<<10 {
				if !strings.HasSuffix(p, "APP.md") {
					b = append([]byte("---\n"+requiredFields), append(append([]byte{}, b...), []byte("---\n")...)...)
				}
				f.Add(b)
			}
		}
		return nil
	})
	for _, s := range []string{"", "---", "---\n---\n", "\xef\xbb\xbf---\r\nname: x\r\n---\r\n", "---\n: : :\n---\n",
		"---\na: &a [*a]\n---\n", "---\n<<: [1]\n---\n", "---\n? [a]\n: b\n---\n", "---\nentries: {}\n---\n"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := &Package{Dir: dir, Manifest: map[string]any{}, Sources: map[string]string{}, PackageHash: "sha256:0", ManifestHash: HashManifest(raw)}
		p.parse(raw, LoadOptions{})
		for _, fd := range p.Findings {
			if fd.Code == "" || fd.Severity == "" || fd.Message == "" {
				t.Fatalf("incomplete finding %+v", fd)
			}
		}
		_, _ = Project(p, Profile{Capabilities: defaultCaps()})
		_ = Readiness(p, Env{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Capabilities: defaultCaps()})
	})
}

// refHash is an independent reference of packageHash over an in-memory tree:
// it sorts each directory by hand-computed UTF-16 code units.
func refHash(files map[string][]byte) string {
	var b bytes.Buffer
	var walk func(prefix string)
	walk = func(prefix string) {
		children := map[string]bool{}
		for p := range files {
			if rest, ok := strings.CutPrefix(p, prefix); ok {
				name, _, _ := strings.Cut(rest, "/")
				children[name] = true
			}
		}
		names := make([]string, 0, len(children))
		for n := range children {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return lessUnits(names[i], names[j]) })
		for _, n := range names {
			if n == "node_modules" || n == ".git" {
				continue
			}
			if content, ok := files[prefix+n]; ok {
				b.WriteString(prefix + n)
				b.WriteByte(0)
				b.Write(content)
				b.WriteByte(0)
			} else {
				walk(prefix + n + "/")
			}
		}
	}
	walk("")
	return sha(b.Bytes())
}

func lessUnits(a, b string) bool {
	units := func(s string) []int {
		var u []int
		for _, r := range s {
			if r >= 0x10000 {
				r -= 0x10000
				u = append(u, 0xD800+int(r>>10), 0xDC00+int(r&0x3FF))
			} else {
				u = append(u, int(r))
			}
		}
		return u
	}
	ua, ub := units(a), units(b)
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

// FuzzHashPackage: for any file names and contents, HashPackage equals the reference.
func FuzzHashPackage(f *testing.F) {
	fixtures := platformconformance.FS()
	for _, name := range platformconformance.Names() {
		var paths []string
		_ = fs.WalkDir(fixtures, name, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && len(paths) < 3 {
				paths = append(paths, p)
			}
			return nil
		})
		if len(paths) == 3 {
			var c [3][]byte
			for i, p := range paths {
				c[i], _ = fs.ReadFile(fixtures, p)
			}
			f.Add(paths[0], c[0], paths[1], c[1], paths[2], c[2])
		}
	}
	f.Add("a/b.txt", []byte("1"), "a-b/c.txt", []byte("2"), "a.txt", []byte("3"))
	f.Add("\U0001F600.txt", []byte("emoji"), "\uFF5A.txt", []byte("z"), "node_modules/dep/index.js", []byte("x"))
	f.Add("APP.md", []byte("---\nname: x\n---\n"), "sub/.git/HEAD", []byte("ref"), "Z", []byte{})
	f.Fuzz(func(t *testing.T, n1 string, c1 []byte, n2 string, c2 []byte, n3 string, c3 []byte) {
		files := map[string][]byte{}
		for i, n := range []string{n1, n2, n3} {
			if !fuzzablePath(n) {
				t.Skip()
			}
			for p := range files { // one may not be a folder of another
				if strings.HasPrefix(p, n+"/") || strings.HasPrefix(n, p+"/") || p == n {
					t.Skip()
				}
			}
			files[n] = [][]byte{c1, c2, c3}[i]
		}
		dir := t.TempDir()
		for p, c := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Skip()
			}
			if err := os.WriteFile(full, c, 0o644); err != nil {
				t.Skip()
			}
		}
		got, _, err := HashPackage(dir, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := refHash(files); got != want {
			t.Fatalf("hash %s, reference %s for %q", got, want, []string{n1, n2, n3})
		}
	})
}

func fuzzablePath(p string) bool {
	if p == "" || len(p) > 120 || !utf8.ValidString(p) || strings.ContainsAny(p, "\x00\\") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || len(part) > 60 {
			return false
		}
	}
	return true
}
