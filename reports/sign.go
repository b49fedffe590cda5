package reports

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// SignPayload wraps an in-toto statement in a DSSE envelope signed by every
// key, over DSSE's pre-authentication encoding (go-securesystemslib's dsse
// package). The envelope is compact JSON with no trailing newline, so that
// changing any byte of the file changes what verify sees.
func SignPayload(ctx context.Context, payload []byte, keys ...*Key) ([]byte, error) {
	signers := make([]dsse.Signer, 0, len(keys))
	for _, k := range keys {
		if k == nil {
			continue
		}
		if k.priv == nil {
			return nil, fmt.Errorf("key %s is a public key and cannot sign", k.label)
		}
		signers = append(signers, k)
	}
	es, err := dsse.NewEnvelopeSigner(signers...)
	if err != nil {
		return nil, fmt.Errorf("signing report: %w", err)
	}
	env, err := es.SignPayload(ctx, PayloadType, payload)
	if err != nil {
		return nil, fmt.Errorf("signing report: %w", err)
	}
	b, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("encoding DSSE envelope: %w", err)
	}
	return b, nil
}
