// Package db holds the database tools: PostgreSQL (db_pg_*, pgx), SQLite
// (db_sqlite_*, modernc.org/sqlite) and Redis (db_redis_*, go-redis).
// Connections live in the Igor's Resources under an alias ("default" when
// none is given): db_pg_connect {alias: "prod"} makes the pool that
// db_pg_query {alias: "prod"} uses, until db_pg_disconnect or the Igor
// ends. Credentials are given per call, kept only inside the connection,
// and removed from every message (internal/redact).
package db

import (
	"context"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/redact"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jackc/pgx/v5/pgtype"
)

// Tools returns the family: PostgreSQL, SQLite, Redis.
func Tools() []tool.Tool {
	var ts []tool.Tool
	ts = append(ts, pgTools()...)
	ts = append(ts, sqliteTools()...)
	return append(ts, redisTools()...)
}

// Bounds of a query's result.
const (
	defaultMaxRows = 1000
	maxMaxRows     = 100_000
	// connectTimeout bounds connecting and the first ping.
	connectTimeout = 10 * time.Second
)

// def fills the fields every database tool shares.
func def(name, group, desc string, sideEffects bool, input *jsonschema.Schema) tool.Def {
	d := tool.Def{Name: name, Description: desc, Group: group, Category: tool.CategoryDatabase, Input: input, RequiresWorker: true}
	if sideEffects {
		d.Retries = -1
	}
	return d
}

// aliasArg is the optional alias argument.
func aliasArg(what string) schema.Prop {
	return schema.String("alias", "Name of the "+what+" connection (several can be open at once)").Default("default")
}

// aliasOf returns the alias given, or "default".
func aliasOf(a string) string {
	if a == "" {
		return "default"
	}
	return a
}

// conn is an open connection of some kind with the redactor of the
// credentials it was opened with.
type conn[T any] struct {
	c     T
	red   *redact.Redactor
	label string // where it goes, without credentials (for messages)
}

// lookup returns the open connection of kind under alias, or NOT_FOUND
// listing the open ones and how to open one.
func lookup[T any](call *tool.Call, kind, alias, connectTool string) (*conn[T], error) {
	if err := call.NeedResources("database tools"); err != nil {
		return nil, err
	}
	alias = aliasOf(alias)
	if c, ok := tool.Lookup[*conn[T]](call.Resources, kind, alias); ok {
		return c, nil
	}
	open := call.Resources.Keys(kind)
	if len(open) == 0 {
		return nil, tool.Errorf(tool.CodeNotFound, "no connection %q: none is open; call %s first (with alias %q to use this name); connections live in a worker process, and one that was replaced (after a crash or its memory limit) took them with it", alias, connectTool, alias)
	}
	return nil, tool.Errorf(tool.CodeNotFound, "no connection %q; open: %s (or call %s with alias %q)", alias, strings.Join(open, ", "), connectTool, alias)
}

// disconnect closes the connection of kind under alias.
func disconnect(call *tool.Call, kind, alias, connectTool string) (any, error) {
	alias = aliasOf(alias)
	if err := call.NeedResources("database tools"); err != nil {
		return nil, err
	}
	ok, err := call.Resources.Close(kind, alias)
	if !ok {
		open := call.Resources.Keys(kind)
		if len(open) == 0 {
			return nil, tool.Errorf(tool.CodeNotFound, "no connection %q to close: none is open (%s opens one)", alias, connectTool)
		}
		return nil, tool.Errorf(tool.CodeNotFound, "no connection %q to close; open: %s", alias, strings.Join(open, ", "))
	}
	if err != nil {
		return map[string]any{"alias": alias, "closed": true, "note": "closing reported: " + err.Error()}, nil
	}
	return map[string]any{"alias": alias, "closed": true}, nil
}

// connError is CONNECTION_FAILED for a server that cannot be reached, with
// the credentials removed and a hint by cause.
func connError(red *redact.Redactor, label string, err error) error {
	msg := dedupLines(red.String(err.Error()))
	hint := ""
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		hint = "; the server did not answer in time (is the host reachable, the port right?)"
	case strings.Contains(msg, "connection refused"):
		hint = "; nothing listens there: is the server running, the port right?"
	case strings.Contains(msg, "HTTP/1.") || strings.Contains(msg, "invalid body length") || strings.Contains(msg, "can't parse"):
		// A reply of another protocol (a web server, a proxy) read as this one.
		hint = "; what answers there does not speak this database's protocol (an HTTP server or proxy, say): is the host and port right?"
	case strings.Contains(msg, "server refused TLS"):
		hint = "; the server does not offer TLS: use sslmode disable or prefer, or enable ssl on the server"
	case strings.Contains(msg, "password authentication failed") || strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "NOAUTH"):
		hint = "; check the user and password"
	}
	return tool.Errorf(tool.CodeConnectionFailed, "%s: %s%s", label, msg, hint)
}

// dedupLines drops repeated lines from a message: pgx reports each try of
// a connection on a line of its own, and with sslmode prefer (the default)
// it tries twice, with TLS and without, for the same refusal.
func dedupLines(msg string) string {
	lines := strings.Split(msg, "\n")
	seen := make(map[string]bool, len(lines))
	out := lines[:0]
	for _, l := range lines {
		if seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
	}
	if len(out) == 2 && strings.HasSuffix(out[0], ":") {
		// One try left: on one line, as pgx writes a single one.
		return out[0] + " " + strings.TrimSpace(out[1])
	}
	return strings.Join(out, "\n")
}

// lostError adds to a connection failure of an open alias that the alias
// stays: its pool reconnects by itself once the server answers again.
func lostError(err error) error {
	e := tool.AsError(err)
	e.Message += " (the connection stays open under its alias and reconnects by itself once the server is back; no need to connect again)"
	return e
}

// jsonValue turns a value read from a database into one JSON shows
// faithfully: times as RFC 3339, bytes as text when they are UTF-8 (else
// base64), numbers beyond float64's exact range as strings.
func jsonValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int32, int16, int8, uint8, uint16, uint32, float32:
		return x
	case int64:
		if x > 1<<53 || x < -(1<<53) {
			return fmt.Sprint(x) // exact, where a float64 would round
		}
		return x
	case int:
		return jsonValue(int64(x))
	case uint64:
		if x > 1<<53 {
			return fmt.Sprint(x)
		}
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
		return x
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case []byte:
		if utf8.Valid(x) {
			return string(x)
		}
		return base64.StdEncoding.EncodeToString(x)
	case [16]byte: // uuid
		return fmt.Sprintf("%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case json.Marshaler:
		if b, err := x.MarshalJSON(); err == nil && json.Valid(b) {
			return json.RawMessage(b)
		}
	case driver.Valuer: // pgtype's interval, ranges, ...: their SQL text
		if v, err := x.Value(); err == nil {
			if _, again := v.(driver.Valuer); !again {
				return jsonValue(v)
			}
		}
	case fmt.Stringer:
		return x.String()
	case pgRange:
		return rangeText(x)
	case pgtype.Multirange[pgtype.Range[any]]:
		parts := make([]string, len(x))
		for i, r := range x {
			parts[i] = rangeText(r)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	if b, err := json.Marshal(v); err == nil {
		return json.RawMessage(b)
	}
	return fmt.Sprint(v)
}

// pgRange is a PostgreSQL range as pgx reads it (pgtype.Range of any
// element type).
type pgRange interface {
	IsNull() bool
	BoundTypes() (lower, upper pgtype.BoundType)
	Bounds() (lower, upper any)
}

// rangeText writes a range as PostgreSQL does: [1,5), (,10], empty.
func rangeText(r pgRange) string {
	if r.IsNull() {
		return ""
	}
	lt, ut := r.BoundTypes()
	if lt == pgtype.Empty || ut == pgtype.Empty {
		return "empty"
	}
	lo, hi := r.Bounds()
	bound := func(t pgtype.BoundType, v any) string {
		if t == pgtype.Unbounded {
			return ""
		}
		switch x := jsonValue(v).(type) {
		case json.RawMessage:
			var str string
			if json.Unmarshal(x, &str) == nil {
				return str // a date's "2024-01-01T00:00:00Z"
			}
			return string(x)
		case string:
			return x
		default:
			return fmt.Sprint(x)
		}
	}
	open, closing := "(", ")"
	if lt == pgtype.Inclusive {
		open = "["
	}
	if ut == pgtype.Inclusive {
		closing = "]"
	}
	return open + bound(lt, lo) + "," + bound(ut, hi) + closing
}

// columnNames makes result column names unique ("?column?", "id", "id_2"),
// so that no value is lost when rows become objects.
func columnNames(names []string) []string {
	seen := map[string]int{}
	out := make([]string, len(names))
	for i, n := range names {
		seen[n]++
		if seen[n] == 1 {
			out[i] = n
			continue
		}
		out[i] = fmt.Sprintf("%s_%d", n, seen[n])
	}
	return out
}

// params decodes the params argument, a JSON array of values: integral
// numbers become integers, arrays stay arrays (of such values), objects go
// as JSON text.
func params(raw []any) []any {
	out := make([]any, len(raw))
	for i, p := range raw {
		out[i] = param(p, true)
	}
	return out
}

// jsonParams is params with arrays as JSON text too.
func jsonParams(raw []any) []any {
	out := make([]any, len(raw))
	for i, p := range raw {
		out[i] = param(p, false)
	}
	return out
}

func param(p any, arrays bool) any {
	switch x := p.(type) {
	case []any:
		if arrays {
			return element(x)
		}
		b, _ := json.Marshal(x)
		return string(b)
	case map[string]any:
		b, _ := json.Marshal(x) // objects go as JSON text
		return string(b)
	}
	return element(p)
}

// element is a value inside an array parameter: integral numbers become
// integers, the rest stays as decoded (objects too: a json array takes
// them as they are).
func element(p any) any {
	switch x := p.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = element(e)
		}
		return out
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	}
	return p
}

// maxRowsOf applies the default.
func maxRowsOf(n int) int {
	if n <= 0 {
		return defaultMaxRows
	}
	return n
}

// cutNote says that a result was cut at n rows.
func cutNote(n int) string {
	return fmt.Sprintf("the result was cut at %d rows (maxRows); add a LIMIT or WHERE, or raise maxRows up to %d", n, maxMaxRows)
}

// maxResultBytes bounds the rows of one result by their JSON size (about):
// past it they are cut like past maxRows. It is tools.maxResultHardBytes's
// default, the most one answer can carry, so reading further would only
// cost the worker memory (100,000 rows of 2 KB text once took it past its
// memory limit, and its connections with it).
const maxResultBytes = 16 << 20

// rowSize is about the size of a row's JSON.
func rowSize(row map[string]any) int {
	n := 2
	for k, v := range row {
		n += len(k) + 4 + valueSize(v)
	}
	return n
}

func valueSize(v any) int {
	switch x := v.(type) {
	case nil, bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64:
		return 8
	case string:
		return len(x) + 2
	case json.RawMessage:
		return len(x)
	case []any:
		n := 2
		for _, e := range x {
			n += valueSize(e) + 1
		}
		return n
	case map[string]any:
		return rowSize(x)
	}
	b, _ := json.Marshal(v)
	return len(b)
}

// cutBytesNote says that a result was cut at n rows because of their size.
func cutBytesNote(n int) string {
	return fmt.Sprintf("the result was cut at %d rows: they reached %d MiB, the most one answer carries; select fewer or narrower columns, or add a LIMIT", n, maxResultBytes>>20)
}

// splitHostPort splits an address, defaulting the port to 6379.
func splitHostPort(addr string) (host, port string, err error) {
	host, port, err = net.SplitHostPort(addr)
	if err != nil {
		return addr, "6379", err
	}
	return host, port, nil
}

func splitLines(s string) []string { return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") }

func cutPrefix(s, prefix string) (string, bool) { return strings.CutPrefix(s, prefix) }
