package lines

import (
	"strings"
	"testing"
)

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	c := NewCapture(4, 6)
	for _, s := range []string{"ab", "cdef", "ghij", "klmnop"} {
		c.Write([]byte(s))
	}
	if got := c.Dropped(); got != 6 {
		t.Errorf("dropped %d, want 6 (efghij)", got)
	}
	got := c.String()
	if !strings.HasPrefix(got, "abcd\n") || !strings.HasSuffix(got, "klmnop") || !strings.Contains(got, "6 bytes left out") {
		t.Errorf("String() = %q", got)
	}
	small := NewCapture(10, 10)
	small.Write([]byte("hello\n"))
	if small.String() != "hello\n" || small.Dropped() != 0 {
		t.Errorf("under the bounds: %q, dropped %d", small.String(), small.Dropped())
	}
	// A cut inside a character moves to the next whole one.
	u := NewCapture(0, 5)
	u.Write([]byte("ééé")) // 6 bytes
	if s := u.String(); strings.ContainsRune(s, '\uFFFD') || !strings.HasSuffix(s, "éé") {
		t.Errorf("cut inside a character: %q", s)
	}
}

// BenchmarkCapture: a container's 10 MB of 80-byte lines, written a line at
// a time (as stdcopy does), into a Capture keeping 3 MB at its end.
func BenchmarkCapture(b *testing.B) {
	line := []byte(strings.Repeat("x", 79) + "\n")
	for b.Loop() {
		c := NewCapture(1<<20, 3<<20)
		for range (10 << 20) / len(line) {
			c.Write(line)
		}
		_ = c.String()
	}
}
