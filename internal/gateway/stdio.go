package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/lines"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioConn is the client side of an upstream's stdio: newline-delimited
// JSON-RPC on its stdin and stdout, read so that nothing the upstream
// writes can cost the front more than one bounded line:
//
//   - a line that is not a JSON-RPC message is logged (the first few) and
//     skipped; the session goes on;
//   - a line over maxLine bytes is read past, keeping only its first and
//     last bytes; when it answers a request (its id found there, or the
//     only request outstanding), that request is answered with an error
//     of code codeTooLarge instead;
//   - writes go through a queue, so a caller whose upstream has stopped
//     reading its stdin waits no longer than its own context.
//
// It is both the mcp.Transport and the mcp.Connection of one session.
type stdioConn struct {
	in      *bufio.Reader
	out     io.Writer
	maxLine int
	log     *slog.Logger

	incoming chan jsonrpc.Message
	readDone chan struct{} // closed when the upstream's output has ended
	queue    chan []byte
	closed   chan struct{}
	once     sync.Once
	readErr  atomic.Pointer[error]

	mu      sync.Mutex
	pending map[jsonrpc.ID]struct{} // requests sent and not yet answered
	skipped int                     // lines that were not messages
	// own are the calls made with Call, bypassing the SDK, by id.
	own   map[jsonrpc.ID]chan *jsonrpc.Response
	seq   uint64
	ended bool // the upstream's output has ended: Call fails at once
}

// codeTooLarge is the JSON-RPC error code of an answer read past because
// it was too long; Call turns it into RESULT_TOO_LARGE.
const codeTooLarge = -32099

// loggedGarbage is how many lines that are not messages are logged, of
// one upstream session; the rest are only counted.
const loggedGarbage = 5

func newStdioConn(in io.Reader, out io.Writer, maxLine int, log *slog.Logger) *stdioConn {
	c := &stdioConn{
		in: bufio.NewReaderSize(in, 64<<10), out: out, maxLine: maxLine, log: log,
		incoming: make(chan jsonrpc.Message), readDone: make(chan struct{}), queue: make(chan []byte, 64), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]struct{}{}, own: map[jsonrpc.ID]chan *jsonrpc.Response{},
	}
	go c.readLoop()
	go c.writeLoop()
	return c
}

// Connect implements mcp.Transport.
func (c *stdioConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// Read implements mcp.Connection.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m, ok := <-c.incoming:
		if !ok {
			if e := c.readErr.Load(); e != nil {
				return nil, *e
			}
			return nil, io.EOF
		}
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message to the upstream: %w", err)
	}
	if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
		c.mu.Lock()
		c.pending[r.ID] = struct{}{}
		c.mu.Unlock()
	}
	select {
	case c.queue <- append(b, '\n'):
		return nil
	case <-c.closed:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return fmt.Errorf("the upstream is not reading its input: %w", ctx.Err())
	}
}

// Close implements mcp.Connection.
func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection.
func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) writeLoop() {
	for {
		select {
		case b := <-c.queue:
			if _, err := c.out.Write(b); err != nil {
				c.Close()
				return
			}
		case <-c.closed:
			return
		}
	}
}

func (c *stdioConn) readLoop() {
	defer close(c.readDone)
	defer close(c.incoming)
	defer c.endOwn()
	for {
		line, size, tail, err := lines.ReadEnds(c.in, c.maxLine, keepEnds)
		if size > c.maxLine {
			c.tooLong(line, tail, size)
		} else if len(bytes.TrimSpace(line)) > 0 {
			c.handle(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.readErr.Store(&err)
			}
			return
		}
	}
}

func (c *stdioConn) handle(line []byte) {
	if c.answerOwn(line) {
		return
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.mu.Lock()
		c.skipped++
		n := c.skipped
		c.mu.Unlock()
		if n <= loggedGarbage {
			c.log.Warn("the upstream wrote a line that is not a JSON-RPC message; skipped", "line", tool.CutText(string(line), 200), "bytes", len(line), "err", err)
		}
		return
	}
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, r.ID)
		ch := c.own[r.ID]
		delete(c.own, r.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- r
			return
		}
	}
	c.deliver(msg)
}

func (c *stdioConn) deliver(msg jsonrpc.Message) {
	select {
	case c.incoming <- msg:
	case <-c.closed:
	}
}

// tooLong answers the request whose answer was read past, if it can tell
// which one that was.
func (c *stdioConn) tooLong(head, tail []byte, size int) {
	id, ok := answerID(head, tail)
	c.mu.Lock()
	if !ok && len(c.pending) == 1 {
		for only := range c.pending {
			id, ok = only, true
		}
	}
	if ok {
		if _, waiting := c.pending[id]; !waiting {
			ok = false
		}
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if !ok {
		c.log.Warn("the upstream wrote a line too long to read, answering no request of ours; skipped", "bytes", size, "limit", c.maxLine)
		return
	}
	r := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: codeTooLarge,
		Message: fmt.Sprintf("the upstream's answer was %d bytes, over the %d the gateway reads (tools.maxResultHardBytes and 1 MiB for the message)", size, c.maxLine)}}
	c.mu.Lock()
	ch := c.own[id]
	delete(c.own, id)
	c.mu.Unlock()
	if ch != nil {
		ch <- r
		return
	}
	c.deliver(r)
}

// Call sends one request of its own and waits for its answer, past the
// SDK's client: for tools/call, the gateway's hot path, it costs a
// marshal and an unmarshal instead of the SDK's generic machinery (whose
// decoder allocates a large buffer per answer). Its ids are strings
// ("bh-1", ...), which the SDK's integer ids never are. When ctx ends
// first, the upstream is told with notifications/cancelled.
func (c *stdioConn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return nil, io.EOF
	}
	c.seq++
	id, _ := jsonrpc.MakeID("bh-" + strconv.FormatUint(c.seq, 10))
	ch := make(chan *jsonrpc.Response, 1)
	c.own[id] = ch
	c.pending[id] = struct{}{}
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.own, id)
		delete(c.pending, id)
		c.mu.Unlock()
	}
	raw, err := json.Marshal(params)
	if err != nil {
		forget()
		return nil, fmt.Errorf("encoding %s: %w", method, err)
	}
	if err := c.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		forget()
		return nil, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, io.EOF
		}
		if r.Error != nil {
			return nil, r.Error
		}
		return r.Result, nil
	case <-ctx.Done():
		forget()
		cancelled, _ := json.Marshal(map[string]any{"requestId": id.Raw(), "reason": context.Cause(ctx).Error()})
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = c.Write(wctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: cancelled})
		cancel()
		return nil, ctx.Err()
	}
}

// ownAnswer is an answer to one of Call's requests as it travels.
type ownAnswer struct {
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// answerOwn hands an answer to one of Call's requests to its caller,
// decoded with the standard library alone; it reports whether line was
// one. (The SDK's decoder allocates a buffer of tens of kilobytes per
// message; this is Call's hot path.)
func (c *stdioConn) answerOwn(line []byte) bool {
	c.mu.Lock()
	mine := len(c.own) > 0
	c.mu.Unlock()
	if !mine || !bytes.Contains(line, []byte(`"bh-`)) {
		return false
	}
	var a ownAnswer
	if json.Unmarshal(line, &a) != nil || a.Method != "" || !strings.HasPrefix(a.ID, "bh-") {
		return false
	}
	id, err := jsonrpc.MakeID(a.ID)
	if err != nil {
		return false
	}
	c.mu.Lock()
	ch := c.own[id]
	delete(c.own, id)
	delete(c.pending, id)
	c.mu.Unlock()
	if ch == nil {
		return false
	}
	r := &jsonrpc.Response{ID: id, Result: a.Result}
	if a.Error != nil {
		r.Error = a.Error
	}
	ch <- r
	return true
}

// endOwn fails the calls of its own still waiting when the upstream's
// output ends.
func (c *stdioConn) endOwn() {
	c.mu.Lock()
	c.ended = true
	own := c.own
	c.own = map[jsonrpc.ID]chan *jsonrpc.Response{}
	c.mu.Unlock()
	for _, ch := range own {
		close(ch)
	}
}

// idAtStart and idAtEnd find a response's id where JSON-RPC libraries put
// it: first (Go's, Python's) or last (the TypeScript SDK's).
var (
	idAtStart = regexp.MustCompile(`^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")`)
	idAtEnd   = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*\}\s*$`)
)

func answerID(head, tail []byte) (jsonrpc.ID, bool) {
	for _, m := range [][][]byte{idAtStart.FindSubmatch(head), idAtEnd.FindSubmatch(tail)} {
		if m == nil {
			continue
		}
		var v any
		if json.Unmarshal(m[1], &v) != nil {
			continue
		}
		if id, err := jsonrpc.MakeID(v); err == nil {
			return id, true
		}
	}
	return jsonrpc.ID{}, false
}

// keepEnds is how much of each end of a line too long is kept, to find
// its id.
const keepEnds = 4 << 10
