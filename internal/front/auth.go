package front

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireToken refuses, with 401 and a JSON-RPC error body, every request
// that does not carry "Authorization: Bearer <token>". An empty token lets
// every request through. Over stdio there is nothing to check: the client
// started the server.
func requireToken(next http.Handler, token string) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) == 1 {
			next.ServeHTTP(w, r)
			return
		}
		why := "no Authorization header"
		if len(got) > 0 {
			why = "the bearer token does not match"
			if !strings.HasPrefix(string(got), "Bearer ") {
				why = `the Authorization header is not "Bearer <token>"`
			}
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="barrhawk"`)
		writeRPCError(w, http.StatusUnauthorized, invalidRequest(nil, "unauthorized: %s; send Authorization: Bearer <mcp.token> (env BARRHAWK_MCP_TOKEN)", why))
	})
}
