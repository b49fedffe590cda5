package control

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// envBehaviour selects, in a re-executed test binary, the host behaviour to
// serve on stdio (TestMain).
const envBehaviour = "CONTROL_TEST_HOST"

// helperModes are behaviours of a re-executed test binary that serve no
// host (a platform's test files add theirs in init).
var helperModes = map[string]func(){}

// startHooks start, for a host behaviour, a child of the host and return
// its pid, which hello then carries as "grandchild".
var startHooks = map[string]func() (int, error){}

func TestMain(m *testing.M) {
	if b := os.Getenv(envBehaviour); b != "" {
		if b == "sleep" {
			time.Sleep(time.Minute)
			os.Exit(0)
		}
		if run, ok := helperModes[b]; ok {
			run()
			os.Exit(0)
		}
		serveTestHost(os.Stdin, os.Stdout, b, os.Exit)
		if strings.HasSuffix(b, "ignore-eof") {
			time.Sleep(time.Minute)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const okHello = `{"host":{"name":"test-host","version":"0.0.1","kind":"reference"},"protocolVersion":"1",` +
	`"capabilities":{"storage":{"version":"1.0.0","enabled":true}},"levels":["catalog"]}`

// serveTestHost is a hand-written host that misbehaves on purpose: it reads
// frames with readFrame and writes raw bytes, so every fault is exact.
// exit ends the host (os.Exit on stdio; a return on a pipe).
func serveTestHost(r io.Reader, w io.Writer, behaviour string, exit func(code int)) {
	br := bufio.NewReader(r)
	reply := func(id json.RawMessage, result string) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	replyErr := func(id json.RawMessage, code int, msg, data string) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":%s}}`, id, code, msg, data)
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	var grandchild int
	if behaviour == "grandchild" {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), envBehaviour+"=sleep")
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			exit(9)
			return
		}
		grandchild = cmd.Process.Pid
	}
	if start, ok := startHooks[behaviour]; ok {
		pid, err := start()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			exit(9)
			return
		}
		grandchild = pid
	}
	if behaviour == "flood-stderr" {
		chunk := strings.Repeat("e", 64<<10)
		for range 64 { // 4 MiB
			fmt.Fprint(os.Stderr, chunk)
		}
	}
	for {
		body, _, err := readFrame(br, 1<<30)
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(body, &req) != nil {
			return
		}
		switch req.Method {
		case "conformance/hello":
			if behaviour == "slow-start" {
				time.Sleep(600 * time.Millisecond) // a host still starting
			}
			switch behaviour {
			case "bad-hello":
				reply(req.ID, `{"host":{"name":"test-host","version":"0.0.1","kind":"toaster"},"protocolVersion":"0","capabilities":{},"levels":[]}`)
			case "error-hello":
				replyErr(req.ID, -32603, "hello is broken", `null`)
			default:
				if grandchild != 0 {
					reply(req.ID, strings.Replace(okHello, `"levels"`, fmt.Sprintf(`"grandchild":%d,"levels"`, grandchild), 1))
					break
				}
				reply(req.ID, okHello)
			}
			if behaviour == "crash-after-hello" {
				exit(5)
				return
			}
			if behaviour == "stop-reading" {
				time.Sleep(time.Minute)
			}
		case "host/configure":
			var p struct {
				Secrets map[string]string `json:"secrets"`
			}
			_ = json.Unmarshal(req.Params, &p)
			echo, _ := json.Marshal(p.Secrets)
			reply(req.ID, fmt.Sprintf(`{"ok":true,"echo":%s}`, echo))
		case "host/reset":
			reply(req.ID, `{"ok":true}`)
		case "app/list":
			switch behaviour {
			case "hang-on-list":
				continue // never answered
			case "garbage-on-list":
				fmt.Fprint(w, "Content-Length: 7\r\n\r\nxyzzy!!")
			case "unframed-on-list":
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"apps":[],"retained":[]}}`+"\n", req.ID)
			case "long-header":
				fmt.Fprintf(w, "X-Padding: %s\r\n", strings.Repeat("p", 5000))
			default:
				reply(req.ID, `{"apps":[],"retained":[]}`)
			}
		case "app/uninstall":
			if behaviour == "crash-on-uninstall" {
				fmt.Fprint(w, "Content-Length: 200\r\n\r\n{\"jsonrpc\":\"2.0\",")
				exit(3)
				return
			}
			reply(req.ID, `{"ok":true,"appId":"a","dataRemoved":true}`)
		case "package/project":
			if behaviour == "flood-on-project" {
				fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", 100<<20)
				chunk := []byte(strings.Repeat("x", 64<<10))
				for {
					if _, err := w.Write(chunk); err != nil {
						exit(0)
						return
					}
				}
			}
			reply(req.ID, `{"ok":false,"projection":null}`)
		case "app/install":
			replyErr(req.ID, -32003, "install needs consent",
				`{"findings":[{"code":"consent-missing","severity":"error","field":"consent","message":"no consent"}]}`)
		case "app/readiness":
			reply(req.ID, `{"ok":true,"status":"ok","checks":[]}`)
		case "test/big":
			reply(req.ID, fmt.Sprintf(`{"blob":%q}`, strings.Repeat("b", 100<<10)))
		default:
			replyErr(req.ID, -32601, "method not found: "+req.Method, `null`)
		}
	}
}

// pipeHost returns a serve function running serveTestHost in-process; an
// exit ends serve, and PipeConnector then closes the host's end.
func pipeHost(behaviour string) func(io.ReadWriteCloser) {
	return func(conn io.ReadWriteCloser) {
		serveTestHost(conn, conn, behaviour, func(int) {})
	}
}

// stdioCmd is the shell command that re-executes this test binary as a host.
func stdioCmd(behaviour string) string {
	return fmt.Sprintf("%s=%s exec '%s'", envBehaviour, behaviour, strings.ReplaceAll(os.Args[0], "'", `'\''`))
}

// jsonrpc2Host is a well-behaved host built on the jsonrpc2 library's own
// Content-Length codec: it proves the framing interoperates.
func jsonrpc2Host(conn io.ReadWriteCloser) {
	h := jsonrpc2.HandlerWithError(func(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		switch req.Method {
		case "conformance/hello":
			return json.RawMessage(okHello), nil
		case "app/list":
			return json.RawMessage(`{"apps":[],"retained":[]}`), nil
		case "test/ask-harness":
			var out any
			err := c.Call(ctx, "harness/anything", nil, &out)
			return map[string]string{"harnessSaid": fmt.Sprint(err)}, nil
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "no " + req.Method}
	})
	c := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(conn, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.AsyncHandler(h), jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	<-c.DisconnectNotify()
}
