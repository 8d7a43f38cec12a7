package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// ChromiumEnv overrides where the browser is found.
const ChromiumEnv = "BARRHAWK_CHROMIUM"

// execEnv marks a start of the barrhawk binary that is really a browser
// start: it lifts the soft address-space limit the Igor runs under (which
// chromium, reserving terabytes of address space for V8, cannot live with)
// and then becomes the browser with exec, keeping its pid, its pipes and
// the death signal chromedp set.
const execEnv = "BARRHAWK_EXEC_BROWSER"

// Find returns the browser to run: $BARRHAWK_CHROMIUM, else chromium,
// chromium-browser, google-chrome or google-chrome-stable on PATH.
func Find() (string, error) {
	if p := os.Getenv(ChromiumEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", ChromiumEnv, p, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium or Chrome found: install Debian's chromium (sudo apt-get install chromium), or set BARRHAWK_CHROMIUM to the browser's path")
}

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
