package front

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRequireToken(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := requireToken(ok, "s3cret")
	for _, c := range []struct {
		auth, why string
	}{
		{"", "no Authorization header"},
		{"Bearer wrong", "does not match"},
		{"Bearer s3cret ", "does not match"},
		{"bearer s3cret", `not "Bearer <token>"`},
		{"Basic czNjcmV0", `not "Bearer <token>"`},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusUnauthorized || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: want 401 with WWW-Authenticate: Bearer, got %d %v", c.auth, w.Code, w.Header())
			continue
		}
		var body struct {
			JSONRPC string `json:"jsonrpc"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.JSONRPC != "2.0" || body.Error.Code != -32600 ||
			!strings.Contains(body.Error.Message, c.why) || !strings.Contains(body.Error.Message, "BARRHAWK_MCP_TOKEN") {
			t.Errorf("Authorization %q: want a JSON-RPC error saying %q and naming the token, got %s (%v)", c.auth, c.why, w.Body, err)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Authorization", "Bearer s3cret")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusNoContent {
		t.Errorf("with the token: want the next handler (204), got %d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	requireToken(ok, "").ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/", nil))
	if w.Code != http.StatusNoContent {
		t.Errorf("without a configured token every request passes: got %d", w.Code)
	}
}
