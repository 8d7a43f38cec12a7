package testsrv

import "syscall"

// procAttr starts a server in its own group, as cred, killed with the test
// process if that dies first.
func procAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
