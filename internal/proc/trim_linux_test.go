package proc

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// vmRSS is this process's resident set, in KiB.
func vmRSS(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// TrimText lets go of the executable's mapped pages, and the process runs
// on: what it runs next is mapped again from the page cache.
func TestTrimTextLetsGoOfCode(t *testing.T) {
	before := vmRSS(t)
	n, err := TrimText()
	if err != nil || n == 0 {
		t.Fatalf("TrimText: %d bytes, %v", n, err)
	}
	after := vmRSS(t)
	if after >= before {
		t.Errorf("resident set %d KiB before, %d after", before, after)
	}
	if got := strconv.Itoa(12345) + strings.Repeat("x", 2); got != "12345xx" {
		t.Errorf("after trimming, code ran wrong: %q", got)
	}
	t.Logf("resident set %d KiB -> %d KiB (%d bytes of code and read-only data let go of)", before, after, n)
}
