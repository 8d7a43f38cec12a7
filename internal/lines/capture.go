package lines

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Capture is an io.Writer that keeps the first Head and the last Tail
// bytes written to it and counts what it dropped between them: the output
// of a command or a container, bounded however much it writes. Safe for
// concurrent use; the zero value keeps nothing (set Head and Tail).
type Capture struct {
	Head, Tail int

	mu      sync.Mutex
	head    []byte
	tail    []byte // the last bytes, oldest first: up to 2×Tail, cut to Tail when read
	dropped int64
}

// NewCapture keeps the first head and the last tail bytes.
func NewCapture(head, tail int) *Capture { return &Capture{Head: head, Tail: tail} }

// Write keeps what fits; it never fails.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if room := c.Head - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*c.Tail {
		c.trim() // now and then, not at each write: a copy per write costs writes × Tail
	}
	return n, nil
}

// trim cuts the tail to its last Tail bytes, counting the rest dropped.
func (c *Capture) trim() {
	if over := len(c.tail) - c.Tail; over > 0 {
		c.dropped += int64(over)
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
}

// Dropped is how many bytes were written and not kept.
func (c *Capture) Dropped() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trim()
	return c.dropped
}

// String is what was kept, with a line saying how much was left out
// between the head and the tail; cuts fall on character boundaries.
func (c *Capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trim()
	if c.dropped == 0 {
		return string(c.head) + string(c.tail)
	}
	tail := c.tail
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	var b strings.Builder
	b.Write(c.head)
	if len(c.head) > 0 && c.head[len(c.head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[... %d bytes left out ...]\n", c.dropped+int64(len(c.tail)-len(tail)))
	b.Write(tail)
	return b.String()
}
