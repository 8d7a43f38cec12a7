package jsrt

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
)

func TestOwnAddrsRefuses(t *testing.T) {
	own, err := parseOwnAddrs([]string{"127.0.0.1:8765", "[::]:9000"})
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{
		"127.0.0.1:8765":          true,
		"127.0.0.2:8765":          true, // any loopback address on the port
		"[::1]:8765":              true,
		"[::ffff:127.0.0.1]:8765": true,
		"0.0.0.0:8765":            true,
		"[::]:8765":               true,
		"127.0.0.1:8766":          false, // another service on loopback
		"10.255.255.1:8765":       false, // not this machine (not one of its interfaces)
		"127.0.0.1:9000":          true,  // the [::] listener: every address of this machine
		"93.184.216.34:9000":      false,
		"not an address":          false,
	} {
		if got := own.refuses(addr); got != want {
			t.Errorf("refuses(%s) = %v, want %v", addr, got, want)
		}
	}
	if _, err := parseOwnAddrs([]string{"localhost:1"}); err == nil || !strings.Contains(err.Error(), "localhost:1") {
		t.Errorf("a host name is not a listen address: %v", err)
	}
}

// TestFetchRefusesOwnAddresses: with the server's addresses in
// Options.OwnAddrs, ctx.fetch cannot reach them under any name or through
// a redirect, while another loopback service answers.
func TestFetchRefusesOwnAddresses(t *testing.T) {
	t.Parallel()
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "the MCP endpoint") }))
	t.Cleanup(own.Close)
	other := testServer(t)
	redirect := httptest.NewServer(http.RedirectHandler(own.URL+"/", http.StatusFound))
	t.Cleanup(redirect.Close)
	m := mustLoad(t, toolSrc(`const r = await ctx.fetch(args.url); return r.status;`, "network"), Options{OwnAddrs: []string{own.Listener.Addr().String()}})

	if out := mustCall(t, m, fmt.Sprintf(`{"url":%q}`, other.URL+"/json")); out != "200" {
		t.Errorf("another loopback service: got %s", out)
	}
	_, port, err := net.SplitHostPort(own.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{
		own.URL + "/", "http://localhost:" + port + "/", "http://[::1]:" + port + "/",
		"http://0.0.0.0:" + port + "/", "http://127.1.2.3:" + port + "/", redirect.URL,
	} {
		out, err := call(t, m, fmt.Sprintf(`{"url":%q}`, u))
		wantOutcome(t, out, err, "", tool.CodeToolError, "is this BarrHawk server's own MCP or admin address")
	}
}

// TestOwnPortBypassesTheProxy: a request to one of the server's ports
// never goes through a proxy, which would reach the server for the tool.
func TestOwnPortBypassesTheProxy(t *testing.T) {
	own, err := parseOwnAddrs([]string{"127.0.0.1:8765"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), ownAddrsKey{}, own)
	for _, raw := range []string{"http://localhost:8765/", "https://proxied.example:8765/x"} {
		r, _ := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
		if p, err := proxyGuarded(r); p != nil || err != nil {
			t.Errorf("%s: want no proxy, got %v %v", raw, p, err)
		}
	}
	for raw, want := range map[string]uint16{"http://a/": 80, "https://a/": 443, "http://a:81/": 81} {
		u, _ := url.Parse(raw)
		if got := urlPort(u); got != want {
			t.Errorf("urlPort(%s) = %d, want %d", raw, got, want)
		}
	}
}
