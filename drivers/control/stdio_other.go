//go:build !unix

package control

import (
	"context"
	"errors"
	"io"
)

// StdioConnector needs process groups, which only unix systems have here.
func StdioConnector(cmdline string, stderr io.Writer, opts ...Options) Connector {
	return stdioUnsupported{cmdline: cmdline}
}

type stdioUnsupported struct{ cmdline string }

func (s stdioUnsupported) Describe() string  { return "stdio: " + s.cmdline }
func (s stdioUnsupported) Transport() string { return "stdio" }
func (s stdioUnsupported) Connect(context.Context, *Transcript) (*Client, error) {
	return nil, errors.New("stdio hosts are supported on unix systems only; use --host-addr")
}
