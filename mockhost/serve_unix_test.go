//go:build unix && !mutation

package mockhost

import (
	"context"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
)

// TestServeTCP serves on an ephemeral loopback port, says hello over TCP
// and stops on SIGTERM.
func TestServeTCP(t *testing.T) {
	addrs := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- ServeTCP("127.0.0.1:0", Options{}, func(a net.Addr) { addrs <- a }) }()
	var addr net.Addr
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("ServeTCP: %v", err)
	}
	c, err := control.TCPConnector(addr.String()).Connect(context.Background(), control.NewTranscript(io.Discard, nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Hello().Host.Name != Name || c.HelloErr() != nil {
		t.Errorf("hello over TCP: %+v %v", c.Hello(), c.HelloErr())
	}
	var l protocol.ListResult
	if err := c.Call(context.Background(), protocol.MethodList, nil, &l); err != nil {
		t.Errorf("app/list over TCP: %v", err)
	}
	_ = c.Close()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeTCP after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeTCP did not return after SIGTERM")
	}
}
