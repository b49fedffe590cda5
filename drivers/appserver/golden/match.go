package golden

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// Seen is one message the host sent, as recorded.
type Seen struct {
	Method string
	Params json.RawMessage
}

// Mismatch is one place where the host's side departs from the golden one.
type Mismatch struct {
	Line   int    // the golden line (0: the host sent more than the golden has)
	Index  int    // the host message, from 1 (0: the host sent too few)
	Method string // the golden line's method, or the extra message's
	Path   string // JSON path inside params, "" for the message as a whole
	Want   string
	Got    string
}

func (m Mismatch) String() string {
	var where string
	switch {
	case m.Line == 0:
		where = fmt.Sprintf("host message %d (%s), beyond the golden exchange", m.Index, m.Method)
	case m.Index == 0:
		where = fmt.Sprintf("golden line %d (>> %s), which the host never sent", m.Line, m.Method)
	default:
		where = fmt.Sprintf("golden line %d (>> %s), host message %d", m.Line, m.Method, m.Index)
	}
	if m.Path != "" {
		where += " at params" + m.Path
	}
	return fmt.Sprintf("%s: expected %s, seen %s", where, m.Want, m.Got)
}

// maxMismatches bounds a report: the first ones say where it went wrong.
const maxMismatches = 20

// Check compares the host's messages with the golden host lines, in order
// (an unordered block in any order), binding captures into b (which may
// hold bindings given up front). With strict, messages beyond the golden
// exchange are mismatches too; without, they are ignored (the host went
// on to something else). It returns the mismatches, at most 20.
func Check(g *Golden, seen []Seen, b Bindings, strict bool) []Mismatch {
	var out []Mismatch
	add := func(m ...Mismatch) { out = append(out, m...) }
	lines := g.HostLines()
	i := 0
	for k := 0; k < len(lines) && len(out) < maxMismatches; {
		block := []Line{lines[k]}
		if g := lines[k].Group; g != 0 {
			for k+len(block) < len(lines) && lines[k+len(block)].Group == g {
				block = append(block, lines[k+len(block)])
			}
		}
		k += len(block)
		if i+len(block) > len(seen) {
			for _, l := range block[max(0, len(seen)-i):] {
				add(Mismatch{Line: l.No, Method: l.Method, Want: ">> " + l.Method, Got: "nothing"})
			}
			for _, l := range lines[k:] {
				add(Mismatch{Line: l.No, Method: l.Method, Want: ">> " + l.Method, Got: "nothing"})
			}
			i = len(seen)
			break
		}
		window := seen[i : i+len(block)]
		used := make([]bool, len(window))
		for _, l := range block {
			best, bestMis := -1, []Mismatch(nil)
			for j, s := range window {
				if used[j] {
					continue
				}
				trial := Bindings{}
				for n, v := range b {
					trial[n] = v
				}
				mis := matchLine(l, s, i+j+1, trial)
				if len(mis) == 0 {
					best, bestMis = j, nil
					for n, v := range trial {
						b[n] = v
					}
					break
				}
				if best < 0 || (s.Method == l.Method && len(mis) < len(bestMis)) {
					best, bestMis = j, mis
				}
			}
			used[best] = true
			add(bestMis...)
		}
		i += len(block)
	}
	if strict {
		for j := i; j < len(seen) && len(out) < maxMismatches; j++ {
			add(Mismatch{Index: j + 1, Method: seen[j].Method, Want: "nothing more", Got: ">> " + seen[j].Method})
		}
	}
	if len(out) > maxMismatches {
		out = out[:maxMismatches]
	}
	return out
}

// matchLine compares one host message with one golden line.
func matchLine(l Line, s Seen, index int, b Bindings) []Mismatch {
	if s.Method != l.Method {
		return []Mismatch{{Line: l.No, Index: index, Method: l.Method, Want: ">> " + l.Method, Got: ">> " + s.Method}}
	}
	if l.Body == nil {
		return nil
	}
	var want, got any
	_ = json.Unmarshal(l.Body, &want)
	if len(s.Params) > 0 && json.Unmarshal(s.Params, &got) != nil {
		return []Mismatch{{Line: l.No, Index: index, Method: l.Method, Want: "JSON params", Got: "params that are not JSON"}}
	}
	var out []Mismatch
	match(want, got, len(s.Params) > 0, "", b, func(path, w, g string) {
		out = append(out, Mismatch{Line: l.No, Index: index, Method: l.Method, Path: path, Want: w, Got: g})
	})
	return out
}

// match compares an expected value (with matchers) and a seen one.
func match(want, got any, present bool, path string, b Bindings, miss func(path, want, got string)) {
	if s, ok := want.(string); ok && strings.HasPrefix(s, bindingPrefix) && !strings.HasPrefix(s, "$$") {
		matchMatcher(s, got, present, path, b, miss)
		return
	}
	if !present {
		miss(path, show(want), "nothing (absent)")
		return
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			miss(path, "an object", show(got))
			return
		}
		for _, k := range sortedKeys(w) {
			gv, has := g[k]
			match(w[k], gv, has, path+"/"+escape(k), b, miss)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			miss(path, fmt.Sprintf("an array of %d", len(w)), show(got))
			return
		}
		for i := range w {
			match(w[i], g[i], true, fmt.Sprintf("%s/%d", path, i), b, miss)
		}
	default:
		if s, ok := want.(string); ok && strings.HasPrefix(s, "$$") {
			want = s[1:]
		}
		if !reflect.DeepEqual(want, got) {
			miss(path, show(want), show(got))
		}
	}
}

// matchMatcher applies one "$..." matcher.
func matchMatcher(m string, got any, present bool, path string, b Bindings, miss func(path, want, got string)) {
	switch {
	case m == anyValue:
		if !present {
			miss(path, "a value", "nothing (absent)")
		}
	case strings.HasPrefix(m, regexpPrefix):
		s, ok := got.(string)
		if !present || !ok || !regexp.MustCompile(strings.TrimPrefix(m, regexpPrefix)).MatchString(s) {
			miss(path, "a string matching "+strings.TrimPrefix(m, regexpPrefix), showPresent(got, present))
		}
	case strings.HasPrefix(m, capturePrefix):
		name := strings.TrimPrefix(m, capturePrefix)
		if !present {
			miss(path, "a value to capture as $"+name, "nothing (absent)")
			return
		}
		if v, bound := b[name]; bound {
			if !reflect.DeepEqual(v, got) {
				miss(path, fmt.Sprintf("$%s (%s, captured before)", name, show(v)), show(got))
			}
			return
		}
		b[name] = got
	default:
		name := strings.TrimPrefix(m, bindingPrefix)
		v, bound := b[name]
		if !bound {
			miss(path, "$"+name+" (bound to nothing yet)", showPresent(got, present))
			return
		}
		if !present || !reflect.DeepEqual(normalize(v), got) {
			miss(path, fmt.Sprintf("$%s (%s)", name, show(v)), showPresent(got, present))
		}
	}
}

// normalize gives a binding given up front (a Go value) the shape JSON
// decoding gives a seen value.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func showPresent(v any, present bool) string {
	if !present {
		return "nothing (absent)"
	}
	return show(v)
}

// show renders a value for a mismatch, cut to 200 bytes.
func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// escape writes a member name as a JSON pointer token (RFC 6901).
func escape(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
