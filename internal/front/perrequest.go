package front

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/barrhawk/barrhawk/internal/rawjson"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The 2026-07-28 per-request protocol (SEP-2575) on the hot path. Such a
// client sends no initialize: each request's _meta carries its protocol
// version, capabilities and client info, and each result's _meta names the
// server. The SDK validates that _meta and records the first request's as
// the session's parameters; once it has, a tools/call whose _meta it would
// accept as it is takes the hot path, like any other. Everything else (a
// first request, a version this SDK does not serve, a missing or malformed
// field) goes to the SDK, which answers it or refuses it with its own
// errors, so that both paths refuse the same requests the same way.

// requestMeta is what the hot path reads of a per-request _meta.
type requestMeta struct {
	Version string          `json:"io.modelcontextprotocol/protocolVersion"`
	Caps    json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	Info    json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
}

// perRequestVersions are the per-request protocol versions the SDK serves.
var perRequestVersions = func() []string {
	var vs []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v >= "2026-07-28" {
			vs = append(vs, v)
		}
	}
	return vs
}()

// hotPerRequest reports whether a per-request tools/call can take the hot
// path: the session has its parameters, and its _meta is one the SDK would
// accept (a version it serves, client capabilities that read as the SDK
// reads them, client info absent or an implementation). A client sends the
// same _meta with every request: the last one accepted is kept, and a
// request with the very same bytes is not read again.
func (c *lineConn) hotPerRequest(ss *mcp.ServerSession, params json.RawMessage) bool {
	if params[0] != '{' || ss.InitializeParams() == nil {
		return false // the SDK records the first request's parameters
	}
	var raw []byte
	rawjson.Members(params, func(key, value []byte) bool {
		if string(key) == "_meta" {
			raw = value
			return false
		}
		return true
	})
	if last := c.metaOK.Load(); last != nil && bytes.Equal(*last, raw) {
		return true
	}
	if !metaAccepted(raw) {
		return false
	}
	kept := bytes.Clone(raw)
	c.metaOK.Store(&kept)
	return true
}

// metaAccepted reports whether the SDK accepts raw as a per-request _meta.
func metaAccepted(raw []byte) bool {
	var m requestMeta
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil || !slices.Contains(perRequestVersions, m.Version) {
		return false
	}
	if len(m.Caps) == 0 || m.Caps[0] != '{' {
		return false
	}
	var caps struct {
		mcp.ClientCapabilities
		Roots *mcp.RootCapabilities `json:"roots,omitempty"`
	}
	if json.Unmarshal(m.Caps, &caps) != nil {
		return false
	}
	if m.Info != nil {
		var info mcp.Implementation
		if m.Info[0] != '{' || json.Unmarshal(m.Info, &info) != nil {
			return false
		}
	}
	return true
}

// perRequestResult makes b, a result object as appendResult or json.Marshal
// wrote it, the per-request protocol's: _meta naming the server first and
// resultType "complete" last, as the SDK writes them.
func perRequestResult(b []byte, serverInfo []byte) []byte {
	out := make([]byte, 0, len(b)+len(serverInfo)+80)
	out = append(out, `{"_meta":{"io.modelcontextprotocol/serverInfo":`...)
	out = append(out, serverInfo...)
	out = append(out, '}')
	if len(b) > 2 {
		out = append(out, ',')
	}
	out = append(out, b[1:len(b)-1]...)
	return append(out, `,"resultType":"complete"}`...)
}
