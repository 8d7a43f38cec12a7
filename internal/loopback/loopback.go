// Package loopback checks that a listening address stays on this machine:
// BarrHawk's HTTP endpoints (MCP over HTTP, the admin API) run tools, so they
// listen on loopback unless the user forces otherwise.
package loopback

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Check refuses addr unless it is host:port with a numeric port and, unless
// allowRemote, a loopback host (127.0.0.0/8, ::1 or localhost). what names
// the address in errors ("admin address"); flag is the option that forces a
// remote address.
func Check(what, addr string, allowRemote bool, flag string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: %w (want host:port, such as 127.0.0.1:8765)", what, addr, err)
	}
	if port == "" {
		return fmt.Errorf("%s %q has no port (want host:port, such as 127.0.0.1:8765, or port 0 for any free port)", what, addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("%s %q: port %q is not a number from 0 to 65535", what, addr, port)
	}
	if allowRemote || IsLoopbackHost(host) {
		return nil
	}
	problem := "is not a loopback address"
	if host == "" {
		problem = "listens on every interface"
	}
	return fmt.Errorf("%s %q %s; BarrHawk runs tools on this machine, so it listens only on 127.0.0.1, [::1] or localhost (not on loopback unless you pass %s)", what, addr, problem, flag)
}

// IsLoopbackHost reports whether host is localhost or a loopback IP.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
