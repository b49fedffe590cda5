package harness

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/levels"
)

// Generated package trees for the hash checks (spec 000, Package signing
// and revocation; the walk is docs/decisions.md, "The hash walk"). One
// happy path misses the bugs hosts have: files a glob skips (hidden ones),
// bytes a checkout rewrites (CRLF), files that carry no bytes, names that
// are not ASCII, and changes that keep the size. The trees are drawn from a
// seeded generator, so a failure names the seed that reproduces it.

// genNames are the file names trees are drawn from: hidden, non-ASCII,
// spaced, dotted and plain, none differing from another by case alone (a
// host on a case-insensitive disk could not hold both).
var genNames = []string{
	".hidden", ".config.json", "é.txt", "日本語.md", "naïve file.txt", "a.b.c", "z", "data.bin", "readme", "-dash",
}

// genDirs are the folders files are planted in ("" is the package root).
var genDirs = []string{"", "assets", ".well-known", "docs/deep/er", "ü"}

// genKinds is how many kinds of contents genContents makes.
const genKinds = 5

// genContents makes one file's bytes of the given kind: empty, CRLF lines,
// no final newline, binary with NUL, or a single newline.
func genContents(r *rand.Rand, kind int) []byte {
	switch kind {
	case 0:
		return nil
	case 1:
		return []byte(fmt.Sprintf("line %d\r\nline two\r\n", r.IntN(1000)))
	case 2:
		return []byte(fmt.Sprintf("no final newline %d", r.IntN(1000)))
	case 3:
		b := make([]byte, 8+r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		b[0] = 0
		return b
	default:
		return []byte("\n")
	}
}

// PlantGeneratedFiles writes n generated files into dir, drawn from seed,
// and returns their paths (slash-separated, relative to dir), sorted. The
// first genKinds files take one kind of contents each, so every tree holds
// every kind; solo/only-file.txt is the one file of its folder.
func PlantGeneratedFiles(dir string, seed uint64, n int) []string {
	ginkgo.GinkgoHelper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var planted []string
	for len(planted) < n {
		rel := path.Join(genDirs[r.IntN(len(genDirs))], genNames[r.IntN(len(genNames))])
		if slices.Contains(planted, rel) || exists(filepath.Join(dir, filepath.FromSlash(rel))) {
			continue
		}
		kind := len(planted)
		if kind >= genKinds {
			kind = r.IntN(genKinds)
		}
		WriteFile(dir, rel, genContents(r, kind))
		planted = append(planted, rel)
	}
	WriteFile(dir, "solo/only-file.txt", []byte("solo\n"))
	planted = append(planted, "solo/only-file.txt")
	slices.Sort(planted)
	return planted
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// generatedTrees is how many generated trees the hash check walks, and
// changedTreeSeed the tree the change checks start from.
const (
	GeneratedTrees  = 6
	ChangedTreeSeed = 7
)

// TreeChangeEntries is one table entry per change, for VERIFY-PACKAGE-HASH.
func TreeChangeEntries(tc *TestContext) []ginkgo.TableEntry {
	var es []ginkgo.TableEntry
	for _, c := range treeChanges() {
		es = append(es, ginkgo.Entry(c.What, tc.Req("VERIFY-PACKAGE-HASH", levels.EveryMember), c))
	}
	return es
}

// TreeChange is one change to a planted tree that any hash of the
// package's files must see.
type TreeChange struct {
	What  string
	Apply func(dir string, planted []string)
}

// pick returns the first planted file that satisfies ok, or fails the
// harness: the generator's seed guarantees one for every change below.
func pick(dir string, planted []string, ok func(b []byte) bool) string {
	ginkgo.GinkgoHelper()
	for _, rel := range planted {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err == nil && ok(b) {
			return rel
		}
	}
	Errorf("the generated tree has no file this change needs (planted %v)", planted)
	return ""
}

// treeChanges lists the changes of the generated-tree checks.
func treeChanges() []TreeChange {
	rewrite := func(dir, rel string, f func([]byte) []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		b, err := os.ReadFile(p)
		if err != nil {
			Errorf("reading %s: %v", rel, err)
		}
		WriteFile(dir, rel, f(b))
	}
	return []TreeChange{
		{"one byte of a file changed, its size kept", func(dir string, planted []string) {
			rel := pick(dir, planted, func(b []byte) bool { return len(b) > 2 })
			rewrite(dir, rel, func(b []byte) []byte { b[len(b)/2] ^= 0x20; return b })
		}},
		// The only file of its folder: renamed, it keeps its place in the
		// walk, so only a hash that covers names sees the change.
		{"a file renamed in its folder", func(dir string, _ []string) {
			if err := os.Rename(filepath.Join(dir, "solo", "only-file.txt"), filepath.Join(dir, "solo", "renamed-file.txt")); err != nil {
				Errorf("renaming solo/only-file.txt: %v", err)
			}
		}},
		{"an empty file added", func(dir string, _ []string) { WriteFile(dir, "assets/added-empty", nil) }},
		{"a hidden file added", func(dir string, _ []string) { WriteFile(dir, ".added-hidden", []byte("x\n")) }},
		{"a file removed", func(dir string, planted []string) {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(planted[len(planted)-1]))); err != nil {
				Errorf("removing %s: %v", planted[len(planted)-1], err)
			}
		}},
		{"CRLF line ends rewritten as LF", func(dir string, planted []string) {
			rel := pick(dir, planted, func(b []byte) bool { return strings.Contains(string(b), "\r\n") })
			rewrite(dir, rel, func(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "\r\n", "\n")) })
		}},
		{"an empty file given one byte", func(dir string, planted []string) {
			rel := pick(dir, planted, func(b []byte) bool { return len(b) == 0 })
			rewrite(dir, rel, func([]byte) []byte { return []byte{'\n'} })
		}},
	}
}
