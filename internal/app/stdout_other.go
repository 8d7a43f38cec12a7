//go:build !unix

package app

import "os"

// protocolOut is stdout: there is no dup2 here to guard it.
func protocolOut() (*os.File, error) {
	out := os.Stdout
	os.Stdout = os.Stderr // prints through package os go to stderr
	return out, nil
}
