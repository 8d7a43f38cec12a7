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
	"runtime"
	"sync"
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

// Writer writes lines to an io.Writer. A line that arrives while another
// caller is in the middle of a write is added to a buffer that caller
// writes next, and its own caller goes on without waiting: under load many
// answers leave in one system call, and no caller sleeps on a lock held
// across a write. A line is never split or interleaved. When MaxPending
// bytes are waiting, callers wait for the writer, so that a reader that
// stops reading holds them back rather than grow the buffer without bound.
// Safe for concurrent use.
type Writer struct {
	mu      sync.Mutex
	drained sync.Cond // signalled when a write ends
	w       io.Writer
	buf     []byte // lines waiting for the writer
	spare   []byte // the other buffer, swapped with buf for each write
	writing bool   // a caller is writing; it writes buf next
	gather  bool   // NewGatheringWriter
	err     error
}

// FlushAt is the size from which a line is written as it is, not copied
// into the buffer.
const FlushAt = 64 << 10

// MaxPending is how many bytes may wait for the writer before callers
// wait too.
const MaxPending = 4 << 20

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	l := &Writer{w: w}
	l.drained.L = &l.mu
	return l
}

// NewGatheringWriter returns a Writer on w whose caller, finding no write
// under way, yields once before it writes, so that lines becoming ready at
// the same moment leave in one write and reach the reader in one wake-up:
// the front's answers finished at once on different goroutines (the
// readers of several Igors, the calls waiting on their own) reach the
// client together. The yield costs a caller with nobody to wait for well
// under a microsecond.
func NewGatheringWriter(w io.Writer) *Writer {
	l := NewWriter(w)
	l.gather = true
	return l
}

// WriteLine writes line and a newline. The line must not contain a
// newline. Once a write fails, every later one returns that error. A nil
// error means the line was written, or handed to the caller writing now,
// which writes it next.
func (l *Writer) WriteLine(line []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.err == nil && l.writing && (len(l.buf) >= MaxPending || len(line) >= FlushAt) {
		l.drained.Wait() // a long line goes out as it is, after what waits
	}
	if l.err != nil {
		return l.err
	}
	if len(line) < FlushAt {
		l.buf = append(l.buf, line...)
		l.buf = append(l.buf, '\n')
		if l.writing {
			return nil // the caller writing now writes it next
		}
		if l.gather {
			// Others becoming ready now append to buf meanwhile.
			l.writing = true
			l.mu.Unlock()
			runtime.Gosched()
			l.mu.Lock()
		}
		line = nil
	}
	l.writing = true
	defer func() { l.writing = false; l.drained.Broadcast() }()
	for len(l.buf) > 0 || line != nil {
		b := l.buf
		l.buf = l.spare[:0]
		l.mu.Unlock()
		var err error
		if len(b) > 0 {
			_, err = l.w.Write(b)
		}
		if err == nil && line != nil {
			if _, err = l.w.Write(line); err == nil {
				_, err = l.w.Write([]byte{'\n'})
			}
			line = nil
		}
		l.mu.Lock()
		if cap(b) <= 4*FlushAt {
			l.spare = b[:0]
		} else {
			l.spare = nil
		}
		if err != nil {
			l.err = err
			return err
		}
		l.drained.Broadcast()
	}
	return nil
}

// Flush returns once every line handed over so far has been written (or
// a write has failed, whose error it returns).
func (l *Writer) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.err == nil && (l.writing || len(l.buf) > 0) {
		l.drained.Wait()
	}
	return l.err
}
