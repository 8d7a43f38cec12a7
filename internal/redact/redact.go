// Package redact removes secrets from text before it leaves the process:
// known values (passwords, tokens, secrets given to a call) and the
// password parts of connection URLs and DSNs.
package redact

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "[REDACTED]"

// minLen is the shortest value redacted: shorter ones would blank out
// ordinary words and digits everywhere.
const minLen = 4

// Redactor replaces known secret values, longest first, in their plain and
// JSON-escaped forms. Safe for concurrent use; the zero value redacts
// nothing but URLs.
type Redactor struct {
	mu     sync.RWMutex
	values []string // plain and escaped forms, longest first
}

// New returns a Redactor of values.
func New(values ...string) *Redactor {
	r := &Redactor{}
	r.Add(values...)
	return r
}

// Add adds values to redact; empty and very short ones are ignored.
func (r *Redactor) Add(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range values {
		if len(v) < minLen {
			continue
		}
		r.values = append(r.values, v)
		if b, err := json.Marshal(v); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != v {
				r.values = append(r.values, esc)
			}
		}
	}
	slices.SortFunc(r.values, func(a, b string) int { return len(b) - len(a) })
	r.values = slices.Compact(r.values)
}

// String returns s with every value and every URL or DSN password masked.
func (r *Redactor) String(s string) string {
	if r != nil {
		r.mu.RLock()
		for _, v := range r.values {
			s = strings.ReplaceAll(s, v, Mask)
		}
		r.mu.RUnlock()
	}
	return URLs(s)
}

// Bytes is String for bytes.
func (r *Redactor) Bytes(b []byte) []byte { return []byte(r.String(string(b))) }

var (
	// userinfo: scheme://user:password@ — the password runs to the last @
	// before the host (greedy), so an unescaped @ in it is covered too.
	urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*:)([^\s/]*)@`)
	// key=value pairs of DSNs and query strings: password=..., pwd=...
	dsnPassword = regexp.MustCompile(`(?i)\b((?:password|passwd|pwd|pass)\s*=\s*)('[^']*'|"[^"]*"|[^\s&;]*)`)
)

// ContainsFold reports whether s holds word (lower-case ASCII) in any
// case, without making a lower-case copy of s.
func ContainsFold(s, word string) bool {
	n := len(word)
	if n == 0 {
		return true
	}
	for i := 0; i+n <= len(s); i++ {
		if s[i]|0x20 == word[0] && strings.EqualFold(s[i:i+n], word) {
			return true
		}
	}
	return false
}

// URLs masks the passwords inside URLs (postgres://u:pw@h, redis://:pw@h)
// and password=... pairs of DSNs and query strings.
func URLs(s string) string {
	if !strings.Contains(s, "@") && !ContainsFold(s, "pass") && !ContainsFold(s, "pwd") {
		return s
	}
	s = urlPassword.ReplaceAllStringFunc(s, func(m string) string {
		sub := urlPassword.FindStringSubmatch(m)
		if sub[2] == "" {
			return m
		}
		return sub[1] + Mask + "@"
	})
	return dsnPassword.ReplaceAllString(s, "${1}"+Mask)
}
