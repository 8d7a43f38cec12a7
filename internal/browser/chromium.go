package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
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
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return "", fmt.Errorf("%s=%s names no file (%w): set it to the path of a Chromium or Chrome binary, or unset it to use chromium from PATH (install Debian's with sudo apt-get install chromium)", ChromiumEnv, p, err)
		case fi.IsDir() || fi.Mode()&0o111 == 0:
			return "", fmt.Errorf("%s=%s is not an executable file: set it to the path of a Chromium or Chrome binary, such as /usr/bin/chromium", ChromiumEnv, p)
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
