package control

import (
	"context"
	"io"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

func benchRoundTrip(b *testing.B, c Connector, t *Transcript) {
	cl, err := c.Connect(context.Background(), t)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	var list protocol.ListResult
	b.ReportAllocs()
	for b.Loop() {
		if err := cl.Call(ctx, protocol.MethodList, nil, &list); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripPipe is one app/list call (framing, schema check,
// decode) against an in-process jsonrpc2 host, recording a transcript.
func BenchmarkRoundTripPipe(b *testing.B) {
	benchRoundTrip(b, PipeConnector(jsonrpc2Host), NewTranscript(io.Discard, NewRedactor()))
}

// BenchmarkRoundTripStdio is the same call against a child process host.
func BenchmarkRoundTripStdio(b *testing.B) {
	benchRoundTrip(b, StdioConnector(stdioCmd("ok"), io.Discard), NewTranscript(io.Discard, NewRedactor()))
}

// BenchmarkConnectStdio starts a host, says hello and stops it.
func BenchmarkConnectStdio(b *testing.B) {
	c := StdioConnector(stdioCmd("ok"), io.Discard)
	for b.Loop() {
		cl, err := c.Connect(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := cl.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
