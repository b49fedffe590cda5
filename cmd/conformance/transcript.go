package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/appserver/golden"
)

// cmdTranscript runs `conformance transcript diff GOLDEN RECORDED`.
func cmdTranscript(c *cli, args []string) int {
	fl := flag.NewFlagSet("transcript", flag.ContinueOnError)
	spec := fl.String("spec", "", "compare only the App Server messages of specs whose text contains `TEXT`")
	strict := fl.Bool("strict", false, "count messages the host sent beyond the golden exchange as departures")
	var binds multiFlag
	fl.Var(&binds, "bind", "give a $NAME of the golden exchange its value: `NAME=VALUE` (repeatable)")
	if len(args) > 0 && args[0] == "diff" {
		args = args[1:]
	} else if len(args) == 0 || (args[0] != "-h" && args[0] != "--help" && args[0] != "-help") {
		fmt.Fprintln(c.stderr, "conformance transcript: give diff GOLDEN RECORDED (conformance help transcript)")
		return exitUsage
	}
	pos, code := parseArgs(c, fl, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintln(c.stderr, "conformance transcript diff: give GOLDEN (a .io file) and RECORDED (a report's transcript.jsonl)")
		return exitUsage
	}
	b := golden.Bindings{}
	for _, kv := range binds {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			fmt.Fprintf(c.stderr, "conformance transcript diff: --bind %q: want NAME=VALUE\n", kv)
			return exitUsage
		}
		b[k] = v
	}
	g, err := golden.Load(pos[0])
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance transcript diff: %v\n", err)
		return exitUsage
	}
	seen, err := recordedHostMessages(pos[1], *spec)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance transcript diff: %v\n", err)
		return exitUsage
	}
	mis := golden.Check(g, seen, b, *strict)
	if len(mis) == 0 {
		fmt.Fprintf(c.stdout, "the %d host messages of %s follow %s\n", len(seen), pos[1], pos[0])
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%s departs from %s:\n", pos[1], pos[0])
	for _, m := range mis {
		fmt.Fprintln(c.stdout, "  "+m.String())
	}
	return exitFailed
}

// recordedHostMessages reads what the host sent the App Server from a
// run's transcript.jsonl (its "appserver" peer lines), in order, keeping
// only the specs whose text contains spec ("" keeps all).
func recordedHostMessages(path, spec string) ([]golden.Seen, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<30))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var out []golden.Seen
	no := 0
	for sc.Scan() {
		no++
		var l struct {
			Spec   string  `json:"spec"`
			Dir    string  `json:"dir"`
			Method string  `json:"method"`
			Text   *string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: not a transcript line: %v", path, no, err)
		}
		if l.Dir != "peer" || l.Method != "appserver" || l.Text == nil || !strings.Contains(l.Spec, spec) {
			continue
		}
		var m appserver.Message
		if err := json.Unmarshal([]byte(*l.Text), &m); err != nil {
			return nil, fmt.Errorf("%s:%d: text: not an App Server message: %v", path, no, err)
		}
		if m.Dir == appserver.FromHost && m.Method != "" {
			out = append(out, golden.Seen{Method: m.Method, Params: m.Params})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, errors.New(path + ": no App Server message of the host" + map[bool]string{true: " in a spec matching --spec", false: ""}[spec != ""])
	}
	return out, nil
}
