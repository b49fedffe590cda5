package suites

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The suites' layout (issue 25): suites/harness is everything that is not a
// spec; each area is a package of its own that declares its specs against
// the harness. An area imports no other area and ends no spec by itself:
// only the harness's outcome path reports an outcome, and only the
// harness writes report entries.

const modulePath = "github.com/agentapp/conformance/"

// areaOnlyThrough are the Ginkgo calls an area leaves to the harness.
var areaOnlyThrough = map[string]bool{"Fail": true, "Skip": true, "AbortSuite": true, "AddReportEntry": true}

// packageDirs lists the folders below suites that hold Go files.
func packageDirs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if m, _ := filepath.Glob(filepath.Join(e.Name(), "*.go")); len(m) > 0 {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// layoutViolations reads one package folder's files (tests too) and
// returns what breaks the layout, as "file:line: what".
func layoutViolations(t *testing.T, dir string, areas []string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var bad []string
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		bad = append(bad, fileLayoutViolations(fset, f, dir, areas)...)
	}
	return bad
}

// fileLayoutViolations checks one parsed file of package folder dir.
func fileLayoutViolations(fset *token.FileSet, f *ast.File, dir string, areas []string) []string {
	var bad []string
	ginkgoNames := map[string]bool{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		at := fset.Position(im.Pos()).String()
		if strings.HasPrefix(path, "github.com/onsi/ginkgo/v2") && !strings.Contains(path, "/v2/") {
			name := "ginkgo"
			if im.Name != nil {
				name = im.Name.Name
			}
			ginkgoNames[name] = true
		}
		rest, ours := strings.CutPrefix(path, modulePath+"suites")
		if !ours {
			continue
		}
		imported := strings.TrimPrefix(rest, "/")
		switch {
		case dir == "harness" && imported != "":
			bad = append(bad, at+": the harness imports "+path+" (it imports no area and not the facade)")
		case dir != "harness" && imported == "":
			bad = append(bad, at+": "+dir+" imports the facade suites")
		case dir != "harness" && imported != "harness" && slices.Contains(areas, imported):
			bad = append(bad, at+": area "+dir+" imports area "+imported)
		}
	}
	if dir == "harness" {
		return bad
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		var name string
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			if ginkgoNames["."] {
				name = fn.Name
			}
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok && ginkgoNames[x.Name] {
				name = fn.Sel.Name
			}
		}
		if areaOnlyThrough[name] {
			bad = append(bad, fset.Position(call.Pos()).String()+": area "+dir+" calls Ginkgo's "+name+" (the harness's outcome path and collector do that)")
		}
		return true
	})
	return bad
}

// No area imports another, the harness imports no area, and no area ends a
// spec or writes a report entry through Ginkgo itself.
func TestAreasStandAloneOnTheHarness(t *testing.T) {
	dirs := packageDirs(t)
	if !slices.Contains(dirs, "harness") || len(dirs) < 10 {
		t.Fatalf("found %v below suites: the suites' packages were not found", dirs)
	}
	var areas []string
	for _, d := range dirs {
		if d != "harness" {
			areas = append(areas, d)
		}
	}
	for _, d := range dirs {
		for _, b := range layoutViolations(t, d, areas) {
			t.Error(b)
		}
	}
}

// The check itself catches each way around the layout and lets the
// harness's own calls be.
func TestLayoutCheckCatchesEveryWayAround(t *testing.T) {
	const imports = `import (
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2"
	"github.com/agentapp/conformance/suites/harness"
	%s
)
`
	for name, tt := range map[string]struct {
		dir, imp, body string
		bad            bool
	}{
		"an area importing another":      {"install", `"github.com/agentapp/conformance/suites/catalog"`, ``, true},
		"an area importing the facade":   {"install", `"github.com/agentapp/conformance/suites"`, ``, true},
		"the harness importing an area":  {"harness", `"github.com/agentapp/conformance/suites/data"`, ``, true},
		"dot-imported Fail in an area":   {"data", ``, `func f() { Fail("x") }`, true},
		"ginkgo.Skip in an area":         {"data", ``, `func f() { ginkgo.Skip("x") }`, true},
		"AbortSuite in an area":          {"data", ``, `func f() { AbortSuite("x") }`, true},
		"AddReportEntry in an area":      {"data", ``, `func f() { AddReportEntry("x", 1) }`, true},
		"AddReportEntry in the harness":  {"harness", ``, `func f() { AddReportEntry("x", 1) }`, false},
		"an area on the harness":         {"data", ``, `func f(tc *harness.TestContext) { tc.Failf("x") }`, false},
		"a method named Skip in an area": {"data", ``, `func f(r *rec) { r.Skip() }`, false},
	} {
		t.Run(name, func(t *testing.T) {
			header := imports
			if tt.dir == "harness" {
				header = strings.Replace(header, "\t\"github.com/agentapp/conformance/suites/harness\"\n", "", 1)
			}
			src := "package " + tt.dir + "\n" + strings.Replace(header, "%s", tt.imp, 1) + tt.body + "\n"
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", src, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := fileLayoutViolations(fset, f, tt.dir, []string{"catalog", "data", "install"})
			if tt.bad && len(got) == 0 {
				t.Errorf("not caught:\n%s", src)
			}
			if !tt.bad && len(got) > 0 {
				t.Errorf("caught, wrongly: %v", got)
			}
		})
	}
}
