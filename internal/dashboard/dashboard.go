// Package dashboard serves BarrHawk's web UI (barrhawk serve --dashboard):
// the Igors, the calls, the tools, the jobs and the test runs, live over
// Server-Sent Events from the front's event bus and the record.
//
// The page and its script are embedded (static/), with no build step. The
// dashboard listens on loopback unless forced, and every request needs the
// token: the URL printed at start carries it once (?token=...), and the
// answer sets it as an HttpOnly, SameSite=Strict cookie, so the page's own
// requests carry it and no other site's can. A request that changes state
// (POST) must also come from the dashboard's own origin.
package dashboard

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/loopback"
	"github.com/barrhawk/barrhawk/internal/record"
)

//go:embed static
var static embed.FS

// AllowRemoteFlag is the serve flag that lets the dashboard listen on a
// non-loopback address.
const AllowRemoteFlag = "--dashboard-allow-remote"

// cookieName holds the token in the browser.
const cookieName = "barrhawk_dashboard"

// Options are what the dashboard shows.
type Options struct {
	Doctor   *doctor.Doctor
	Recorder *record.Recorder
	// Jobs follows the queue; nil shows no jobs.
	Jobs *JobWatch
	// EvidenceDirs are where evidence files may be served from (the
	// screenshot directory, the jobs' logs); a report's own directory is
	// added for its run.
	EvidenceDirs []string
	// Token is required of every request.
	Token string
	Log   *slog.Logger
}

// Server is the dashboard.
type Server struct {
	o         Options
	tokenHash [sha256.Size]byte
	mux       *http.ServeMux
	hub       *hub
}

// New returns the dashboard for o. It refuses an empty token.
func New(o Options) (*Server, error) {
	if o.Doctor == nil || o.Recorder == nil {
		return nil, errors.New("dashboard: needs the Doctor and the record")
	}
	if o.Token == "" || strings.IndexFunc(o.Token, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return nil, errors.New("dashboard: the token is empty or holds whitespace; the dashboard can roll back tools, so it is never served without one")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{o: o, tokenHash: sha256.Sum256([]byte(o.Token)), mux: http.NewServeMux(), hub: newHub()}
	s.hub.follow(o.Doctor, o.Recorder, o.Jobs)
	sub, err := fs.Sub(static, "static")
	if err != nil {
		return nil, fmt.Errorf("dashboard: the embedded page: %w", err)
	}
	files := http.FileServerFS(sub)
	s.mux.Handle("GET /", noCache(files))
	s.routes()
	return s, nil
}

// Serve listens on addr (loopback unless allowRemote) and serves the
// dashboard until ctx ends; see [loopback.Serve].
func (s *Server) Serve(ctx context.Context, addr string, allowRemote bool) (net.Addr, <-chan error, error) {
	return loopback.Serve(ctx, "dashboard address", addr, allowRemote, AllowRemoteFlag, s)
}

// URL is the address that opens the dashboard at addr, token included.
func URL(addr net.Addr, token string) string {
	return "http://" + addr.String() + "/?token=" + token
}

// ServeHTTP checks the token (and, for a POST, the origin), then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet {
		if !s.valid(tok) {
			refuse(w, "the token in this URL is not this dashboard's: open the URL BarrHawk printed on stderr when it started")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q := r.URL.Query()
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	if !s.authorized(r) {
		refuse(w, "this dashboard needs its token: open the URL BarrHawk printed on stderr when it started (it ends in ?token=...), or send Authorization: Bearer <token>")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if why := sameOrigin(r); why != "" {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": why})
			return
		}
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
	s.mux.ServeHTTP(w, r)
}

func (s *Server) valid(tok string) bool {
	got := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(got[:], s.tokenHash[:]) == 1
}

// authorized: the cookie, or a bearer token.
func (s *Server) authorized(r *http.Request) bool {
	if c, err := r.Cookie(cookieName); err == nil && s.valid(c.Value) {
		return true
	}
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	return strings.EqualFold(scheme, "Bearer") && s.valid(strings.TrimSpace(tok))
}

// sameOrigin says why a state-changing request is refused, or "": it must
// name its origin (Origin, or Sec-Fetch-Site from a browser), and that must
// be the dashboard's own.
func sameOrigin(r *http.Request) string {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return fmt.Sprintf("refused: this request came from another site (Sec-Fetch-Site: %s); the dashboard changes state only for its own page", site)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if r.Header.Get("Sec-Fetch-Site") == "same-origin" {
			return ""
		}
		return "refused: a request that changes state must carry an Origin header naming the dashboard (browsers send it; from a script, send Origin: http://" + r.Host + ")"
	}
	if origin != "http://"+r.Host {
		return fmt.Sprintf("refused: the request's origin %s is not the dashboard's (http://%s)", origin, r.Host)
	}
	return ""
}

func refuse(w http.ResponseWriter, why string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="barrhawk-dashboard"`)
	writeJSON(w, http.StatusUnauthorized, map[string]string{"error": why})
}

func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // read by scripts and people, never put into HTML as it is
	_ = enc.Encode(v)        // the client may be gone
}
