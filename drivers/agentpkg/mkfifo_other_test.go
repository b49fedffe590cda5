//go:build !unix

package agentpkg

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this system") }
