// Command benchbrowser times browser flows through MCP stdio servers side by
// side: ours (barrhawk serve) and one or more peers (playwright-mcp), on the
// same pages, served by this program from 127.0.0.1. It speaks MCP's
// JSON-RPC lines itself (standard library only), so what it times is what
// crosses the pipes: each tools/call from the request written to the answer
// read, and each flow from its first request to its last answer.
//
//	go run ./scripts/benchbrowser -rounds 20 -ours 'bin/barrhawk serve' \
//	  -peer 'playwright-mcp=node cli.js --headless --isolated ...'
//
// Every server runs in a fresh temporary directory (its working directory
// and HOME) for the whole benchmark. After initialize, each is warmed up
// (its browser started, every workload run -warmup times, untimed); then
// rounds interleave the servers (ours, peer, ...; the next round in the
// reverse order) and, within a round, the workloads:
//
//   - login: a login page (labelled email and password inputs, a "Sign in"
//     button) that posts to a welcome page; navigate, type the email, type
//     the password, click "Sign in", read the welcome heading. Every round
//     types another email and checks that the heading read greets it.
//     Three ways, each done the cheapest way the server allows:
//     "selectors": the page's CSS selectors are known (the same arguments
//     for every server, which all accept CSS); "refs": an agent that knows
//     nothing of the page takes the refs of the fields and the button from
//     a snapshot; "refs, MCP only": the same without reading files.
//     Ours: navigate, [browser_snapshot,] type, type, click, browser_get_text.
//     playwright-mcp (0.0.8x) answers an action with a link to a snapshot
//     file it wrote (.playwright-mcp/page-*.yml under its directory) rather
//     than the snapshot: in "selectors" and "refs" that file is read (from
//     disk, by this program, inside the timed flow, as an agent on the same
//     machine reads it) for the refs and the heading; in "refs, MCP only"
//     browser_snapshot is called instead (after navigate, after the click).
//   - snapshot: browser_snapshot of a big page (a table of -rows rows of
//     links, buttons and inputs, headings and lists), navigated to before
//     (untimed); and of a smaller page of the same make (-fit-rows rows)
//     whose snapshot ours returns whole (ours cuts a snapshot at 96 KB).
//   - route + navigate (issue 33): browser_route of **/api/price answering
//     200 with a JSON price of the round (never the server's own), navigate
//     to a shop page whose script fetches /api/price and writes "Price
//     [...]" into the page, read it, browser_unroute. Ours reads #price with
//     browser_get_text (which waits for it); playwright-mcp's navigate
//     answer links to its snapshot file, read here, and browser_wait_for
//     {text} is called only when the price is not in it yet.
//   - storage state save + restore (issue 33): a page sets a cookie and a
//     localStorage item of the round (untimed); browser_storage_state
//     {filename: "state.json"}; a page removes both (untimed);
//     browser_set_storage_state {filename: "state.json"}, navigate to a page
//     showing the cookie (as the server received it) and the item, read it
//     (ours: browser_get_text of main; the peer: its snapshot file).
//   - emulate dark + evaluate (issue 33): on a page whose body is white, or
//     black under prefers-color-scheme: dark (navigated to before, untimed),
//     browser_emulate_media {colorScheme: "dark"}, browser_evaluate of the
//     body's computed background (black), browser_emulate_media
//     {colorScheme: null}; then, untimed, browser_evaluate again (white).
//
// Both servers have every workload; playwright-mcp needs --caps=network,storage
// for browser_route and the storage state tools. An untimed step shows among
// the steps, marked so, and is left out of the flow's total.
//
// A failed call, an error result or a wrong answer (heading, price, cookie,
// item, colour) ends the run (exit 1): nothing is skipped. Prints a Markdown table of medians and the ratios
// ours / each peer; -o writes every sample as JSON.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

type spec struct {
	name string
	argv []string
	env  []string
	dir  string // made by run
}

func main() {
	var (
		rounds    = flag.Int("rounds", 20, "timed rounds per server and workload")
		warmup    = flag.Int("warmup", 3, "untimed runs of every workload per server first")
		rows      = flag.Int("rows", 1000, "rows of the big page's table")
		fitRows   = flag.Int("fit-rows", 300, "rows of the page whose snapshot ours returns whole")
		oursCmd   = flag.String("ours", "bin/barrhawk serve", "our server's command (split at spaces)")
		timeout   = flag.Duration("timeout", 60*time.Second, "per call")
		out       = flag.String("o", "", "write every sample as JSON here")
		stderrDir = flag.String("stderr-dir", "", "append each server's stderr to NAME.stderr here")
		keep      = flag.Bool("keep", false, "keep the servers' temporary directories")
		peers     multiFlag
		oursEnv   multiFlag
		peerEnv   multiFlag
	)
	flag.Var(&peers, "peer", "NAME=COMMAND of a peer (split at spaces; repeatable)")
	flag.Var(&oursEnv, "ours-env", "KEY=VALUE added to our server's environment (repeatable)")
	flag.Var(&peerEnv, "peer-env", "KEY=VALUE added to every peer's environment (repeatable)")
	flag.Parse()
	if len(peers) == 0 || *oursCmd == "" || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "benchbrowser: -ours and at least one -peer NAME=COMMAND are required, -rounds at least 1")
		os.Exit(2)
	}
	specs := []spec{{name: "ours", argv: strings.Fields(*oursCmd), env: oursEnv}}
	for _, p := range peers {
		name, cmd, ok := strings.Cut(p, "=")
		if !ok || name == "" || name == "ours" || strings.TrimSpace(cmd) == "" {
			fmt.Fprintf(os.Stderr, "benchbrowser: -peer %q: want NAME=COMMAND\n", p)
			os.Exit(2)
		}
		specs = append(specs, spec{name: name, argv: strings.Fields(cmd), env: peerEnv})
	}
	if err := run(config{*rounds, *warmup, *rows, *fitRows, *timeout, *out, *stderrDir, *keep}, specs); err != nil {
		fmt.Fprintln(os.Stderr, "benchbrowser:", err)
		os.Exit(1)
	}
}

type config struct {
	rounds, warmup, rows, fitRows int
	timeout                       time.Duration
	out, stderrDir                string
	keep                          bool
}

// ---- the pages ----

const loginPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme - sign in</title></head>
<body>
<main>
<p>Acme accounts</p>
<form method="post" action="/welcome">
<p><label for="email">Email</label> <input id="email" name="email" type="email" autocomplete="off"></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="off"></p>
<p><button type="submit">Sign in</button></p>
</form>
</main>
</body></html>`

func welcomePage(email string) string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme - welcome</title></head>
<body><main><h1>Welcome, ` + html.EscapeString(email) + `</h1><p>You are signed in.</p><p><a href="/login">Sign out</a></p></main></body></html>`
}

// bigPage: a navigation list, ten sections of a heading and a list of ten,
// and a table of n rows, each a link, a number and a button or an input
// (5 elements a row: 5,000 and some for 1,000 rows).
func bigPage(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Inventory</title></head><body>`)
	b.WriteString(`<header><h1>Inventory</h1><nav><ul>`)
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, `<li><a href="#s%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav></header><main>`)
	for s := 1; s <= 10; s++ {
		fmt.Fprintf(&b, `<h2 id="s%d">Section %d</h2><ul>`, s, s)
		for i := 1; i <= 10; i++ {
			fmt.Fprintf(&b, `<li>Note %d.%d</li>`, s, i)
		}
		b.WriteString(`</ul>`)
	}
	b.WriteString(`<h2>Items</h2><table><thead><tr><th>Item</th><th>Stock</th><th>Action</th></tr></thead><tbody>`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<tr><td><a href="/item/%d">Item %d</a></td><td>%d</td><td>`, i, i, i*7%100)
		if i%2 == 0 {
			fmt.Fprintf(&b, `<button type="button">Edit %d</button>`, i)
		} else {
			fmt.Fprintf(&b, `<input aria-label="Quantity %d" value="%d">`, i, i%10)
		}
		b.WriteString(`</td></tr>`)
	}
	b.WriteString(`</tbody></table><p>End of inventory</p></main></body></html>`)
	return b.String()
}

// shopPage fetches /api/price after it loads and writes the price into a
// new #price paragraph ("Price [9.99]"), or the error ("Price error [...]").
const shopPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme - shop</title></head>
<body><main><h1>Shop</h1><div id="out"></div></main>
<script>
fetch('/api/price').then(r => r.json()).then(j => {
  const p = document.createElement('p'); p.id = 'price'; p.textContent = 'Price [' + j.price + ']';
  document.getElementById('out').append(p);
}).catch(e => {
  const p = document.createElement('p'); p.id = 'price'; p.textContent = 'Price error [' + e + ']';
  document.getElementById('out').append(p);
});
</script></body></html>`

// realPrice is what /api/price answers when it is not mocked; a mocked
// price is always another.
const realPrice = "0.00"

// storeSetPage sets the cookie "token" and the localStorage item "cart" to
// the values of its query (?token=...&cart=...), from its script.
const storeSetPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme - keep</title></head>
<body><main><h1>Kept</h1></main>
<script>
const q = new URLSearchParams(location.search);
document.cookie = 'token=' + encodeURIComponent(q.get('token')) + '; path=/; max-age=3600; SameSite=Lax';
localStorage.setItem('cart', q.get('cart'));
</script></body></html>`

// storeClearPage removes the cookie and the item.
const storeClearPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme - cleared</title></head>
<body><main><h1>Cleared</h1></main>
<script>
document.cookie = 'token=; path=/; max-age=0';
localStorage.clear();
</script></body></html>`

// storeShowPage shows the cookie the request carried (rendered by the
// server) and the localStorage item (written by its script while the page
// is parsed, so before the load event): "cookie [...]", "item [...]".
func storeShowPage(cookie string) string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme - state</title></head>
<body><main><h1>State</h1><p id="cookie">cookie [` + html.EscapeString(cookie) + `]</p><p id="item"></p>
<script>document.getElementById('item').textContent = 'item [' + (localStorage.getItem('cart') ?? 'none') + ']';</script>
</main></body></html>`
}

// themePage: a white body, black under prefers-color-scheme: dark.
const themePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme - theme</title>
<style>body { background: rgb(255, 255, 255); color: rgb(0, 0, 0) }
@media (prefers-color-scheme: dark) { body { background: rgb(0, 0, 0); color: rgb(255, 255, 255) } }</style></head>
<body><main><h1>Theme</h1><p>Light or dark.</p></main></body></html>`

const (
	lightBackground = "rgb(255, 255, 255)"
	darkBackground  = "rgb(0, 0, 0)"
)

func serve(rows, fitRows int) (string, func(), error) {
	big, fit := bigPage(rows), bigPage(fitRows)
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			io.WriteString(w, body)
		}
	}
	mux.HandleFunc("GET /login", page(loginPage))
	mux.HandleFunc("GET /big", page(big))
	mux.HandleFunc("GET /fit", page(fit))
	mux.HandleFunc("GET /shop", page(shopPage))
	mux.HandleFunc("GET /api/price", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, `{"price":"`+realPrice+`"}`)
	})
	mux.HandleFunc("GET /store/set", page(storeSetPage))
	mux.HandleFunc("GET /store/clear", page(storeClearPage))
	mux.HandleFunc("GET /store/show", func(w http.ResponseWriter, r *http.Request) {
		cookie := "none"
		if c, err := r.Cookie("token"); err == nil {
			cookie = c.Value
		}
		page(storeShowPage(cookie))(w, r)
	})
	mux.HandleFunc("GET /theme", page(themePage))
	mux.HandleFunc("POST /welcome", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.PostForm.Get("password") != "hunter2" {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		page(welcomePage(r.PostForm.Get("email")))(w, r)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln) //nolint:errcheck // closed at the end
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// ---- the MCP client ----

type rpcMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

type client struct {
	name    string
	dir     string
	proc    *proc.Process
	stdin   io.WriteCloser
	timeout time.Duration

	mu      sync.Mutex
	nextID  int
	pending map[string]chan rpcMsg
	readErr error
	wmu     sync.Mutex
	done    chan struct{}
}

func startClient(s spec, timeout time.Duration, stderrDir string) (*client, error) {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = s.dir
	cmd.Env = append(append(os.Environ(), "HOME="+s.dir), s.env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if stderrDir != "" {
		f, err := os.OpenFile(stderrDir+"/"+s.name+".stderr", os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		cmd.Stderr = f
	}
	// A process group of its own, so that stopping it stops its browser too.
	p, err := proc.Start(cmd)
	if err != nil {
		return nil, err
	}
	c := &client{name: s.name, dir: s.dir, proc: p, stdin: stdin, timeout: timeout, pending: map[string]chan rpcMsg{}, done: make(chan struct{})}
	go c.read(stdout)
	return c, nil
}

func (c *client) read(r io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var m rpcMsg
		if err := json.Unmarshal(line, &m); err != nil {
			continue // not JSON-RPC: ignored
		}
		if m.Method != "" {
			switch { // a request from the server is answered; a notification is not
			case len(m.ID) > 0 && m.Method == "ping":
				c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)) //nolint:errcheck // a broken pipe shows in the next request
			case len(m.ID) > 0:
				c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"not supported by benchbrowser"}}`, m.ID)) //nolint:errcheck // as above
			}
			continue
		}
		c.mu.Lock()
		ch := c.pending[string(m.ID)]
		delete(c.pending, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
	c.mu.Lock()
	c.readErr = fmt.Errorf("%s: stdout closed (%v)", c.name, sc.Err())
	c.mu.Unlock()
}

func (c *client) send(line string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := io.WriteString(c.stdin, line+"\n")
	return err
}

// request sends one request and waits for its answer; the duration is from
// the write to the answer read.
func (c *client) request(method string, params any) (rpcMsg, time.Duration, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return rpcMsg{}, 0, err
	}
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return rpcMsg{}, 0, c.readErr
	}
	c.nextID++
	id := fmt.Sprint(c.nextID)
	ch := make(chan rpcMsg, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, p)
	t0 := time.Now()
	if err := c.send(line); err != nil {
		return rpcMsg{}, 0, fmt.Errorf("%s: write: %v", c.name, err)
	}
	select {
	case m := <-ch:
		d := time.Since(t0)
		if m.Error != nil {
			return m, d, fmt.Errorf("%s %s: error %d: %s", c.name, method, m.Error.Code, m.Error.Message)
		}
		return m, d, nil
	case <-c.done:
		return rpcMsg{}, 0, fmt.Errorf("%s: the server went away during %s", c.name, method)
	case <-time.After(c.timeout):
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return rpcMsg{}, 0, fmt.Errorf("%s %s: no answer in %v", c.name, method, c.timeout)
	}
}

func (c *client) initialize() (time.Duration, string, error) {
	m, d, err := c.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "benchbrowser", "version": "1"},
	})
	if err != nil {
		return 0, "", err
	}
	var r struct {
		ServerInfo struct{ Name, Version string } `json:"serverInfo"`
	}
	json.Unmarshal(m.Result, &r) //nolint:errcheck // informational
	return d, r.ServerInfo.Name + " " + r.ServerInfo.Version, c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// call runs one tools/call; an error result is an error. It returns the
// text content joined and the call's duration.
func (c *client) call(name string, args map[string]any) (string, time.Duration, error) {
	m, d, err := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return "", d, err
	}
	var r toolResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		return "", d, fmt.Errorf("%s %s: result: %v", c.name, name, err)
	}
	var texts []string
	for _, ct := range r.Content {
		if ct.Type == "text" {
			texts = append(texts, ct.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if r.IsError {
		return text, d, fmt.Errorf("%s %s %v: error result: %.500s", c.name, name, args, text)
	}
	return text, d, nil
}

func (c *client) stop() {
	c.stdin.Close()
	select {
	case <-c.proc.Done():
	case <-time.After(5 * time.Second):
		c.proc.Stop(5 * time.Second) // SIGTERM to its group, then SIGKILL
	}
}

// ---- the workloads ----

// A sample is one timed run of a workload: the whole and each step.
type sample struct {
	Total time.Duration   `json:"total_ns"`
	Steps []time.Duration `json:"steps_ns"`
	Names []string        `json:"steps"`
	Bytes int             `json:"bytes,omitempty"` // the snapshot's text
	Whole bool            `json:"whole,omitempty"` // the snapshot reached the page's end
}

type stepper struct {
	c       *client
	s       sample
	untimed time.Duration // steps left out of the sample's total
}

// skip runs an untimed call: it shows among the steps (labelled so) and is
// subtracted from the total by done.
func (st *stepper) skip(label, name string, args map[string]any) (string, error) {
	text, d, err := st.c.call(name, args)
	st.step(label+" (untimed)", d)
	st.untimed += d
	return text, err
}

// done sets the total: the time since t0 less the untimed steps.
func (st *stepper) done(t0 time.Time) { st.s.Total = time.Since(t0) - st.untimed }

func (st *stepper) step(label string, d time.Duration) {
	st.s.Steps = append(st.s.Steps, d)
	st.s.Names = append(st.s.Names, label)
}

func (st *stepper) call(label, name string, args map[string]any) (string, error) {
	text, d, err := st.c.call(name, args)
	st.step(label, d)
	return text, err
}

// refLine matches a snapshot line of either server: `- role "name" ... [ref=e12]`.
var refLine = regexp.MustCompile(`(?m)^\s*- (\w+) "((?:[^"\\]|\\.)*)"[^\n]*?\[ref=([^\]\s]+)\]`)

func findRef(snap, role, name string) (string, error) {
	for _, m := range refLine.FindAllStringSubmatch(snap, -1) {
		if m[1] == role && m[2] == name {
			return m[3], nil
		}
	}
	return "", fmt.Errorf("no %s %q with a ref in the snapshot:\n%.2000s", role, name, snap)
}

var headingLine = regexp.MustCompile(`(?m)^\s*- heading "((?:[^"\\]|\\.)*)"`)

func welcomeHeading(snap string) (string, bool) {
	for _, m := range headingLine.FindAllStringSubmatch(snap, -1) {
		if strings.HasPrefix(m[1], "Welcome") {
			return unquote(m[1]), true
		}
	}
	return "", false
}

func unquote(s string) string {
	var out string
	if err := json.Unmarshal([]byte(`"`+s+`"`), &out); err != nil {
		return s
	}
	return out
}

// snapshotLink: playwright-mcp's "- [Snapshot](path)" in an action's answer.
var snapshotLink = regexp.MustCompile(`\[Snapshot\]\(([^)\s]+)\)`)

// snapshotOf returns the snapshot an answer carries: inline, else (unless
// mcpOnly) the file it links to, read here, else from browser_snapshot.
func (st *stepper) snapshotOf(answer string, mcpOnly bool) (string, error) {
	if strings.Contains(answer, "[ref=") {
		return answer, nil
	}
	if m := snapshotLink.FindStringSubmatch(answer); m != nil && !mcpOnly {
		p := m[1]
		if !filepath.IsAbs(p) {
			p = filepath.Join(st.c.dir, p)
		}
		t0 := time.Now()
		b, err := os.ReadFile(p)
		st.step("read snapshot file", time.Since(t0))
		if err != nil {
			return "", fmt.Errorf("%s: the snapshot file its answer links to: %v", st.c.name, err)
		}
		return string(b), nil
	}
	return st.call("snapshot", "browser_snapshot", map[string]any{})
}

type flow struct {
	base  string
	round int
}

func (f flow) email() string { return fmt.Sprintf("ada%d@example.com", f.round) }

func (f flow) check(c *client, got string) error {
	if want := "Welcome, " + f.email(); strings.TrimSpace(got) != want {
		return fmt.Errorf("%s: the heading read is %q, want %q", c.name, got, want)
	}
	return nil
}

// login runs the login flow: with the page's selectors, or with refs read
// from a snapshot; mcpOnly: no snapshot file is read (see the package doc).
func login(c *client, f flow, refs, mcpOnly bool) (sample, error) {
	st := &stepper{c: c}
	t0 := time.Now()
	nav, err := st.call("navigate", "browser_navigate", map[string]any{"url": f.base + "/login"})
	if err != nil {
		return st.s, err
	}
	email, password, button := "#email", "#password", "button[type=submit]"
	if refs {
		var snap string
		if c.name == "ours" {
			snap, err = st.call("snapshot", "browser_snapshot", map[string]any{})
		} else {
			snap, err = st.snapshotOf(nav, mcpOnly)
		}
		if err != nil {
			return st.s, err
		}
		for _, x := range []struct {
			ref        *string
			role, name string
		}{{&email, "textbox", "Email"}, {&password, "textbox", "Password"}, {&button, "button", "Sign in"}} {
			if *x.ref, err = findRef(snap, x.role, x.name); err != nil {
				return st.s, fmt.Errorf("%s: %v", c.name, err)
			}
		}
	}
	if c.name == "ours" {
		if _, err := st.call("type email", "browser_type", map[string]any{"selector": email, "text": f.email()}); err != nil {
			return st.s, err
		}
		if _, err := st.call("type password", "browser_type", map[string]any{"selector": password, "text": "hunter2"}); err != nil {
			return st.s, err
		}
		if _, err := st.call("click", "browser_click", map[string]any{"selector": button}); err != nil {
			return st.s, err
		}
		text, err := st.call("get_text", "browser_get_text", map[string]any{"selector": "h1"})
		if err != nil {
			return st.s, err
		}
		st.s.Total = time.Since(t0)
		var r struct{ Text string }
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			return st.s, fmt.Errorf("ours get_text: %v: %s", err, text)
		}
		return st.s, f.check(c, r.Text)
	}
	if _, err := st.call("type email", "browser_type", map[string]any{"element": "Email textbox", "target": email, "text": f.email()}); err != nil {
		return st.s, err
	}
	if _, err := st.call("type password", "browser_type", map[string]any{"element": "Password textbox", "target": password, "text": "hunter2"}); err != nil {
		return st.s, err
	}
	clicked, err := st.call("click", "browser_click", map[string]any{"element": "Sign in button", "target": button})
	if err != nil {
		return st.s, err
	}
	snap, err := st.snapshotOf(clicked, mcpOnly)
	if err != nil {
		return st.s, err
	}
	st.s.Total = time.Since(t0)
	h, ok := welcomeHeading(snap)
	if !ok {
		return st.s, fmt.Errorf("%s: no welcome heading in the snapshot after the click:\n%.2000s", c.name, snap)
	}
	return st.s, f.check(c, h)
}

// snapshotPage: browser_snapshot of a page navigated to before (untimed).
func snapshotPage(c *client, rows int, mustBeWhole bool) (sample, error) {
	st := &stepper{c: c}
	t0 := time.Now()
	text, err := st.call("snapshot", "browser_snapshot", map[string]any{})
	st.s.Total = time.Since(t0)
	if err != nil {
		return st.s, err
	}
	st.s.Bytes = len(text)
	for _, want := range []string{"Inventory", "Section 10", "Note 10.10", `"Item 1"`} {
		if !strings.Contains(text, want) {
			return st.s, fmt.Errorf("%s: the snapshot lacks %q:\n%.2000s", c.name, want, text)
		}
	}
	st.s.Whole = strings.Contains(text, fmt.Sprintf(`"Item %d"`, rows)) && strings.Contains(text, "End of inventory")
	if mustBeWhole && !st.s.Whole {
		return st.s, fmt.Errorf("%s: the snapshot of the %d-row page is not whole (%d bytes): lower -fit-rows", c.name, rows, len(text))
	}
	return st.s, nil
}

// oursText reads the text of selector with our browser_get_text.
func oursText(st *stepper, label, selector string) (string, error) {
	text, err := st.call(label, "browser_get_text", map[string]any{"selector": selector})
	if err != nil {
		return "", err
	}
	var r struct{ Text string }
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return "", fmt.Errorf("ours browser_get_text: %v: %.500s", err, text)
	}
	return r.Text, nil
}

// evaluated returns the value a browser_evaluate answered, as JSON: ours
// answers {"value": ...}; playwright-mcp a Markdown section "### Result"
// whose first lines are the value.
func evaluated(c *client, answer string) (json.RawMessage, error) {
	if c.name == "ours" {
		var r struct{ Value json.RawMessage }
		if err := json.Unmarshal([]byte(answer), &r); err != nil || r.Value == nil {
			return nil, fmt.Errorf("ours browser_evaluate: no value in %.500s", answer)
		}
		return r.Value, nil
	}
	_, rest, ok := strings.Cut(answer, "### Result\n")
	if !ok {
		return nil, fmt.Errorf("%s browser_evaluate: no \"### Result\" in %.500s", c.name, answer)
	}
	if i := strings.Index(rest, "\n###"); i >= 0 {
		rest = rest[:i]
	}
	return json.RawMessage(strings.TrimSpace(rest)), nil
}

// background reads the body's computed background colour with
// browser_evaluate (run, untimed, by skip when timed is false).
func background(st *stepper, label string, timed bool) (string, error) {
	const expr = "getComputedStyle(document.body).backgroundColor"
	args := map[string]any{"expression": expr}
	if st.c.name != "ours" {
		args = map[string]any{"function": "() => " + expr}
	}
	call := st.call
	if !timed {
		call = st.skip
	}
	answer, err := call(label, "browser_evaluate", args)
	if err != nil {
		return "", err
	}
	raw, err := evaluated(st.c, answer)
	if err != nil {
		return "", err
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("%s browser_evaluate: the value %s is not a string: %v", st.c.name, raw, err)
	}
	return v, nil
}

// pricePara matches the shop page's price paragraph in a snapshot.
var pricePara = regexp.MustCompile(`Price (?:error )?\[[^\]\n]*\]`)

// routeFlow mocks /api/price (a price of this round, never the real one),
// navigates to the shop page whose script fetches it, reads the price the
// page shows and removes the route. Ours reads #price with
// browser_get_text (which waits for it); the peer reads the snapshot file
// navigate's answer links to, and calls browser_wait_for {text} only when
// the price is not in it yet (the fetch still running).
func routeFlow(c *client, f flow) (sample, error) {
	st := &stepper{c: c}
	price := fmt.Sprintf("%d.99", f.round)
	want := "Price [" + price + "]"
	t0 := time.Now()
	if _, err := st.call("route", "browser_route", map[string]any{
		"pattern": "**/api/price", "status": 200, "contentType": "application/json", "body": `{"price":"` + price + `"}`,
	}); err != nil {
		return st.s, err
	}
	nav, err := st.call("navigate", "browser_navigate", map[string]any{"url": f.base + "/shop"})
	if err != nil {
		return st.s, err
	}
	var got string
	if c.name == "ours" {
		if got, err = oursText(st, "get_text", "#price"); err != nil {
			return st.s, err
		}
	} else {
		snap, err := st.snapshotOf(nav, false)
		if err != nil {
			return st.s, err
		}
		got = pricePara.FindString(snap)
		if got == "" { // the fetch had not answered when navigate did
			if _, err := st.call("wait_for", "browser_wait_for", map[string]any{"text": want}); err != nil {
				return st.s, err
			}
			got = want
		}
	}
	if _, err := st.call("unroute", "browser_unroute", map[string]any{"pattern": "**/api/price"}); err != nil {
		return st.s, err
	}
	st.done(t0)
	if strings.TrimSpace(got) != want {
		return st.s, fmt.Errorf("%s: the shop page shows %q, want the mocked %q", c.name, got, want)
	}
	return st.s, nil
}

// storageFlow: a page sets the cookie and the item of this round (untimed);
// the storage state is saved to state.json in the server's directory; a
// page removes both (untimed); the state is loaded back and a page showing
// the cookie and the item is navigated to and read (ours: browser_get_text
// of main; the peer: the snapshot file navigate's answer links to).
func storageFlow(c *client, f flow) (sample, error) {
	st := &stepper{c: c}
	token, cart := fmt.Sprintf("tok-%d", f.round), fmt.Sprintf("cart-%d", f.round)
	t0 := time.Now()
	if _, err := st.skip("set", "browser_navigate", map[string]any{"url": f.base + "/store/set?token=" + token + "&cart=" + cart}); err != nil {
		return st.s, err
	}
	if _, err := st.call("save", "browser_storage_state", map[string]any{"filename": "state.json"}); err != nil {
		return st.s, err
	}
	if _, err := st.skip("clear", "browser_navigate", map[string]any{"url": f.base + "/store/clear"}); err != nil {
		return st.s, err
	}
	if _, err := st.call("load", "browser_set_storage_state", map[string]any{"filename": "state.json"}); err != nil {
		return st.s, err
	}
	nav, err := st.call("navigate", "browser_navigate", map[string]any{"url": f.base + "/store/show"})
	if err != nil {
		return st.s, err
	}
	var got string
	if c.name == "ours" {
		got, err = oursText(st, "get_text", "main")
	} else {
		got, err = st.snapshotOf(nav, false)
	}
	if err != nil {
		return st.s, err
	}
	st.done(t0)
	for _, want := range []string{"cookie [" + token + "]", "item [" + cart + "]"} {
		if !strings.Contains(got, want) {
			return st.s, fmt.Errorf("%s: the restored state's page lacks %q:\n%.2000s", c.name, want, got)
		}
	}
	return st.s, nil
}

// emulateFlow, on the theme page (navigated to before, untimed): emulate
// the dark colour scheme, read the body's computed background (black),
// clear the emulation (colorScheme null); then, untimed, check that the
// background is white again.
func emulateFlow(c *client, f flow) (sample, error) {
	st := &stepper{c: c}
	t0 := time.Now()
	if _, err := st.call("dark", "browser_emulate_media", map[string]any{"colorScheme": "dark"}); err != nil {
		return st.s, err
	}
	dark, err := background(st, "evaluate", true)
	if err != nil {
		return st.s, err
	}
	if _, err := st.call("clear", "browser_emulate_media", map[string]any{"colorScheme": nil}); err != nil {
		return st.s, err
	}
	light, err := background(st, "evaluate", false)
	if err != nil {
		return st.s, err
	}
	st.done(t0)
	if dark != darkBackground || light != lightBackground {
		return st.s, fmt.Errorf("%s: the body's background is %q in dark mode and %q after, want %q and %q", c.name, dark, light, darkBackground, lightBackground)
	}
	return st.s, nil
}

// ---- the run ----

type workload struct {
	name  string
	login bool
	ratio bool                               // a line of its own among the ratios
	setup func(c *client, base string) error // untimed, before each timed run
	run   func(c *client, f flow) (sample, error)
}

func run(cfg config, specs []spec) error {
	base, stopHTTP, err := serve(cfg.rows, cfg.fitRows)
	if err != nil {
		return err
	}
	defer stopHTTP()
	var clients []*client
	defer func() {
		for _, c := range clients {
			c.stop()
			if !cfg.keep {
				os.RemoveAll(c.dir)
			}
		}
	}()
	info := map[string]any{"rounds": cfg.rounds, "warmup": cfg.warmup, "rows": cfg.rows, "fit_rows": cfg.fitRows, "started": time.Now().Format(time.RFC3339)}
	for _, s := range specs {
		if s.dir, err = os.MkdirTemp("", "benchbrowser-"+s.name+"-"); err != nil {
			return err
		}
		c, err := startClient(s, cfg.timeout, cfg.stderrDir)
		if err != nil {
			os.RemoveAll(s.dir)
			return fmt.Errorf("%s: %v", s.name, err)
		}
		clients = append(clients, c)
		d, server, err := c.initialize()
		if err != nil {
			return err
		}
		info[s.name] = map[string]any{"server": server, "command": s.argv, "initialize_ms": float64(d) / 1e6}
		fmt.Fprintf(os.Stderr, "%s: %s, initialize answered in %v\n", s.name, server, d.Round(time.Millisecond))
	}
	nav := func(path string) func(c *client, base string) error {
		return func(c *client, base string) error {
			_, _, err := c.call("browser_navigate", map[string]any{"url": base + path})
			return err
		}
	}
	workloads := []workload{
		{name: "login, selectors", login: true, run: func(c *client, f flow) (sample, error) { return login(c, f, false, false) }},
		{name: "login, refs", login: true, run: func(c *client, f flow) (sample, error) { return login(c, f, true, false) }},
		{name: "login, refs, MCP only", login: true, run: func(c *client, f flow) (sample, error) { return login(c, f, true, true) }},
		{name: fmt.Sprintf("snapshot, big page (%d rows)", cfg.rows), setup: nav("/big"),
			run: func(c *client, f flow) (sample, error) { return snapshotPage(c, cfg.rows, false) }},
		{name: fmt.Sprintf("snapshot, %d rows (whole for every server)", cfg.fitRows), setup: nav("/fit"),
			run: func(c *client, f flow) (sample, error) { return snapshotPage(c, cfg.fitRows, true) }},
		{name: "route + navigate", ratio: true, run: routeFlow},
		{name: "storage state save + restore", ratio: true, run: storageFlow},
		{name: "emulate dark + evaluate", ratio: true, setup: nav("/theme"), run: emulateFlow},
	}
	one := func(c *client, w workload, round int) (sample, error) {
		if w.setup != nil {
			if err := w.setup(c, base); err != nil {
				return sample{}, err
			}
		}
		return w.run(c, flow{base: base, round: round})
	}
	// Warm-up: the browser started (the first call launches it), every
	// workload run.
	for _, c := range clients {
		t0 := time.Now()
		for i := range cfg.warmup {
			for _, w := range workloads {
				if _, err := one(c, w, 1000+i); err != nil {
					return fmt.Errorf("warm-up: %s: %v", w.name, err)
				}
			}
		}
		fmt.Fprintf(os.Stderr, "%s: warmed up in %v\n", c.name, time.Since(t0).Round(time.Millisecond))
	}
	samples := map[string]map[string][]sample{}
	for _, c := range clients {
		samples[c.name] = map[string][]sample{}
	}
	t0 := time.Now()
	for r := range cfg.rounds {
		order := slices.Clone(clients)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, w := range workloads {
			for _, c := range order {
				s, err := one(c, w, r+1)
				if err != nil {
					return fmt.Errorf("round %d, %s: %v", r+1, w.name, err)
				}
				samples[c.name][w.name] = append(samples[c.name][w.name], s)
			}
		}
		fmt.Fprintf(os.Stderr, "round %d/%d done (%v)\n", r+1, cfg.rounds, time.Since(t0).Round(time.Second))
	}
	report(os.Stdout, workloads, samples, specs)
	if cfg.out != "" {
		b, err := json.MarshalIndent(map[string]any{"info": info, "samples": samples}, "", " ")
		if err != nil {
			return err
		}
		return os.WriteFile(cfg.out, b, 0o644)
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/1e6) }

func report(w io.Writer, workloads []workload, samples map[string]map[string][]sample, specs []spec) {
	var b bytes.Buffer
	head := "| workload (ms: median, min–max) |"
	sep := "| --- |"
	for _, s := range specs {
		head += " " + s.name + " |"
		sep += " --- |"
	}
	for _, s := range specs[1:] {
		head += " ours / " + s.name + " |"
		sep += " --- |"
	}
	fmt.Fprintln(&b, head)
	fmt.Fprintln(&b, sep)
	med := map[string]map[string]time.Duration{}
	for _, s := range specs {
		med[s.name] = map[string]time.Duration{}
	}
	for _, wl := range workloads {
		row := []string{wl.name}
		for _, s := range specs {
			var tot []time.Duration
			for _, x := range samples[s.name][wl.name] {
				tot = append(tot, x.Total)
			}
			m := median(tot)
			med[s.name][wl.name] = m
			row = append(row, fmt.Sprintf("%s (%s–%s)", ms(m), ms(slices.Min(tot)), ms(slices.Max(tot))))
		}
		for _, s := range specs[1:] {
			row = append(row, fmt.Sprintf("%.2f", float64(med["ours"][wl.name])/float64(med[s.name][wl.name])))
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
	}
	fastest := func(name string) (time.Duration, string) {
		var best time.Duration
		var how string
		for _, wl := range workloads {
			if m := med[name][wl.name]; wl.login && (best == 0 || m < best) {
				best, how = m, wl.name
			}
		}
		return best, how
	}
	fmt.Fprintln(&b)
	for _, s := range specs[1:] {
		o, oh := fastest("ours")
		p, ph := fastest(s.name)
		fmt.Fprintf(&b, "login flow, ours / %s, the fastest way of each (%s; %s): %.2f\n", s.name, oh, ph, float64(o)/float64(p))
		fmt.Fprintf(&b, "login flow, ours (selectors) / %s (refs): %.2f\n", s.name, float64(med["ours"][workloads[0].name])/float64(med[s.name][workloads[1].name]))
		fmt.Fprintf(&b, "%s, ours / %s: %.2f\n", workloads[3].name, s.name, float64(med["ours"][workloads[3].name])/float64(med[s.name][workloads[3].name]))
		for _, wl := range workloads {
			if wl.ratio {
				fmt.Fprintf(&b, "%s, ours / %s: %.2f\n", wl.name, s.name, float64(med["ours"][wl.name])/float64(med[s.name][wl.name]))
			}
		}
	}
	fmt.Fprintln(&b, "\nPer step, medians (ms):")
	for _, wl := range workloads {
		for _, s := range specs {
			xs := samples[s.name][wl.name]
			byStep := map[string][]time.Duration{}
			var order []string
			for _, x := range xs {
				for i, n := range x.Names {
					if _, ok := byStep[n]; !ok {
						order = append(order, n)
					}
					byStep[n] = append(byStep[n], x.Steps[i])
				}
			}
			var parts []string
			for _, n := range order {
				part := n + " " + ms(median(byStep[n]))
				if k := len(byStep[n]); k != len(xs) {
					part += fmt.Sprintf(" (%d calls in %d rounds)", k, len(xs))
				}
				parts = append(parts, part)
			}
			line := fmt.Sprintf("- %s, %s: %s", wl.name, s.name, strings.Join(parts, ", "))
			if len(xs) > 0 && xs[0].Bytes > 0 {
				whole := 0
				for _, x := range xs {
					if x.Whole {
						whole++
					}
				}
				line += fmt.Sprintf("; %d bytes of text, whole page in %d of %d", xs[len(xs)-1].Bytes, whole, len(xs))
			}
			fmt.Fprintln(&b, line)
		}
	}
	w.Write(b.Bytes()) //nolint:errcheck // stdout
}
