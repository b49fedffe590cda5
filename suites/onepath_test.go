package suites

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The harness's trouble is never the host's failure (issue 23 §3): a spec
// ends only through the outcome path (outcome.go), which says whether it
// ended failed, error, blocked or skipped. These tests read the suites'
// source and refuse every other way to end a spec.

// outcomePath lists the files that may end a spec directly (the harness's
// outcome path).
var outcomePath = map[string]bool{filepath.Join("harness", "outcome.go"): true}

// endsSpec are the calls that end a spec outside the outcome path: Ginkgo's
// and Gomega's own failures (always `failed`, whatever went wrong), skips
// and aborts, and polling assertions (they wait on the wall clock).
var endsSpec = map[string]bool{
	"Fail": true, "AbortSuite": true, "Skip": true, "GinkgoT": true,
	"Eventually": true, "EventuallyWithOffset": true, "Consistently": true,
	"ConsistentlyWithOffset": true, "StopTrying": true, "InterceptGomegaFailure": true,
	"InterceptGomegaFailures": true,
}

// errorMatchers assert on an error value. An error in a spec is the
// harness's own trouble (errorf) or a host call's answer (failCall,
// HostErrorCode decide); asserting it would call either `failed`.
var errorMatchers = map[string]bool{"Succeed": true, "HaveOccurred": true, "MatchError": true}

// harnessPackages do the harness's own work (files, processes): a value
// they return is never the host's answer.
var harnessPackages = map[string]bool{"os": true, "syscall": true, "io": true, "io/fs": true,
	"os/exec": true, "path/filepath": true, "io/ioutil": true}

// assertionVerbs are Gomega's assertion methods on Expect(...).
var assertionVerbs = map[string]bool{"To": true, "NotTo": true, "ToNot": true, "Should": true, "ShouldNot": true}

// onePathViolations returns, for one file's source, every place that ends
// a spec outside the outcome path or judges the harness's trouble as the
// host's, as "file:line: what".
func onePathViolations(fset *token.FileSet, f *ast.File) []string {
	imports := map[string]string{} // local name -> import path
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(path)
		switch {
		case im.Name != nil:
			name = im.Name.Name
		case strings.HasPrefix(path, "github.com/onsi/ginkgo/"):
			name = "ginkgo"
		}
		imports[name] = path
	}
	isLib := func(name string) bool {
		p := imports[name]
		return strings.HasPrefix(p, "github.com/onsi/ginkgo") || strings.HasPrefix(p, "github.com/onsi/gomega")
	}
	// callee names a call: "Fail" for a dot-imported Fail or ginkgo.Fail,
	// "" for a method of a value (tc.Failf, f.Fail).
	callee := func(c *ast.CallExpr) (pkg, name string) {
		switch fn := c.Fun.(type) {
		case *ast.Ident:
			return "", fn.Name
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok {
				if _, imported := imports[x.Name]; imported {
					return x.Name, fn.Sel.Name
				}
			}
		}
		return "", ""
	}
	var out []string
	report := func(n ast.Node, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), fmt.Sprintf(format, args...)))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if pkg, name := callee(c); endsSpec[name] && (pkg == "" || isLib(pkg)) {
			report(c, "%s ends the spec outside the outcome path: use tc.Failf (the host broke the clause), tc.Errorf or errorf (the harness's trouble), tc.Blockedf or tc.Skippedf", name)
			return true
		}
		verb, ok := c.Fun.(*ast.SelectorExpr)
		if !ok || !assertionVerbs[verb.Sel.Name] {
			return true
		}
		expect, ok := verb.X.(*ast.CallExpr)
		if !ok || len(expect.Args) == 0 {
			return true
		}
		if pkg, name := callee(expect); name != "Expect" && name != "Ω" && name != "ExpectWithOffset" || pkg != "" && !isLib(pkg) {
			return true
		}
		actual := expect.Args[len(expect.Args)-1]
		if len(c.Args) > 0 {
			if m, ok := c.Args[0].(*ast.CallExpr); ok {
				if _, name := callee(m); errorMatchers[name] {
					report(c, "an assertion %s() on an error calls the harness's trouble `failed`: end with errorf, or let failCall judge a host call's error", name)
				}
			}
		}
		if errLike(actual) {
			report(c, "an assertion on an error value calls the harness's trouble `failed`")
		}
		if ac, ok := actual.(*ast.CallExpr); ok {
			if pkg, name := callee(ac); harnessPackages[imports[pkg]] {
				report(c, "an assertion on %s.%s judges the harness's own work as the host's", pkg, name)
			}
		}
		if len(c.Args) > 1 {
			if lit, ok := c.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s := strings.ToLower(lit.Value); strings.Contains(s, "fixture sanity") || strings.Contains(s, "harness") {
					report(c, "an assertion about the harness's own fixture (%s) fails the host: end with errorf", lit.Value)
				}
			}
		}
		return true
	})
	return out
}

// errLike reports whether e reads as an error value: err, fooErr, or a
// call of a method named ...Err (isFooErr and hasFooErr name booleans).
func errLike(e ast.Expr) bool {
	name := ""
	switch v := e.(type) {
	case *ast.Ident:
		name = v.Name
	case *ast.CallExpr:
		if s, ok := v.Fun.(*ast.SelectorExpr); ok {
			name = s.Sel.Name
		}
	case *ast.SelectorExpr:
		name = v.Sel.Name
	}
	if strings.HasPrefix(name, "is") || strings.HasPrefix(name, "has") {
		return false
	}
	return name == "err" || strings.HasSuffix(name, "Err")
}

// Every spec of the suites ends through the outcome path, and none judges
// the harness's own trouble as the host's failure.
func TestSpecsEndOnlyThroughTheOutcomePath(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	below, err := filepath.Glob(filepath.Join("*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, below...)
	fset := token.NewFileSet()
	var bad []string
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || outcomePath[name] {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		bad = append(bad, onePathViolations(fset, f)...)
	}
	if checked < 20 {
		t.Fatalf("checked %d source files: the suites' source was not found", checked)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// The check itself: each way around the outcome path is caught, and the
// outcome path's own calls and assertions on host answers are not.
func TestOnePathCheckCatchesEveryWayAround(t *testing.T) {
	const header = `package suites
import (
	"os"
	"path/filepath"
	"syscall"
	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)
`
	for name, tt := range map[string]struct {
		body string
		bad  bool
	}{
		"dot-imported Fail":             {`func f() { Fail("x") }`, true},
		"ginkgo.Fail":                   {`func f() { ginkgo.Fail("x") }`, true},
		"Skip":                          {`func f() { Skip("x") }`, true},
		"Eventually":                    {`func f() { Eventually(g).Should(BeTrue()) }`, true},
		"Succeed on a file write":       {`func f() { Expect(os.WriteFile("a", nil, 0)).To(Succeed()) }`, true},
		"HaveOccurred":                  {`func f(err error) { Expect(err).NotTo(HaveOccurred()) }`, true},
		"an error value":                {`func f(err error) { Expect(err).To(BeNil()) }`, true},
		"a hello error":                 {`func f() { Expect(tc.Host().HelloErr()).To(BeNil()) }`, true},
		"a call into a harness package": {`func f() { Expect(syscall.Mkfifo("p", 0)).To(Equal(nil)) }`, true},
		"a path the harness builds":     {`func f() { Expect(filepath.Base(d)).To(Equal("x")) }`, true},
		"fixture sanity":                {`func f() { Expect(want).NotTo(BeEmpty(), "fixture sanity: entries") }`, true},
		"tc.Failf":                      {`func f() { tc.Failf("x") }`, false},
		"errorf":                        {`func f() { errorf("x") }`, false},
		"a host answer":                 {`func f() { Expect(v.AppName).To(Equal("a"), "appName") }`, false},
		"a method named Fail":           {`func (r *rec) Fail() {}; func g(r *rec) { r.Fail() }`, false},
	} {
		t.Run(name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", header+tt.body+"\n", 0)
			if err != nil {
				t.Fatal(err)
			}
			got := onePathViolations(fset, f)
			if tt.bad && len(got) == 0 {
				t.Errorf("%s is not caught", tt.body)
			}
			if !tt.bad && len(got) > 0 {
				t.Errorf("%s is caught, wrongly: %v", tt.body, got)
			}
		})
	}
}
