package appserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Relay carries a sidecar's stdio to the App Server at addr: what the host
// writes on in goes to the server, what the server answers comes out on
// out, byte for byte (JSON lines). It returns when either side closes.
// This is `conformance appserver-relay ADDR`: a host that spawns its App
// Server as a sidecar and speaks JSONL on its stdio is given this command.
func Relay(ctx context.Context, addr string, in io.Reader, out io.Writer) error {
	d := net.Dialer{Timeout: 5 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("app server relay: dialing %s: %w", addr, err)
	}
	defer c.Close()
	sent := make(chan error, 1)
	go func() {
		_, err := io.Copy(c, in)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		sent <- err
	}()
	// The relay lasts as long as the server's side: after the host closes
	// its stdin the server still answers what it was sent.
	received := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, c)
		received <- err
	}()
	select {
	case err = <-received:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}
