package util

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
	"github.com/barrhawk/barrhawk/internal/version"
)

func TestEnvInfo(t *testing.T) {
	t.Parallel()
	got := run(t, "env_info", `{}`)
	host, _ := os.Hostname()
	subset(t, "env_info", got, tooltest.Marshal(map[string]any{
		"barrhawkVersion": version.Version,
		"goVersion":       runtime.Version(),
		"os":              runtime.GOOS,
		"arch":            runtime.GOARCH,
		"numCPU":          runtime.NumCPU(),
		"pid":             os.Getpid(),
		"hostname":        host,
	}))
	if got["barrhawkVersion"] != "dev" {
		t.Errorf("barrhawkVersion = %v, want dev in a test build", got["barrhawkVersion"])
	}
	if up, ok := got["uptimeMs"].(float64); !ok || up < 0 {
		t.Errorf("uptimeMs = %v, want a number >= 0", got["uptimeMs"])
	}
	if n, ok := got["envVarCount"].(float64); !ok || n < 0 {
		t.Errorf("envVarCount = %v, want a count", got["envVarCount"])
	}
	mem, _ := got["memory"].(map[string]any)
	if heap, ok := mem["heapAllocBytes"].(float64); !ok || heap <= 0 {
		t.Errorf("memory.heapAllocBytes = %v, want > 0", mem["heapAllocBytes"])
	}
	rss, present := mem["rssBytes"]
	if !present {
		t.Errorf("memory.rssBytes missing; want a number or null")
	}
	if _, err := os.Stat("/proc/self/statm"); err == nil {
		if n, ok := rss.(float64); !ok || n <= 0 {
			t.Errorf("memory.rssBytes = %v, want > 0 where /proc/self/statm exists", rss)
		}
	}
}

// TestEnvInfoHidesEnvironment is not parallel: it sets a variable.
func TestEnvInfoHidesEnvironment(t *testing.T) {
	const name, secret = "BARRHAWK_TEST_SECRET_TOKEN", "s3cr3t-Zq9-value-do-not-leak"
	t.Setenv(name, secret)
	got := tooltest.MustRunObject(t, Tools(), "env_info", `{}`)
	out := tooltest.Marshal(got)
	for _, leak := range []string{secret, name} {
		if strings.Contains(out, leak) {
			t.Errorf("env_info leaks %q: %s", leak, out)
		}
	}
	if n := got["envVarCount"].(float64); int(n) != len(os.Environ()) {
		t.Errorf("envVarCount = %v, want %d", n, len(os.Environ()))
	}
}
