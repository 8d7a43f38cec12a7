// Package lines carries newline-delimited messages over a byte stream: a
// reader that bounds how much of one line it keeps, and a writer that
// gathers lines written at the same moment into one system call. The MCP
// stdio transport (front), the Doctor↔Igor protocol (wire) and the
// gateway's client side of an upstream's stdio use it. Capture bounds a
// command's output to its first and last bytes.
package lines

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// Read reads one line and returns it without its line ending ("\n" or
// "\r\n"). A line longer than limit bytes is read to its end but not kept:
// size then says how long it was (counting its line ending), and line holds
// only its first keep bytes. Otherwise size is len(line). At the end of the
// stream a last line without a newline is returned with io.EOF.
func Read(r *bufio.Reader, limit, keep int) (line []byte, size int, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		size += len(chunk)
		switch {
		case size <= limit+2: // room for "\r\n"
			line = append(line, chunk...)
		case len(line) > keep:
			line = bytes.Clone(line[:keep]) // let the rest go
		case len(line) < keep:
			line = append(line, chunk[:min(len(chunk), keep-len(line))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if size <= limit+2 {
			line = bytes.TrimRight(line, "\r\n")
			if len(line) > limit {
				return line[:min(len(line), keep)], len(line), err
			}
			size = len(line)
		}
		return line, size, err
	}
}

// ReadEnds is Read for a reader that wants both ends of a line too long:
// a line of up to limit bytes is returned whole (without its line
// ending) with size len(line); a longer one is read to its end, and only
// its first and last keep bytes are kept (head and tail), size saying how
// long it was. (An MCP answer names its request by an id that one
// library writes first and another last.)
func ReadEnds(r *bufio.Reader, limit, keep int) (head []byte, size int, tail []byte, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		size += len(chunk)
		if size <= limit+2 { // room for "\r\n"
			head = append(head, chunk...)
		} else {
			if len(head) > keep {
				head = bytes.Clone(head[:keep])
			}
			tail = append(tail, chunk...)
			if len(tail) > 2*keep+2 {
				tail = append(tail[:0], tail[len(tail)-keep-2:]...) // and room for "\r\n"
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if size <= limit+2 {
			head = bytes.TrimRight(head, "\r\n")
			if len(head) <= limit {
				return head, len(head), nil, err
			}
			return head[:min(len(head), keep)], len(head), head[max(0, len(head)-keep):], err
		}
		tail = bytes.TrimRight(tail, "\r\n")
		return head, size, tail[max(0, len(tail)-keep):], err
	}
}

// Writer writes lines to an io.Writer. Lines that arrive while another is
// being written are gathered and written together, so that under load many
// answers leave in one system call; a line is never split or interleaved.
// Safe for concurrent use.
type Writer struct {
	waiting atomic.Int32
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	err     error
}

// FlushAt is how much is gathered before a write happens regardless; a
// line this long or longer is written as it is, not copied.
const FlushAt = 64 << 10

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteLine writes line and a newline. The line must not contain a
// newline. Once a write fails, every later one returns that error. A nil
// error means the line was written, or handed to a writer already waiting
// that writes it next.
func (l *Writer) WriteLine(line []byte) error {
	l.waiting.Add(1)
	l.mu.Lock()
	l.waiting.Add(-1)
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if len(line) >= FlushAt {
		if len(l.buf) > 0 {
			_, l.err = l.w.Write(l.buf)
			l.buf = l.buf[:0]
		}
		if l.err == nil {
			_, l.err = l.w.Write(line)
		}
		if l.err == nil {
			_, l.err = l.w.Write([]byte{'\n'})
		}
		return l.err
	}
	l.buf = append(l.buf, line...)
	l.buf = append(l.buf, '\n')
	if l.waiting.Load() > 0 && len(l.buf) < FlushAt {
		return nil // a writer waiting for the lock writes this too
	}
	_, l.err = l.w.Write(l.buf)
	if cap(l.buf) > 4*FlushAt {
		l.buf = nil
	} else {
		l.buf = l.buf[:0]
	}
	return l.err
}
