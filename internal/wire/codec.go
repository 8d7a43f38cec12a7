package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/barrhawk/barrhawk/internal/lines"
)

// MaxLine is the longest message the codec accepts: 64 MiB, room for a
// full-page screenshot in base64.
const MaxLine = 64 << 20

// Encoder writes messages, one JSON object a line. Safe for concurrent use:
// messages written at the same moment leave in one system call
// (lines.Writer). Tasks and task results, the messages of every call, are
// written without reflection (fast.go).
type Encoder struct {
	w    *lines.Writer
	pool sync.Pool // *[]byte buffers
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: lines.NewWriter(w)}
}

// Encode writes v as one line.
func (e *Encoder) Encode(v any) error {
	bp, _ := e.pool.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b, err := appendMessage((*bp)[:0], v)
	if err != nil {
		return fmt.Errorf("wire: encode %T: %w", v, err)
	}
	if len(b) > MaxLine {
		return fmt.Errorf("wire: %T is %d bytes, over the %d-byte limit: %w", v, len(b), MaxLine, ErrTooLong)
	}
	err = e.w.WriteLine(b)
	if cap(b) <= lines.FlushAt {
		*bp = b
		e.pool.Put(bp)
	}
	if err != nil {
		return fmt.Errorf("wire: write: %w", err)
	}
	return nil
}

// appendMessage appends the JSON of v, without a newline.
func appendMessage(b []byte, v any) ([]byte, error) {
	switch m := v.(type) {
	case Task:
		return appendTask(b, &m)
	case *Task:
		return appendTask(b, m)
	case TaskResult:
		return appendTaskResult(b, &m)
	case *TaskResult:
		return appendTaskResult(b, m)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}

// Decoder reads messages, one JSON object a line. Not safe for concurrent use.
type Decoder struct {
	r   *bufio.Reader
	max int
}

// NewDecoder returns a decoder reading from r that accepts lines of up to
// MaxLine bytes.
func NewDecoder(r io.Reader) *Decoder {
	return NewDecoderMax(r, MaxLine)
}

// NewDecoderMax returns a decoder reading from r that accepts lines of up
// to max bytes (at most MaxLine): a longer line is read through without
// being kept, and Decode returns a *SyntaxError wrapping ErrTooLong that
// holds its first bytes (see SyntaxError.MessageID).
func NewDecoderMax(r io.Reader, max int) *Decoder {
	if max <= 0 || max > MaxLine {
		max = MaxLine
	}
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// SyntaxError is a line that is not a message. The stream stays usable: the
// next Decode reads the next line.
type SyntaxError struct {
	Line []byte
	Err  error
}

func (e *SyntaxError) Error() string {
	l := e.Line
	if len(l) > 120 {
		l = l[:120]
	}
	return fmt.Sprintf("wire: not a message (%v): %q", e.Err, l)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// ErrTooLong is returned (wrapped in a SyntaxError) for a line over the
// decoder's limit, which is then skipped; Encode wraps it for a message over
// MaxLine, which is then not written.
var ErrTooLong = errors.New("line longer than the wire's limit")

// keepOfLong is how much of a line over the limit a SyntaxError keeps:
// enough for the "type" and "id" members every message begins with.
const keepOfLong = 120

// MessageID is the "id" of the message the line began, when the line
// begins with it or with "type" then "id", as every message this codec
// writes does; "" otherwise. It lets a reader answer the call whose result
// was too long to read.
func (e *SyntaxError) MessageID() string {
	return leadingID(e.Line)
}

// leadingID reads the members of a JSON object's start, which may be cut
// short, up to "id", accepting only string values on the way.
func leadingID(line []byte) string {
	if len(line) == 0 || line[0] != '{' {
		return ""
	}
	rest := line[1:]
	str := func() (string, bool) { // a string without escapes
		if len(rest) == 0 || rest[0] != '"' {
			return "", false
		}
		end := bytes.IndexAny(rest[1:], "\\\"")
		if end < 0 || rest[1+end] != '"' {
			return "", false
		}
		s := string(rest[1 : 1+end])
		rest = rest[2+end:]
		return s, true
	}
	for range 2 {
		key, ok := str()
		if !ok || len(rest) == 0 || rest[0] != ':' {
			return ""
		}
		rest = rest[1:]
		val, ok := str()
		if !ok {
			return ""
		}
		if key == "id" {
			return val
		}
		if len(rest) == 0 || rest[0] != ',' {
			return ""
		}
		rest = rest[1:]
	}
	return ""
}

// Decode reads the next message. It returns io.EOF at the end of the stream,
// and a *SyntaxError for a line that is not a JSON object; blank lines are
// skipped.
func (d *Decoder) Decode() (*Envelope, error) {
	for {
		line, err := d.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		return Unmarshal(line)
	}
}

// Unmarshal decodes one message. The Envelope's raw members (Args,
// Result, Context) may share line's memory: line must not change after.
func Unmarshal(line []byte) (*Envelope, error) {
	if len(line) == 0 || line[0] != '{' {
		return nil, &SyntaxError{Line: line, Err: errors.New("not a JSON object")}
	}
	if env, ok := decodeHot(line); ok {
		return env, nil
	}
	var env Envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, &SyntaxError{Line: line, Err: err}
	}
	return &env, nil
}

func (d *Decoder) readLine() ([]byte, error) {
	line, size, err := lines.Read(d.r, d.max, keepOfLong)
	if size > d.max {
		return nil, &SyntaxError{Line: line, Err: ErrTooLong}
	}
	if len(line) > 0 && errors.Is(err, io.EOF) {
		return line, nil // last line without a newline
	}
	if err != nil {
		return nil, err
	}
	return line, nil
}
