package front

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk's stdio server closes the session as soon as stdin reaches
// EOF, dropping the answers to requests still being handled (go-sdk issue
// 1061): `printf '<requests>' | barrhawk serve` would lose all but the
// first. ServeStdio wraps stdin and stdout so that EOF is passed on only
// once every request read has been answered (or drainLimit has passed).

// drainLimit bounds how long EOF waits for outstanding answers.
const drainLimit = 10 * time.Minute

// pending counts the requests read and not yet answered.
type pending struct {
	mu      sync.Mutex
	ids     map[string]int
	drained chan struct{} // closed and replaced when ids becomes empty
}

func newPending() *pending {
	return &pending{ids: map[string]int{}, drained: make(chan struct{})}
}

// message is what the counting needs of a JSON-RPC message.
type message struct {
	ID       json.RawMessage `json:"id"`
	Method   string          `json:"method"`
	Response bool            `json:"-"` // it has a result or an error
	Params   json.RawMessage `json:"params"`
}

// UnmarshalJSON reads only the top-level members the counting needs, and
// stops as soon as it knows what the message is, so a large result or
// argument is not scanned twice.
func (m *message) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		switch key {
		case "id":
			if err := dec.Decode(&m.ID); err != nil {
				return err
			}
		case "method":
			if err := dec.Decode(&m.Method); err != nil {
				return err
			}
		case "result", "error":
			m.Response = true
		case "params":
			if m.Method != cancelled && m.Method != "" && m.ID != nil {
				return nil // the params of other methods are not needed
			}
			if err := dec.Decode(&m.Params); err != nil {
				return err
			}
			continue
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if m.Response && m.ID != nil || m.Method != "" && m.Method != cancelled && m.ID != nil {
			return nil // enough is known
		}
		if m.Response {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
	}
	return nil
}

// cancelled is the notification after which a request is not answered.
const cancelled = "notifications/cancelled"

// each calls fn for every message in a line: one object, or a batch.
func each(line []byte, fn func(message)) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] == '[' {
		var batch []message
		if json.Unmarshal(line, &batch) == nil {
			for _, m := range batch {
				fn(m)
			}
		}
		return
	}
	var m message
	if m.UnmarshalJSON(line) == nil {
		fn(m)
	}
}

func (p *pending) read(line []byte) {
	each(line, func(m message) {
		switch {
		case m.Method == cancelled:
			var params struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &params) == nil && params.RequestID != nil {
				p.answered(params.RequestID) // the SDK may not answer it now
			}
		case len(m.ID) > 0 && string(m.ID) != "null" && m.Method != "":
			p.mu.Lock()
			p.ids[string(m.ID)]++
			p.mu.Unlock()
		}
	})
}

func (p *pending) wrote(line []byte) {
	each(line, func(m message) {
		if len(m.ID) > 0 && m.Response {
			p.answered(m.ID)
		}
	})
}

func (p *pending) answered(id json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := p.ids[string(id)]; n > 1 {
		p.ids[string(id)] = n - 1
	} else {
		delete(p.ids, string(id))
	}
	if len(p.ids) == 0 {
		close(p.drained)
		p.drained = make(chan struct{})
	}
}

// wait returns once no request is unanswered, or at the limit.
func (p *pending) wait(ctx context.Context, limit time.Duration) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		p.mu.Lock()
		n, ch := len(p.ids), p.drained
		p.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-t.C:
			return
		}
	}
}

// lines splits a byte stream into lines for fn, keeping a partial line.
type lines struct {
	buf []byte
	fn  func([]byte)
}

func (l *lines) feed(p []byte) {
	if len(l.buf) == 0 { // the usual case, whole messages: no copy
		for {
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				break
			}
			l.fn(p[:i])
			p = p[i+1:]
		}
	}
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.fn(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) == 0 {
		l.buf = l.buf[:0:0] // let a large line's memory go
	}
}

// drainingReader passes stdin through, counting requests, and holds EOF
// back until they are answered.
type drainingReader struct {
	ctx     context.Context
	r       io.ReadCloser
	pending *pending
	lines   lines
	eof     bool
}

func (d *drainingReader) Read(b []byte) (int, error) {
	if d.eof {
		d.pending.wait(d.ctx, drainLimit)
		return 0, io.EOF
	}
	n, err := d.r.Read(b)
	d.lines.feed(b[:n])
	if err == io.EOF {
		if len(d.lines.buf) > 0 { // a last line without its newline
			d.lines.fn(d.lines.buf)
			d.lines.buf = nil
		}
		d.eof = true
		if n > 0 {
			return n, nil // let the SDK see the data before the EOF
		}
		d.pending.wait(d.ctx, drainLimit)
	}
	return n, err
}

func (d *drainingReader) Close() error { return d.r.Close() }

// countingWriter passes stdout through, counting answers.
type countingWriter struct {
	mu    sync.Mutex
	w     io.WriteCloser
	lines lines
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.mu.Lock()
	c.lines.feed(b[:n])
	c.mu.Unlock()
	return n, err
}

func (c *countingWriter) Close() error { return c.w.Close() }

// stdioTransport is the SDK's newline-delimited JSON transport on stdin and
// stdout, with EOF held back until every request read is answered.
func stdioTransport(ctx context.Context) mcp.Transport {
	p := newPending()
	return &mcp.IOTransport{
		Reader: &drainingReader{ctx: ctx, r: os.Stdin, pending: p, lines: lines{fn: p.read}},
		Writer: &countingWriter{w: os.Stdout, lines: lines{fn: p.wrote}},
	}
}
