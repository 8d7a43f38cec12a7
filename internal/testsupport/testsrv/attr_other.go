//go:build unix && !linux

package testsrv

import "syscall"

// procAttr starts a server in its own group, as cred.
func procAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true}
}
