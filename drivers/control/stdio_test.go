//go:build linux

package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
)

// hostPID is the pid (and process group) of a stdio host.
func hostPID(t *testing.T, cl *Client) int {
	t.Helper()
	s, ok := cl.tr.(*stdioTransport)
	if !ok {
		t.Fatalf("transport %T is not stdio", cl.tr)
	}
	return s.pid()
}

// procState returns the state letter of a process ('Z' for a zombie), or 0
// when there is no such process.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// groupMembers lists the live (non-zombie) processes of a process group.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var live []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid && procState(pid) != 'Z' {
			live = append(live, pid)
		}
	}
	return live
}

// assertGone checks that the reaped leader is gone and that no live process
// is left in its group. Orphans killed with the group are reaped by init
// asynchronously (and a container's init may leave zombies): poll briefly,
// counting zombies as gone.
func assertGone(t *testing.T, pid int, others ...int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("host process %d still exists after Close (kill 0: %v)", pid, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		live := groupMembers(pid)
		for _, o := range others {
			if s := procState(o); s != 0 && s != 'Z' {
				live = append(live, o)
			}
		}
		if err := syscall.Kill(-pid, 0); errors.Is(err, syscall.ESRCH) || len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("processes %v of host group %d still alive", live, pid)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStdioCloseKillsTheGroup(t *testing.T) {
	c := StdioConnector(stdioCmd("grandchild"), os.Stderr, fast)
	cl := mustConnect(t, c, nil)
	var hello struct {
		Grandchild int `json:"grandchild"`
	}
	if err := json.Unmarshal(cl.HelloRaw(), &hello); err != nil || hello.Grandchild == 0 {
		t.Fatalf("hello carries no grandchild pid: %s", cl.HelloRaw())
	}
	pid := hostPID(t, cl)
	if g, err := syscall.Getpgid(hello.Grandchild); err != nil || g != pid {
		t.Fatalf("grandchild %d is in group %d (%v), want %d", hello.Grandchild, g, err, pid)
	}
	if err := cl.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertGone(t, pid, hello.Grandchild)
	// Killed with the group: in it, so no escape.
	if es := c.(ProcessWatcher).Escaped(); len(es) > 0 {
		t.Errorf("a child in the host's group is reported escaped: %+v", es)
	}
}

func TestStdioGraceThenKill(t *testing.T) {
	c := StdioConnector(stdioCmd("ignore-eof"), os.Stderr, fast).(*stdioConnector)
	c.grace = 100 * time.Millisecond
	cl := mustConnect(t, c, nil)
	pid := hostPID(t, cl)
	if err := cl.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertGone(t, pid)
	if err := cl.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// Every fatal failure stops the host at once, without waiting for Close.
func TestStdioFailureKillsHost(t *testing.T) {
	for _, b := range []struct{ behaviour, method string }{
		{"hang-on-list", protocol.MethodList},
		{"garbage-on-list", protocol.MethodList},
		{"flood-on-project", protocol.MethodProject},
		{"crash-on-uninstall", protocol.MethodUninstall},
	} {
		t.Run(b.behaviour, func(t *testing.T) {
			cl := mustConnect(t, StdioConnector(stdioCmd(b.behaviour), os.Stderr, fast), nil)
			pid := hostPID(t, cl)
			if err := cl.Call(context.Background(), b.method, json.RawMessage(`{"path":"/p","appId":"a","keepData":true}`), nil); err == nil {
				t.Fatal("call succeeded")
			}
			assertGone(t, pid)
		})
	}
}

// syncBuffer is a goroutine-safe bytes.Buffer.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStderrFloodIsCapped(t *testing.T) {
	var errOut syncBuffer
	cl := mustConnect(t, StdioConnector(stdioCmd("flood-stderr"), &errOut, fast), nil)
	if err := cl.Call(context.Background(), protocol.MethodList, nil, nil); err != nil {
		t.Fatalf("app/list while flooding stderr: %v", err)
	}
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	got := errOut.String()
	note := fmt.Sprintf("[conformance: host stderr truncated after %d bytes]", stderrCapBytes)
	if !strings.Contains(got, note) || len(got) > stderrCapBytes+len(note)+2 || !strings.HasPrefix(got, "eeee") {
		t.Errorf("stderr passed through: %d bytes, note present %v", len(got), strings.Contains(got, note))
	}
}
