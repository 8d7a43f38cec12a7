package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxLine is the longest message the codec accepts: 64 MiB, room for a
// full-page screenshot in base64.
const MaxLine = 64 << 20

// Encoder writes messages, one JSON object a line. Safe for concurrent use.
type Encoder struct {
	mu  sync.Mutex
	w   *bufio.Writer
	buf bytes.Buffer
	enc *json.Encoder
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer) *Encoder {
	e := &Encoder{w: bufio.NewWriterSize(w, 64<<10)}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// Encode writes v as one line and flushes it.
func (e *Encoder) Encode(v any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil { // Encode appends the newline
		return fmt.Errorf("wire: encode %T: %w", v, err)
	}
	if e.buf.Len() > MaxLine {
		return fmt.Errorf("wire: %T is %d bytes, over the %d-byte limit", v, e.buf.Len(), MaxLine)
	}
	if _, err := e.w.Write(e.buf.Bytes()); err != nil {
		return fmt.Errorf("wire: write: %w", err)
	}
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("wire: flush: %w", err)
	}
	return nil
}

// Decoder reads messages, one JSON object a line. Not safe for concurrent use.
type Decoder struct {
	r *bufio.Reader
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10)}
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

// ErrTooLong is returned (wrapped in a SyntaxError) for a line over MaxLine;
// the line is skipped.
var ErrTooLong = errors.New("line longer than wire.MaxLine")

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

// Unmarshal decodes one message.
func Unmarshal(line []byte) (*Envelope, error) {
	if len(line) == 0 || line[0] != '{' {
		return nil, &SyntaxError{Line: line, Err: errors.New("not a JSON object")}
	}
	var env Envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, &SyntaxError{Line: line, Err: err}
	}
	return &env, nil
}

func (d *Decoder) readLine() ([]byte, error) {
	line, err := d.r.ReadSlice('\n')
	if err == nil {
		return line, nil
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		buf := append([]byte(nil), line...)
		for {
			more, err := d.r.ReadSlice('\n')
			if len(buf) <= MaxLine {
				buf = append(buf, more...)
			}
			if err == nil {
				break
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				return nil, err
			}
		}
		if len(buf) > MaxLine {
			return nil, &SyntaxError{Line: buf[:120], Err: ErrTooLong}
		}
		return buf, nil
	}
	if len(line) > 0 && errors.Is(err, io.EOF) {
		return line, nil // last line without a newline
	}
	return nil, err
}
