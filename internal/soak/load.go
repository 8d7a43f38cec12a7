package soak

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// LoadStats counts one kind of load's cycles and failures.
type LoadStats struct {
	Name string
	mu   sync.Mutex
	// Cycles are the cycles done without an error, Errors those that
	// failed; FirstErrors keeps the first few messages.
	Cycles, Errors int
	FirstErrors    []string
	// Notes counts what happened that was neither, by what it was.
	Notes map[string]int
}

func (s *LoadStats) add(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.Cycles++
		return
	}
	s.Errors++
	if len(s.FirstErrors) < 3 {
		s.FirstErrors = append(s.FirstErrors, err.Error())
	}
}

func (s *LoadStats) note(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Notes == nil {
		s.Notes = map[string]int{}
	}
	s.Notes[what]++
}

// Counts returns the cycles and errors so far.
func (s *LoadStats) Counts() (cycles, errs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Cycles, s.Errors
}

// load is one kind of load: cycle n runs on a session of its own, then
// the load pauses before the next.
type load struct {
	name  string
	pause time.Duration
	cycle func(ctx context.Context, c *client, n int, st *LoadStats) error
	// hold, if set, is held during each cycle.
	hold *sync.Mutex
}

// run repeats l's cycle on a session of its own until ctx ends.
func (l load) run(ctx context.Context, url string, st *LoadStats) {
	c := &client{url: url}
	defer c.close()
	for n := 0; ctx.Err() == nil; n++ {
		if l.hold != nil {
			l.hold.Lock()
		}
		err := l.cycle(ctx, c, n, st)
		if l.hold != nil {
			l.hold.Unlock()
		}
		if ctx.Err() != nil {
			return // cut short by the end of the run, not a failure
		}
		st.add(err)
		select {
		case <-ctx.Done():
		case <-time.After(l.pause):
		}
	}
}

// loads are the kinds of load on srv, with the browser on the page at
// page and the upstream everything.
func loads(srv *server, page, everything string) []load {
	quick := load{name: "quick tools", pause: 20 * time.Millisecond, cycle: func(ctx context.Context, c *client, n int, _ *LoadStats) error {
		if _, err := c.call(ctx, "hash_text", map[string]any{"text": fmt.Sprint("soak ", n), "algorithm": "sha256"}); err != nil {
			return err
		}
		if _, err := c.call(ctx, "json_format", map[string]any{"json": fmt.Sprintf(`{"n":%d,"list":[1,2,3],"nested":{"a":"b"}}`, n)}); err != nil {
			return err
		}
		_, err := c.call(ctx, "json_validator", map[string]any{"data": map[string]any{"n": n},
			"schema": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []string{"n"}}})
		return err
	}}
	quick2 := quick
	quick2.name = "quick tools (2)"
	return []load{quick, quick2,
		// Held during a cycle, so that samples see each browser with one
		// tab. browser_close closes the browser of the Igor it reaches:
		// called twice, it usually reaches both.
		{name: "browser tabs", pause: 250 * time.Millisecond, hold: &srv.quiet, cycle: func(ctx context.Context, c *client, n int, st *LoadStats) error {
			if n%10 == 9 {
				for range 2 {
					if _, err := c.call(ctx, "browser_close", nil); err != nil {
						return err
					}
				}
			}
			url := fmt.Sprintf("%s?n=%d", page, n)
			if _, err := c.call(ctx, "browser_navigate", map[string]any{"url": url}); err != nil {
				return err
			}
			if _, err := c.call(ctx, "browser_tabs", map[string]any{"action": "new", "url": url + "&tab=2"}); err != nil {
				return err
			}
			// Each Igor has a browser of its own, and a browser tool has no
			// affinity to the Igor whose browser it used last: the close may
			// reach the other Igor, whose browser has no second tab. It is
			// tried again; a tab still open is left to the next
			// browser_close that reaches its Igor.
			for range 6 {
				_, err := c.call(ctx, "browser_tabs", map[string]any{"action": "close", "index": 1})
				if err == nil || !strings.Contains(err.Error(), "no tab 1") {
					return err
				}
				st.note("tab closes that reached the other Igor's browser")
			}
			st.note("tabs left open")
			return nil
		}},
		{name: "SQLite connections", pause: 100 * time.Millisecond, cycle: func(ctx context.Context, c *client, n int, _ *LoadStats) error {
			steps := []struct {
				tool string
				args map[string]any
			}{
				{"db_sqlite_open", map[string]any{"path": "soak.db", "alias": "soak"}},
				{"db_sqlite_query", map[string]any{"alias": "soak", "query": "CREATE TABLE IF NOT EXISTS t (n INTEGER, at TEXT)"}},
				{"db_sqlite_query", map[string]any{"alias": "soak", "query": "INSERT INTO t VALUES (?, datetime('now'))", "params": []any{n}}},
				{"db_sqlite_query", map[string]any{"alias": "soak", "query": "DELETE FROM t WHERE n < ?", "params": []any{n - 100}}},
				{"db_sqlite_query", map[string]any{"alias": "soak", "query": "SELECT count(*) AS rows, max(n) AS last FROM t"}},
			}
			var err error
			for _, s := range steps {
				if _, err = c.call(ctx, s.tool, s.args); err != nil {
					break
				}
			}
			if _, cerr := c.call(ctx, "db_sqlite_close", map[string]any{"alias": "soak"}); err == nil {
				err = cerr
			}
			return err
		}},
		{name: "hosted upstream", pause: 100 * time.Millisecond, cycle: func(ctx context.Context, c *client, n int, _ *LoadStats) error {
			if n%100 == 0 { // registered again every 100 calls: its process comes and goes
				if n > 0 {
					if _, err := c.call(ctx, "mcp_unregister", map[string]any{"id": "everything"}); err != nil {
						return err
					}
				}
				if _, err := c.call(ctx, "mcp_register", map[string]any{"name": "everything", "command": everything, "args": []string{"stdio"}}); err != nil {
					return err
				}
			}
			_, err := c.call(ctx, "everything__echo", map[string]any{"message": fmt.Sprint("soak ", n)})
			return err
		}},
		{name: "dynamic tools", pause: 500 * time.Millisecond, cycle: func(ctx context.Context, c *client, n int, _ *LoadStats) error {
			if _, err := c.call(ctx, "dynamic_tool_create", map[string]any{"name": "soak_reverse", "description": "Reverses a text",
				"schema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "description": "Text"}}, "required": []string{"text"}},
				"code":   "const text = args.text as string;\nreturn { reversed: text.split('').reverse().join(''), n: " + fmt.Sprint(n) + " };"}); err != nil {
				return err
			}
			_, err := c.call(ctx, "soak_reverse", map[string]any{"text": fmt.Sprint("soak ", n)})
			if _, derr := c.call(ctx, "dynamic_tool_delete", map[string]any{"name": "soak_reverse"}); err == nil {
				err = derr
			}
			return err
		}},
		{name: "HTTP sessions", pause: 200 * time.Millisecond, cycle: func(ctx context.Context, _ *client, n int, _ *LoadStats) error {
			s := &client{url: srv.url}
			_, err := s.call(ctx, "hash_text", map[string]any{"text": fmt.Sprint("session ", n)})
			if n%4 != 3 { // every fourth is abandoned, for the idle timeout to end
				s.close()
			}
			return err
		}},
	}
}

// client is an MCP session over HTTP, opened on first use and again after
// a call fails for want of it (the server ended it, or it broke).
type client struct {
	url string
	s   *mcp.ClientSession
}

// call calls a tool; a result that is an error is returned as one. A
// session the server ended (a sampler's, idle while a browser cycle ran
// past mcp.sessionIdleTimeout) is opened again, and the call tried once
// more on the new one.
func (c *client) call(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var res *mcp.CallToolResult
	for try := 0; ; try++ {
		fresh := c.s == nil
		if fresh {
			s, err := dial(ctx, c.url)
			if err != nil {
				return nil, err
			}
			c.s = s
		}
		var err error
		res, err = c.s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err == nil {
			break
		}
		c.close()
		if fresh || try > 0 || ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if res.IsError {
		return res, fmt.Errorf("%s: %.300s", name, text(res))
	}
	return res, nil
}

func (c *client) close() {
	if c.s != nil {
		c.s.Close()
		c.s = nil
	}
}

// text is a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// page is the soak's own web page, for the browser's tabs.
type page struct {
	URL string
	srv *http.Server
}

// servePage serves a small page with a script on a loopback port.
func servePage() (*page, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("soak: serving the page: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>Soak</title><h1>Soak</h1><ul id="list"></ul>
<script>for (let i = 0; i < 200; i++) { const li = document.createElement('li'); li.textContent = 'item ' + i + ' ' + location.search; list.appendChild(li); }</script>`)
	})}
	go srv.Serve(l)
	return &page{URL: "http://" + l.Addr().String() + "/page", srv: srv}, nil
}

func (p *page) Close() { p.srv.Close() }
