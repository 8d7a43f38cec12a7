//go:build unix

package browser

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// shim says that the browser starts through this binary (ExecIfBrowserStart).
const shim = true

// ExecIfBrowserStart is called first thing in main: when this process was
// started to be the browser, it lifts the soft RLIMIT_AS to the hard one
// and execs the browser with the same arguments. It returns only when the
// process is not a browser start, or when the exec failed (then it exits).
func ExecIfBrowserStart() {
	path := os.Getenv(execEnv)
	if path == "" {
		return
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &lim) == nil && lim.Cur != lim.Max {
		lim.Cur = lim.Max
		_ = unix.Setrlimit(unix.RLIMIT_AS, &lim) // best effort: the browser says if it cannot start
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if len(kv) < len(execEnv)+1 || kv[:len(execEnv)+1] != execEnv+"=" {
			env = append(env, kv)
		}
	}
	args := append([]string{path}, os.Args[1:]...)
	err := syscall.Exec(path, args, env)
	fmt.Fprintf(os.Stderr, "barrhawk: start the browser %s: %v\n", path, err)
	os.Exit(127)
}
