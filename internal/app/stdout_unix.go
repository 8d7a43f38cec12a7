//go:build unix

package app

import (
	"fmt"
	"os"
	"syscall"
)

// protocolOut returns the real stdout for the Igor protocol and points fd
// 1 at stderr, so nothing else can write into the protocol stream.
func protocolOut() (*os.File, error) {
	protoFD, err := syscall.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("dup stdout: %w", err)
	}
	if err := syscall.Dup2(2, 1); err != nil {
		return nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	syscall.CloseOnExec(protoFD)
	return os.NewFile(uintptr(protoFD), "protocol"), nil
}
