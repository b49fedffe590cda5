package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Parsing JSON costs far more memory than its bytes: a 60 MB report.json of
// millions of empty arrays took diff to 1.6 GB. So what verify, diff and
// merge read is bounded in values and nesting too, not only in bytes
// (MaxInputBytes), and refused before it is parsed. A real report holds a
// few ten thousand values and nests about eight deep.
const (
	// MaxInputValues caps the JSON tokens (values and member names) of a
	// report, statement or envelope payload.
	MaxInputValues = 250_000
	// MaxInputDepth caps how deep its arrays and objects nest.
	MaxInputDepth = 64
)

// checkJSONBounds walks data's tokens once, keeping none, and refuses it
// past MaxInputValues tokens or MaxInputDepth levels of nesting. It stops
// at the first token over a limit, so the cost of refusing is bounded too.
// Input that is not JSON passes: the parser that follows says why.
func checkJSONBounds(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, depth := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			// io.EOF: the input ended within the limits. Anything else is
			// not JSON, which the parser that follows explains.
			return nil
		}
		if d, ok := tok.(json.Delim); ok && (d == ']' || d == '}') {
			depth--
			continue
		}
		if n++; n > MaxInputValues {
			return fmt.Errorf("it holds more than the limit of %d JSON values", MaxInputValues)
		}
		if d, ok := tok.(json.Delim); ok && (d == '[' || d == '{') {
			if depth++; depth > MaxInputDepth {
				return fmt.Errorf("it nests deeper than the limit of %d levels", MaxInputDepth)
			}
		}
	}
}
