package front

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/gopool"
	"github.com/barrhawk/barrhawk/internal/lines"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineConn is BarrHawk's stdio transport: newline-delimited JSON-RPC, one
// message (or, in protocols before 2025-06-18, one batch) per line. It
// replaces the SDK's IOTransport, whose streaming decoder ends the session
// at the first malformed line (go-sdk issue 1209) and drops answers when
// stdin ends right after the requests (go-sdk issue 1061). Here:
//
//   - every line is an independent frame, checked by checkSyntax and parseMessage;
//     a bad one is answered (-32700, -32600) and the session goes on;
//   - a line over maxFrame bytes is answered with an error and read past,
//     keeping only its first bytes (to find its id);
//   - a request before initialize, or with the id of a request still in
//     flight, is answered -32600;
//   - at the end of its input the connection reports EOF only once every
//     request it read has been answered (or drainLimit has passed);
//   - a tools/call, once the session is initialized, goes to the hot path
//     (Server.callHot): the same tool handler the SDK would call, without
//     the SDK's generic request machinery. Everything else goes to the SDK.
//
// It is both the mcp.Transport and the mcp.Connection of one session.
type lineConn struct {
	in       io.ReadCloser
	out      *lines.Writer
	maxFrame int
	log      *slog.Logger
	// hot answers a tools/call frame: answer gets a whole response line,
	// or nil when the call was cancelled and nothing is to be sent. nil:
	// every call goes to the SDK.
	hot     func(ctx context.Context, ss *mcp.ServerSession, f *frame, perRequest bool, answer func([]byte))
	session atomic.Pointer[mcp.ServerSession]
	// metaOK is the last per-request _meta the hot path accepted.
	metaOK atomic.Pointer[[]byte]

	ctx      context.Context // ends when the connection closes
	cancel   context.CancelFunc
	incoming chan jsonrpc.Message
	eof      chan struct{} // closed when the input has ended and every request is answered
	closed   chan struct{}
	once     sync.Once

	mu       sync.Mutex
	inflight map[jsonrpc.ID]*call
	dropped  map[jsonrpc.ID]struct{} // cancelled calls of the SDK's: an answer is not sent
	drained  chan struct{}           // closed and replaced when inflight becomes empty
	initRead bool                    // an initialize request has been read
	initID   jsonrpc.ID
	protocol string // the negotiated protocol version, once initialize is answered
	batches  map[jsonrpc.ID]*batch
}

// call is a request read and not yet answered.
type call struct {
	cancel    context.CancelFunc // set for a hot-path call
	cancelled bool               // notifications/cancelled arrived: send no answer
}

// drainLimit bounds how long the end of input waits for outstanding answers.
const drainLimit = 10 * time.Minute

// calls runs hot-path calls on reused goroutines.
var calls = gopool.New(time.Minute)

// cancelled is the notification after which a request is not answered.
const cancelled = "notifications/cancelled"

// listen is the 2026-07-28 request that stays open for the whole session,
// carrying its notifications.
const listen = "subscriptions/listen"

// idPrefix is how much of an oversized frame is kept to find its id.
const idPrefix = 4 << 10

func newLineConn(in io.ReadCloser, out io.Writer, maxFrame int, log *slog.Logger) *lineConn {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &lineConn{
		in: in, out: lines.NewGatheringWriter(out), maxFrame: maxFrame, log: log,
		ctx: ctx, cancel: cancel,
		incoming: make(chan jsonrpc.Message), eof: make(chan struct{}), closed: make(chan struct{}),
		inflight: map[jsonrpc.ID]*call{}, dropped: map[jsonrpc.ID]struct{}{}, drained: make(chan struct{}),
	}
}

// Connect starts reading; it may be called once.
func (c *lineConn) Connect(context.Context) (mcp.Connection, error) {
	go c.readLoop()
	return c, nil
}

// Read returns the next message for the SDK.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.incoming:
		return m, nil
	case <-c.eof:
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write sends a message from the SDK.
func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok {
		if r.Error != nil {
			r.Error = fixErrorCode(r.Error)
		}
		line, err := jsonrpc.EncodeMessage(r)
		if err != nil {
			return fmt.Errorf("encode response: %w", err)
		}
		c.noteInitialized(r)
		if c.batchAnswer(r.ID, line) {
			return nil
		}
		if !c.finish(r.ID) {
			return nil // cancelled: no answer is sent
		}
		return c.out.WriteLine(line)
	}
	line, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return c.out.WriteLine(line)
}

// Close ends the connection; pending reads return EOF.
func (c *lineConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		c.cancel()
		err = c.in.Close()
	})
	return err
}

// SessionID is empty: stdio has one session.
func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, size, err := lines.Read(r, c.maxFrame, idPrefix)
		if size > c.maxFrame {
			e := invalidRequest(lenientID(line), "the message is %d bytes; at most %d bytes are accepted (config mcp.maxMessageBytes)", size, c.maxFrame)
			c.log.Warn("refused an oversized message", "bytes", size, "limit", c.maxFrame)
			c.send(errorLine(e))
		} else if len(line) > 0 {
			c.handleLine(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.log.Debug("reading stdin", "err", err)
			}
			c.waitDrained(drainLimit)
			// Answers handed to a caller still writing go out before the
			// session ends.
			if err := c.out.Flush(); err != nil {
				c.log.Debug("writing stdout", "err", err)
			}
			close(c.eof)
			return
		}
		select {
		case <-c.closed:
			return
		default:
		}
	}
}

// handleLine checks one line and acts on it.
func (c *lineConn) handleLine(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if e := checkSyntax(line); e != nil {
		c.log.Debug("malformed message", "err", e.msg)
		c.send(errorLine(e))
		return
	}
	if line[0] == '[' {
		c.handleBatch(line)
		return
	}
	f, e := parseMessage(line)
	if e != nil {
		c.log.Debug("invalid message", "err", e.msg)
		c.send(errorLine(e))
		return
	}
	if e := c.admit(f, nil); e != nil {
		c.send(errorLine(e))
		return
	}
	c.dispatch(f, true)
}

// admit records a request as in flight, or says why it is refused.
func (c *lineConn) admit(f *frame, b *batch) *frameError {
	if f.response && !f.hasMethod {
		return nil
	}
	if f.method == cancelled {
		c.cancelCall(f.params)
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.method == "initialize" {
		c.initRead, c.initID = true, f.jid
	} else if !c.initRead && f.isCall() && !beforeInit[f.method] && !newProtocol(f.params) {
		return invalidRequest(f.id, "%s before initialize: the session starts with an initialize request (then notifications/initialized)", f.method)
	}
	if !f.isCall() || f.method == listen {
		return nil // a listen lasts as long as the session: never waited for
	}
	if _, dup := c.inflight[f.jid]; dup {
		return invalidRequest(f.id, "the id %s is already in use by a request still in flight; give each request its own id", f.id)
	}
	cl := &call{}
	c.inflight[f.jid] = cl
	if b != nil {
		if c.batches == nil {
			c.batches = map[jsonrpc.ID]*batch{}
		}
		c.batches[f.jid] = b
		b.pending++
	}
	return nil
}

// dispatch hands an admitted message to the hot path (when hot allows it)
// or the SDK.
func (c *lineConn) dispatch(f *frame, hot bool) {
	if f.response && !f.hasMethod {
		msg, err := jsonrpc.DecodeMessage(f.raw)
		if err != nil {
			c.log.Warn("dropping a response the SDK cannot read", "err", err)
			return
		}
		c.deliver(msg)
		return
	}
	if ss := c.session.Load(); hot && c.hot != nil && ss != nil && f.method == "tools/call" && f.id != nil {
		perRequest := newProtocol(f.params)
		if perRequest && !c.hotPerRequest(ss, f.params) {
			c.deliver(f.request())
			return
		}
		c.mu.Lock()
		if c.protocol == "" && !perRequest {
			// initialize is not answered yet: the SDK, which handles
			// messages in order, takes this call after it.
			c.mu.Unlock()
			c.deliver(f.request())
			return
		}
		cl := c.inflight[f.jid]
		ctx, cancel := context.WithCancel(c.ctx)
		cl.cancel = cancel
		c.mu.Unlock()
		c.hot(ctx, ss, f, perRequest, func(line []byte) {
			cancel()
			if c.finish(f.jid) && line != nil {
				c.send(line)
			}
		})
		return
	}
	c.deliver(f.request())
}

func (c *lineConn) deliver(msg jsonrpc.Message) {
	select {
	case c.incoming <- msg:
	case <-c.closed:
	}
}

func (c *lineConn) send(line []byte) {
	if err := c.out.WriteLine(line); err != nil {
		c.log.Debug("writing stdout", "err", err)
	}
}

// cancelCall stops a hot-path call named by notifications/cancelled, and
// marks any call so named as not to be answered. The notification goes on
// to the SDK too, which cancels its own.
func (c *lineConn) cancelCall(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	id, err := parseID(p.RequestID)
	if err != nil {
		return
	}
	c.mu.Lock()
	cl := c.inflight[id]
	var b *batch
	if cl != nil {
		cl.cancelled = true
		if cl.cancel == nil {
			// The SDK's call: it sends no answer to a cancelled request, so
			// it is answered now as far as draining goes (and its batch);
			// should an answer come after all, it is dropped.
			c.finishLocked(id)
			c.dropped[id] = struct{}{}
			if b = c.batches[id]; b != nil {
				delete(c.batches, id)
			}
		}
	}
	c.mu.Unlock()
	if cl != nil && cl.cancel != nil {
		cl.cancel()
	}
	if b != nil {
		if all := b.answer(nil); all != nil {
			c.send(all)
		}
	}
}

// finish records that a request is answered and reports whether its answer
// is to be sent.
func (c *lineConn) finish(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.dropped[id]; ok {
		delete(c.dropped, id)
		return false
	}
	cl, ok := c.inflight[id]
	if !ok {
		return true // not one we track (subscriptions/listen, say)
	}
	c.finishLocked(id)
	return !cl.cancelled
}

func (c *lineConn) finishLocked(id jsonrpc.ID) {
	delete(c.inflight, id)
	if len(c.inflight) == 0 {
		close(c.drained)
		c.drained = make(chan struct{})
	}
}

// waitDrained returns once no request is unanswered, or at the limit.
func (c *lineConn) waitDrained(limit time.Duration) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		c.mu.Lock()
		n, ch := len(c.inflight), c.drained
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ch:
		case <-c.closed:
			return
		case <-t.C:
			c.log.Warn("input ended; gave up waiting for answers", "outstanding", n)
			return
		}
	}
}

// noteInitialized learns the negotiated protocol from the answer to
// initialize.
func (c *lineConn) noteInitialized(r *jsonrpc.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.initRead || r.ID != c.initID || r.Result == nil {
		return
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(r.Result, &res) == nil {
		c.protocol = res.ProtocolVersion
	}
}

// beforeInit holds the requests a session may make before initialize, as
// the SDK allows them.
var beforeInit = map[string]bool{
	"initialize": true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true, "server/discover": true,
}

// newProtocol reports whether params carry the per-request protocol
// metadata of MCP 2026-07-28 (SEP-2575), which the SDK handles itself.
func newProtocol(params json.RawMessage) bool {
	return bytes.Contains(params, []byte(`"io.modelcontextprotocol/`))
}

// fixErrorCode gives an error the SDK sent without a JSON-RPC code (0 is
// not one) the code that fits it.
func fixErrorCode(err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code != 0 {
		return err
	}
	msg := err.Error()
	code := int64(jsonrpc.CodeInternalError)
	if bytes.Contains([]byte(msg), []byte("invalid during session initialization")) {
		code = jsonrpc.CodeInvalidRequest
	}
	return &jsonrpc.Error{Code: code, Message: msg}
}

// A batch is one line holding a JSON array of messages, which protocols
// before 2025-06-18 allow: its answers go out together, as one array, once
// every request in it is answered.
type batch struct {
	mu      sync.Mutex
	pending int      // requests not yet answered; counted as they are admitted
	out     [][]byte // answers so far
}

// answer adds one answer (nil for a cancelled request) and, if it was the
// last one awaited, returns the whole array to send.
func (b *batch) answer(line []byte) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if line != nil {
		b.out = append(b.out, line)
	}
	b.pending--
	if b.pending > 0 {
		return nil
	}
	return b.array()
}

// array joins the answers into a JSON array (nil when there are none:
// a batch of notifications gets no answer).
func (b *batch) array() []byte {
	if len(b.out) == 0 {
		return nil
	}
	return append(append([]byte{'['}, bytes.Join(b.out, []byte{','})...), ']')
}

// batchAnswer records the answer to a request that came in a batch; it
// reports false if the request was not in one.
func (c *lineConn) batchAnswer(id jsonrpc.ID, line []byte) bool {
	c.mu.Lock()
	b := c.batches[id]
	if b == nil {
		c.mu.Unlock()
		return false
	}
	delete(c.batches, id)
	c.mu.Unlock()
	if !c.finish(id) {
		line = nil
	}
	if all := b.answer(line); all != nil {
		c.send(all)
	}
	return true
}

func (c *lineConn) handleBatch(line []byte) {
	c.mu.Lock()
	proto := c.protocol
	c.mu.Unlock()
	switch {
	case proto == "":
		c.send(errorLine(invalidRequest(nil, "a batch (JSON array) before the session is initialized; initialize must come alone")))
		return
	case proto >= "2025-06-18":
		c.send(errorLine(invalidRequest(nil, "a batch (JSON array), but protocol %s has no batches (they were removed in 2025-06-18); send one message per line", proto)))
		return
	}
	elems := splitBatch(line)
	if len(elems) == 0 {
		c.send(errorLine(invalidRequest(nil, "an empty batch")))
		return
	}
	b := &batch{}
	var admitted []*frame
	for _, el := range elems {
		f, e := parseMessage(el)
		if e == nil {
			e = c.admit(f, b)
		}
		if e != nil {
			b.out = append(b.out, errorLine(e))
			continue
		}
		admitted = append(admitted, f)
	}
	b.mu.Lock()
	none := b.pending == 0
	b.mu.Unlock()
	for _, f := range admitted {
		c.dispatch(f, false)
	}
	if none {
		if all := b.array(); all != nil {
			c.send(all)
		}
	}
}
