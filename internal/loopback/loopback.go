// Package loopback checks that a listening address stays on this machine:
// BarrHawk's HTTP endpoints (MCP over HTTP, the admin API) run tools, so they
// listen on loopback unless the user forces otherwise.
package loopback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
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

// ShutdownGrace is how long [Serve] lets in-flight requests finish after its
// context ends before it closes their connections.
const ShutdownGrace = 5 * time.Second

// Serve checks addr with [Check], listens on it and serves h until ctx
// ends; then it stops accepting connections and lets in-flight requests
// finish for up to [ShutdownGrace] before closing them. It returns the bound
// address (the real port for ":0") and a channel that receives once, when the
// server has stopped (nil after a clean stop, else the error that stopped
// it), and is then closed. If it cannot listen, it returns an error and no
// server runs. what and flag are as for Check.
func Serve(ctx context.Context, what, addr string, allowRemote bool, flag string, h http.Handler) (net.Addr, <-chan error, error) {
	if err := Check(what, addr, allowRemote, flag); err != nil {
		return nil, nil, err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: listen on %s: %w", what, addr, err)
	}
	bound := ln.Addr()
	if !allowRemote {
		// "localhost" is resolved by Listen; make sure it landed on loopback.
		if ta, ok := bound.(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
			_ = ln.Close()
			return nil, nil, fmt.Errorf("%s %q resolved to %s, which is not loopback; pass %s to allow it", what, addr, bound, flag)
		}
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(slog.Default().Handler(), slog.LevelDebug),
	}
	done := make(chan error, 1)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	go func() {
		defer close(done)
		select {
		case err := <-served: // failed on its own
			if errors.Is(err, http.ErrServerClosed) {
				err = nil
			}
			done <- err
			return
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
		defer cancel()
		err := srv.Shutdown(sctx)
		if err != nil {
			_ = srv.Close()
			err = fmt.Errorf("%s: in-flight requests cut off after %s: %w", what, ShutdownGrace, err)
		}
		if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
		done <- err
	}()
	return bound, done, nil
}
