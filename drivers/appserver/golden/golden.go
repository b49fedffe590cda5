// Package golden reads and checks golden App Server transcripts: an
// exchange between a host and the App Server written down once, in the
// spirit of the Ethereum execution-apis `.io` files, with the matchers
// those lack. A spec replays the App Server's side of it and checks the
// host's side against it; `conformance transcript diff` explains where a
// recorded exchange departs from it.
//
// The format is one message per line:
//
//	# a comment
//	>> METHOD [PARAMS]    the host sends a request or notification
//	<< RESULT             the App Server answers the request above
//	<! ERROR              the App Server answers it with an error {code, message}
//	<- METHOD [PARAMS]    the App Server sends a notification
//	unordered {           the host messages up to the closing } may come in any order
//	}
//
// Expected values are JSON. A string value may be a matcher: "$any"
// (present, any value), "$re:REGEXP" (a string matching it),
// "$capture:NAME" (any value, bound to NAME on first sight) and "$NAME"
// (equal to the value bound to NAME, or given as a binding up front). An
// object matches when every member it names matches (members it does not
// name are ignored: times, ids, host options); arrays match element by
// element. Comparison is semantic JSON: key order, whitespace and number
// spelling do not count.
package golden

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Directions of a golden line.
const (
	HostSends       = ">>"
	ServerAnswers   = "<<"
	ServerFails     = "<!"
	ServerNotifies  = "<-"
	maxLine         = 1 << 20
	maxGoldenFile   = 8 << 20
	unorderedOpen   = "unordered {"
	unorderedClose  = "}"
	capturePrefix   = "$capture:"
	regexpPrefix    = "$re:"
	anyValue        = "$any"
	bindingPrefix   = "$"
	maxBindingName  = 64
	maxRegexpLength = 1024
)

// Line is one message of a golden transcript.
type Line struct {
	No     int             // line number in the file
	Dir    string          // HostSends, ServerAnswers, ServerFails, ServerNotifies
	Method string          // for HostSends and ServerNotifies
	Body   json.RawMessage // params, result or error; nil when none
	// Group numbers the unordered block the line is in (0: none).
	Group int
}

// Golden is a parsed transcript.
type Golden struct {
	Name  string
	Lines []Line
}

// Load reads a golden transcript file.
func Load(path string) (*Golden, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g, err := Parse(io.LimitReader(f, maxGoldenFile), path)
	if err != nil {
		return nil, err
	}
	return g, nil
}

// Parse reads a golden transcript; name labels errors ("NAME:LINE: ...").
func Parse(r io.Reader, name string) (*Golden, error) {
	g := &Golden{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	group, groups, no := 0, 0, 0
	for sc.Scan() {
		no++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
			continue
		case text == unorderedOpen:
			if group != 0 {
				return nil, fmt.Errorf("%s:%d: unordered blocks do not nest", name, no)
			}
			groups++
			group = groups
			continue
		case text == unorderedClose:
			if group == 0 {
				return nil, fmt.Errorf("%s:%d: } closes no unordered block", name, no)
			}
			group = 0
			continue
		}
		dir, rest, _ := strings.Cut(text, " ")
		l := Line{No: no, Dir: dir, Group: group}
		switch dir {
		case HostSends, ServerNotifies:
			method, body, _ := strings.Cut(strings.TrimSpace(rest), " ")
			if method == "" || strings.HasPrefix(method, "{") {
				return nil, fmt.Errorf("%s:%d: %s needs a method name", name, no, dir)
			}
			l.Method = method
			rest = body
		case ServerAnswers, ServerFails:
		default:
			return nil, fmt.Errorf("%s:%d: a line starts with >>, <<, <!, <-, # or unordered {, not %q", name, no, dir)
		}
		if dir != HostSends && group != 0 {
			return nil, fmt.Errorf("%s:%d: only host messages (>>) go in an unordered block", name, no)
		}
		if rest = strings.TrimSpace(rest); rest != "" {
			var v any
			if err := json.Unmarshal([]byte(rest), &v); err != nil {
				return nil, fmt.Errorf("%s:%d: not JSON: %v", name, no, err)
			}
			if err := checkMatchers(v); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, no, err)
			}
			l.Body = json.RawMessage(rest)
		}
		if (dir == ServerAnswers || dir == ServerFails) && (len(g.Lines) == 0 || g.Lines[len(g.Lines)-1].Dir != HostSends) {
			return nil, fmt.Errorf("%s:%d: %s answers the host request on the line before it; there is none", name, no, dir)
		}
		if dir == ServerFails {
			var e struct {
				Code    *int64 `json:"code"`
				Message string `json:"message"`
			}
			if json.Unmarshal(l.Body, &e) != nil || e.Code == nil || e.Message == "" {
				return nil, fmt.Errorf("%s:%d: <! needs {\"code\": N, \"message\": \"...\"}", name, no)
			}
		}
		g.Lines = append(g.Lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, no+1, err)
	}
	if group != 0 {
		return nil, fmt.Errorf("%s: an unordered block is not closed", name)
	}
	if len(g.Lines) == 0 {
		return nil, fmt.Errorf("%s: no message", name)
	}
	return g, nil
}

// checkMatchers refuses a matcher that could never match: a bad regexp,
// a capture without a name.
func checkMatchers(v any) error {
	switch x := v.(type) {
	case string:
		switch {
		case strings.HasPrefix(x, regexpPrefix):
			pat := strings.TrimPrefix(x, regexpPrefix)
			if len(pat) > maxRegexpLength {
				return fmt.Errorf("the pattern %.40q... is longer than %d", pat, maxRegexpLength)
			}
			if _, err := regexp.Compile(pat); err != nil {
				return fmt.Errorf("the pattern %q: %v", pat, err)
			}
		case strings.HasPrefix(x, capturePrefix):
			if n := strings.TrimPrefix(x, capturePrefix); n == "" || len(n) > maxBindingName {
				return fmt.Errorf("%q names no binding", x)
			}
		}
	case map[string]any:
		for _, e := range x {
			if err := checkMatchers(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := checkMatchers(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// HostLines are the lines the host must send, in file order.
func (g *Golden) HostLines() []Line {
	var out []Line
	for _, l := range g.Lines {
		if l.Dir == HostSends {
			out = append(out, l)
		}
	}
	return out
}

// Bindings are the values the "$NAME" matchers stand for.
type Bindings map[string]any

// Names lists the bound names, sorted.
func (b Bindings) Names() []string {
	out := make([]string, 0, len(b))
	for k := range b {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
