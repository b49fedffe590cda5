package harness

import (
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"
)

// ConfusableSpellings are the spellings of name a host must not take for
// it (the confusable-identity and representation families): in capitals,
// capitalised, padded either side, cut short by one character and
// extended. name is at least two characters long.
func ConfusableSpellings(name string) []string {
	return []string{
		strings.ToUpper(name), strings.ToUpper(name[:1]) + name[1:],
		name + " ", " " + name, name[:len(name)-1], name + "_2",
	}
}

// AnswerOf is what a control call answered, for a failure message: "ok",
// the host's error with its findings, or why there was no usable answer.
func AnswerOf(err error) string {
	if err == nil {
		return "ok"
	}
	if he, ok := HostError(err); ok {
		return HostErrorText(he)
	}
	return err.Error()
}

// InvalidParamsNaming reports whether err is the host's -32602 whose
// message names field: the refusal the protocol gives a params value the
// host does not know.
func InvalidParamsNaming(err error, field string) bool {
	he, ok := HostError(err)
	return ok && he.Code == protocol.CodeInvalidParams && strings.Contains(he.Message, field)
}
