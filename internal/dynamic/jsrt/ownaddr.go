package jsrt

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// A dynamic tool with the network permission may reach any address but
// the server's own: its MCP endpoint and admin API would let it create a
// tool with more permissions than its own. The check runs on the address
// being connected to, after name resolution and on every redirect, so
// "localhost", another loopback address, 0.0.0.0 or a DNS name pointing
// back all count; a request to one of the server's ports bypasses any
// proxy (HTTP_PROXY), which would otherwise connect on the tool's behalf.

// ownAddrs are the front's listen addresses (Options.OwnAddrs, parsed).
type ownAddrs []netip.AddrPort

type ownAddrsKey struct{}

func parseOwnAddrs(addrs []string) (ownAddrs, error) {
	var out ownAddrs
	for _, a := range addrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			return nil, fmt.Errorf("own address %q: %w", a, err)
		}
		out = append(out, ap)
	}
	return out, nil
}

// refuses reports whether connecting to addr reaches one of own: the same
// port on the same address, on any loopback address, or on any address of
// this machine when own listens on all of them.
func (own ownAddrs) refuses(addr string) bool {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, o := range own {
		if o.Port() != ap.Port() {
			continue
		}
		oip := o.Addr().Unmap()
		if ip == oip || ip.IsLoopback() || ip.IsUnspecified() || oip.IsUnspecified() && isLocal(ip) {
			return true
		}
	}
	return false
}

var (
	localOnce sync.Once
	localIPs  map[netip.Addr]bool
)

// isLocal reports whether ip is an address of one of this machine's
// interfaces.
func isLocal(ip netip.Addr) bool {
	localOnce.Do(func() {
		localIPs = map[netip.Addr]bool{}
		addrs, _ := net.InterfaceAddrs()
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				localIPs[p.Addr().Unmap()] = true
			}
		}
	})
	return localIPs[ip]
}

// dialGuarded is the fetch transport's dialer: it refuses the server's own
// addresses carried by the request's context.
func dialGuarded(ctx context.Context, network, addr string) (net.Conn, error) {
	own, _ := ctx.Value(ownAddrsKey{}).(ownAddrs)
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if len(own) > 0 {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			if own.refuses(address) {
				return fmt.Errorf("refused: %s is this BarrHawk server's own MCP or admin address; a tool may not call the server that runs it", address)
			}
			return nil
		}
	}
	return d.DialContext(ctx, network, addr)
}

// hasPort reports whether one of own listens on port.
func (own ownAddrs) hasPort(port uint16) bool {
	for _, o := range own {
		if o.Port() == port {
			return true
		}
	}
	return false
}

// proxyGuarded is the fetch transport's proxy choice: the environment's
// (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), except that a request to a port the
// server listens on goes direct, so that dialGuarded sees the address it
// really reaches. Through a proxy the check would see only the proxy.
func proxyGuarded(r *http.Request) (*url.URL, error) {
	if own, _ := r.Context().Value(ownAddrsKey{}).(ownAddrs); len(own) > 0 && own.hasPort(urlPort(r.URL)) {
		return nil, nil
	}
	return http.ProxyFromEnvironment(r)
}

// urlPort is the port a URL connects to: its own, or its scheme's.
func urlPort(u *url.URL) uint16 {
	if p, err := strconv.ParseUint(u.Port(), 10, 16); err == nil {
		return uint16(p)
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}
