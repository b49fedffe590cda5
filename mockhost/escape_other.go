//go:build !unix

package mockhost

import "errors"

// leaveSetsidChild needs sessions, which only unix systems have here.
func leaveSetsidChild() (int, error) {
	return 0, errors.New("leave-setsid-child needs a unix system")
}
