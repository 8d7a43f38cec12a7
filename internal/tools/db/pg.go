package db

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/redact"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
)

const pgGroup = "PostgreSQL"

type pgConn = conn[*pgxpool.Pool]

func pgTools() []tool.Tool {
	return []tool.Tool{pgConnect(), pgQuery(), pgSchema(), pgSeed(), pgTransaction(), pgDisconnect()}
}

func pgLookup(call *tool.Call, alias string) (*pgConn, error) {
	return lookup[*pgxpool.Pool](call, tool.KindPostgres, alias, "db_pg_connect")
}

func pgConnect() tool.Tool {
	type args struct {
		ConnectionString string `json:"connectionString"`
		Host             string `json:"host"`
		Port             int    `json:"port"`
		Database         string `json:"database"`
		User             string `json:"user"`
		Password         string `json:"password"`
		SSLMode          string `json:"sslmode"`
		Alias            string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_pg_connect", pgGroup, "Connect to PostgreSQL and keep a pool under an alias for the other db_pg_* tools. "+
			"Give connectionString (postgres://user:pass@host:5432/db) or the parts. Returns {alias, server, database, user, host, port}; the password is never returned or logged.", false,
			schema.Object(
				schema.String("connectionString", "postgres://user:password@host:port/database?sslmode=... (or key=value pairs); the parts below override it"),
				schema.String("host", "Host name or IP (default localhost)"),
				schema.Integer("port", "Port (default 5432)").Min(1).Max(65535),
				schema.String("database", "Database name"),
				schema.String("user", "User name"),
				schema.String("password", "Password (kept only in the connection, never shown)"),
				schema.String("sslmode", "disable, prefer, require, verify-ca or verify-full").Enum("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
				aliasArg("PostgreSQL"),
			)).
			WithPhrases("postgres", "psql", "postgres dsn", "database url postgres", "login to postgres", "pgx pool", "sslmode", "open a postgres connection", "open a connection pool", "connect to the database"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			if err := call.NeedResources("database tools"); err != nil {
				return nil, err
			}
			alias := aliasOf(in.Alias)
			red := redact.New(in.Password)
			cs := in.ConnectionString
			if in.SSLMode != "" {
				// sslmode decides the TLS setup and the fallbacks ParseConfig
				// builds, so it goes into the string before parsing.
				cs = withSSLMode(cs, in.SSLMode)
			}
			cfg, err := pgxpool.ParseConfig(cs)
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"connectionString\": %s; write postgres://user:password@host:5432/database", red.String(err.Error()))
			}
			cc := cfg.ConnConfig
			red.Add(cc.Password)
			if in.Host != "" {
				cc.Host = in.Host
				for _, fb := range cc.Fallbacks {
					fb.Host = in.Host
				}
				if cc.TLSConfig != nil && cc.TLSConfig.ServerName != "" {
					cc.TLSConfig.ServerName = in.Host
				}
				for _, fb := range cc.Fallbacks {
					if fb.TLSConfig != nil && fb.TLSConfig.ServerName != "" {
						fb.TLSConfig.ServerName = in.Host
					}
				}
			}
			if in.Port != 0 {
				cc.Port = uint16(in.Port)
				for _, fb := range cc.Fallbacks {
					fb.Port = uint16(in.Port)
				}
			}
			if in.Database != "" {
				cc.Database = in.Database
			}
			if in.User != "" {
				cc.User = in.User
			}
			if in.Password != "" {
				cc.Password = in.Password
			}
			if cc.ConnectTimeout <= 0 || cc.ConnectTimeout > connectTimeout {
				cc.ConnectTimeout = connectTimeout // connect_timeout in the string may shorten it
			}
			// A cancelled call (its timeout, a cut result) cancels the
			// statement on the server, and the connection stays usable.
			cc.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
				return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 2 * time.Second}
			}
			cfg.MaxConns = 8
			label := fmt.Sprintf("PostgreSQL %s@%s:%d/%s", cc.User, cc.Host, cc.Port, cc.Database)
			cctx, cancel := context.WithTimeout(ctx, cc.ConnectTimeout)
			defer cancel()
			pool, err := pgxpool.NewWithConfig(cctx, cfg)
			if err != nil {
				return nil, connError(red, label, err)
			}
			var version string
			if err := pool.QueryRow(cctx, "SHOW server_version").Scan(&version); err != nil {
				pool.Close()
				return nil, connError(red, label, err)
			}
			_, replaced := call.Resources.Get(tool.KindPostgres, alias)
			call.Resources.Put(tool.KindPostgres, alias, &pgConn{c: pool, red: red, label: label}, func() error { pool.Close(); return nil })
			out := map[string]any{"alias": alias, "server": "PostgreSQL " + version, "database": cc.Database, "user": cc.User, "host": cc.Host, "port": cc.Port}
			if replaced {
				out["replaced"] = true // the alias's earlier connection was closed
			}
			return out, nil
		}),
	}
}

// withSSLMode sets sslmode in a connection string of either form (URL or
// key=value pairs; empty is key=value), replacing one it has.
func withSSLMode(cs, mode string) string {
	if strings.HasPrefix(cs, "postgres://") || strings.HasPrefix(cs, "postgresql://") {
		if u, err := url.Parse(cs); err == nil {
			q := u.Query()
			q.Set("sslmode", mode)
			u.RawQuery = q.Encode()
			return u.String()
		}
		return cs // ParseConfig reports what is wrong with it
	}
	return strings.TrimSpace(cs + " sslmode=" + mode) // the last one wins
}

// pgErr explains an error of a statement: the server's code and message,
// and for one with a position, the line, column and the text there.
func pgErr(c *pgConn, query string, err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")) {
		// Connection exceptions, and the server shutting down or restarting
		// (admin_shutdown, crash_shutdown, cannot_connect_now).
		return lostError(connError(c.red, c.label, err))
	}
	if errors.As(err, &pe) {
		msg := fmt.Sprintf("%s (SQLSTATE %s)", pe.Message, pe.Code)
		if pe.Detail != "" {
			msg += "; " + pe.Detail
		}
		if pe.Hint != "" {
			msg += "; hint: " + pe.Hint
		}
		if pe.Code == "22P02" && pe.Position == 0 && strings.Contains(pe.Message, "type json") {
			msg += "; a string given for a json or jsonb value is taken as JSON text: for a JSON string, give it quoted (\"\\\"hello\\\"\"), or give the value itself (an object, array, number)"
		}
		if pe.Code == "42601" && strings.Contains(pe.Message, "multiple commands") {
			// Parameters make every statement a prepared one, which is one command.
			msg += "; a call runs one statement: give each its own db_pg_query, or list them as the queries of db_pg_transaction"
		}
		if pe.Position > 0 {
			msg += "\n" + caret(query, int(pe.Position))
		}
		return tool.Errorf(tool.CodeQueryError, "%s", c.red.String(msg))
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err // the Igor reports the timeout or the cancellation
	}
	if pgconn.Timeout(err) || isConnErr(err) {
		return lostError(connError(c.red, c.label, err))
	}
	return tool.Errorf(tool.CodeQueryError, "%s", c.red.String(err.Error()))
}

// pgRun runs query with raw, the params argument, through query (a pool's
// or a transaction's Query). Arrays go as arrays (for int[], text[], or
// json), objects as JSON text; an array that cannot be sent as one (for a
// text parameter) goes as JSON text instead. A count of parameters that
// does not match the statement's is INVALID_ARGS saying so.
func pgRun(ctx context.Context, query func(context.Context, string, ...any) (pgx.Rows, error), sql string, raw []any) (pgx.Rows, error) {
	args := params(raw)
	rows, err := query(ctx, sql, args...)
	for tries := 0; err != nil && tries < len(args); tries++ {
		// pgx encodes before it sends anything: "failed to encode args[i]".
		var i int
		at := strings.Index(err.Error(), "failed to encode args[")
		if at < 0 {
			break
		}
		if n, _ := fmt.Sscanf(err.Error()[at:], "failed to encode args[%d]", &i); n != 1 || i < 0 || i >= len(args) {
			break
		}
		if _, isArray := args[i].([]any); !isArray {
			break
		}
		args[i] = param(raw[i], false)
		rows, err = query(ctx, sql, args...)
	}
	if err != nil {
		var want, got int
		if n, _ := fmt.Sscanf(err.Error(), "expected %d arguments, got %d", &want, &got); n == 2 {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"params\": the statement has %d parameter(s) ($1...$%d) and params gives %d value(s); give one value per parameter", want, want, got)
		}
	}
	return rows, err
}

// isConnErr reports a lost or refused connection (not an SQL error).
func isConnErr(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	s := err.Error()
	for _, w := range []string{"connection refused", "broken pipe", "connection reset", "unexpected EOF", "conn closed", "failed to connect", "terminating connection"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// caret shows where a 1-based character position falls in query: "at line
// L, column C:", the line, and a caret under the column.
func caret(query string, pos int) string {
	runes := []rune(query)
	if pos > len(runes)+1 {
		pos = len(runes) + 1
	}
	line, col, start := 1, 1, 0
	for i := 0; i < pos-1 && i < len(runes); i++ {
		if runes[i] == '\n' {
			line, col, start = line+1, 1, i+1
			continue
		}
		col++
	}
	end := start
	for end < len(runes) && runes[end] != '\n' {
		end++
	}
	text := string(runes[start:end])
	return fmt.Sprintf("at line %d, column %d:\n  %s\n  %s^", line, col, text, strings.Repeat(" ", col-1))
}

// nameTypes names the column types pgx does not know (enums, domains,
// composite types, void, ...), shown as "oid N" until then, by asking the
// server; if it cannot, they stay so. Such a type's values came as
// PostgreSQL's text; an array of one (mood[]) is made a JSON array of its
// elements' text.
func nameTypes(ctx context.Context, c *pgConn, res map[string]any) {
	cols, _ := res["columns"].([]map[string]any)
	var oids []uint32
	for _, col := range cols {
		if t, _ := col["type"].(string); strings.HasPrefix(t, "oid ") {
			if n, err := strconv.ParseUint(strings.TrimPrefix(t, "oid "), 10, 32); err == nil {
				oids = append(oids, uint32(n))
			}
		}
	}
	if len(oids) == 0 {
		return
	}
	rows, err := c.c.Query(ctx, "SELECT oid, format_type(oid, NULL), typcategory = 'A' FROM pg_type WHERE oid = ANY($1)", oids)
	if err != nil {
		return
	}
	type pgType struct {
		name    string
		isArray bool
	}
	types := map[string]pgType{}
	for rows.Next() {
		var oid uint32
		var t pgType
		if rows.Scan(&oid, &t.name, &t.isArray) == nil {
			types["oid "+strconv.FormatUint(uint64(oid), 10)] = t
		}
	}
	rows.Close()
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i], _ = col["name"].(string)
	}
	keys := columnNames(names)
	data, _ := res["rows"].([]map[string]any)
	for i, col := range cols {
		t, ok := types[col["type"].(string)]
		if !ok {
			continue
		}
		col["type"] = t.name
		if !t.isArray {
			continue
		}
		for _, row := range data {
			if text, ok := row[keys[i]].(string); ok {
				if arr, err := parseArray(text); err == nil {
					row[keys[i]] = arr
				}
			}
		}
	}
}

// parseArray reads PostgreSQL's text form of an array ({a,"b c",NULL},
// {{1,2},{3,4}}, [0:1]={a,b}) into nested lists of its elements' text,
// NULL as nil.
func parseArray(s string) (any, error) {
	if i := strings.Index(s, "={"); i >= 0 && strings.HasPrefix(s, "[") {
		s = s[i+1:] // dimension decoration
	}
	v, rest, err := arrayAt(s)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, fmt.Errorf("array %q: text after its end", s)
	}
	return v, nil
}

func arrayAt(s string) (any, string, error) {
	if !strings.HasPrefix(s, "{") {
		return nil, s, fmt.Errorf("array: want {, got %q", s)
	}
	s = s[1:]
	out := []any{}
	if strings.HasPrefix(s, "}") {
		return out, s[1:], nil
	}
	for {
		var elem any
		switch {
		case strings.HasPrefix(s, "{"):
			v, rest, err := arrayAt(s)
			if err != nil {
				return nil, s, err
			}
			elem, s = v, rest
		case strings.HasPrefix(s, `"`):
			var b strings.Builder
			i := 1
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, s, fmt.Errorf("array: a quoted element does not end")
			}
			elem, s = b.String(), s[i+1:]
		default:
			end := strings.IndexAny(s, ",}")
			if end < 0 {
				return nil, s, fmt.Errorf("array: an element does not end")
			}
			if text := strings.TrimSpace(s[:end]); !strings.EqualFold(text, "NULL") {
				elem = text
			}
			s = s[end:]
		}
		out = append(out, elem)
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case strings.HasPrefix(s, "}"):
			return out, s[1:], nil
		default:
			return nil, s, fmt.Errorf("array: want , or }, got %q", s)
		}
	}
}

// pgResult reads rows into the result form every tool shares. When the
// rows run past maxRows and stop is not nil, stop is called to cancel the
// statement on the server, so that the rest is neither produced nor read
// (closing the rows otherwise reads every remaining row, which for a
// statement of millions takes seconds).
func pgResult(rows pgx.Rows, maxRows int, stop func()) (map[string]any, error) {
	defer rows.Close()
	fds := rows.FieldDescriptions()
	names := make([]string, len(fds))
	cols := make([]map[string]any, len(fds))
	tm := rows.Conn().TypeMap()
	for i, fd := range fds {
		names[i] = fd.Name
		typ := "oid " + strconv.FormatUint(uint64(fd.DataTypeOID), 10)
		if t, ok := tm.TypeForOID(fd.DataTypeOID); ok {
			typ = t.Name
			if elem, isArray := strings.CutPrefix(typ, "_"); isArray {
				typ = elem + "[]" // pgx names arrays as the catalog does (_text); SQL writes text[]
			}
		}
		cols[i] = map[string]any{"name": fd.Name, "type": typ}
	}
	names = columnNames(names)
	out := []map[string]any{}
	truncated, note, size := false, "", 0
	for rows.Next() {
		if len(out) == maxRows {
			truncated, note = true, cutNote(maxRows)
			if stop != nil {
				stop()
			}
			break
		}
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		row := make(map[string]any, len(vals))
		for i, v := range vals {
			row[names[i]] = jsonValue(v)
		}
		if size += rowSize(row); size > maxResultBytes {
			truncated, note = true, cutBytesNote(len(out))
			if stop != nil {
				stop()
			}
			break
		}
		out = append(out, row)
	}
	rows.Close()
	stopped := truncated && stop != nil
	if err := rows.Err(); err != nil && !stopped {
		return nil, err
	}
	tag := rows.CommandTag()
	res := map[string]any{"commandTag": tag.String(), "rowsAffected": tag.RowsAffected()}
	if stopped {
		res = map[string]any{} // the statement was cancelled: the server sent no tag
	}
	if len(fds) > 0 {
		res["columns"], res["rows"], res["rowCount"] = cols, out, len(out)
	}
	if truncated {
		res["truncated"], res["note"] = true, note
		if stopped {
			res["note"] = note + "; the rest was not read (the statement was cancelled on the server)"
		}
	}
	return res, nil
}

// leadingWords returns the first n words of a statement in upper case,
// after leading comments and parentheses (fewer when it has fewer).
func leadingWords(query string, n int) []string {
	q := strings.TrimSpace(query)
	for {
		switch {
		case strings.HasPrefix(q, "--"):
			if i := strings.IndexByte(q, '\n'); i >= 0 {
				q = strings.TrimSpace(q[i+1:])
				continue
			}
			return nil
		case strings.HasPrefix(q, "/*"):
			if i := strings.Index(q, "*/"); i >= 0 {
				q = strings.TrimSpace(q[i+2:])
				continue
			}
			return nil
		case strings.HasPrefix(q, "("):
			q = strings.TrimSpace(q[1:])
			continue
		}
		break
	}
	notLetter := func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }
	var words []string
	for len(words) < n {
		end := strings.IndexFunc(q, notLetter)
		if end < 0 {
			end = len(q)
		}
		if end == 0 {
			break
		}
		words = append(words, strings.ToUpper(q[:end]))
		q = strings.TrimLeftFunc(q[end:], func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	}
	return words
}

// readOnly reports whether a statement only reads, judged by its first
// keyword (after comments and parentheses): SELECT, VALUES, TABLE, SHOW,
// EXPLAIN, or WITH without INSERT, UPDATE, DELETE or MERGE. Only such a
// statement is cancelled when its rows run past maxRows: cancelling one
// that writes would undo its writes.
func readOnly(query string) bool {
	first := ""
	if w := leadingWords(query, 1); len(w) == 1 {
		first = w[0]
	}
	up := strings.ToUpper(query)
	switch first {
	case "SELECT", "VALUES", "TABLE", "SHOW", "EXPLAIN":
		return !strings.Contains(up, "INTO")
	case "WITH":
		for _, w := range []string{"INSERT", "UPDATE", "DELETE", "MERGE", "INTO"} {
			if strings.Contains(up, w) {
				return false
			}
		}
		return true
	}
	return false
}

// txControl names the transaction control a statement does (BEGIN, COMMIT,
// ROLLBACK, ...), or is "" when it does none. Inside db_pg_transaction
// such a statement would end (or nest) the transaction the tool holds, and
// "all or nothing" would no longer be true. ROLLBACK TO SAVEPOINT, which
// stays inside the transaction, is not one.
func txControl(query string) string {
	w := leadingWords(query, 3)
	if len(w) == 0 {
		return ""
	}
	second, third := "", ""
	if len(w) > 1 {
		second = w[1]
	}
	if len(w) > 2 {
		third = w[2]
	}
	switch w[0] {
	case "BEGIN", "COMMIT", "END", "ABORT":
		return w[0]
	case "START":
		if second == "TRANSACTION" {
			return "START TRANSACTION"
		}
	case "ROLLBACK":
		if second != "TO" && !((second == "WORK" || second == "TRANSACTION") && third == "TO") {
			return "ROLLBACK"
		}
	case "PREPARE":
		if second == "TRANSACTION" {
			return "PREPARE TRANSACTION"
		}
	}
	return ""
}

func pgQuery() tool.Tool {
	type args struct {
		Query   string `json:"query"`
		Params  []any  `json:"params"`
		MaxRows int    `json:"maxRows"`
		Alias   string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_pg_query", pgGroup, "Run one SQL statement with $1, $2... parameters. Returns {columns: [{name, type}], rows (objects by column), rowCount, commandTag, rowsAffected}; "+
			"rows past maxRows are cut with a note. SQL errors answer QUERY_ERROR with the line and column.", true,
			schema.Object(
				schema.String("query", "The SQL statement").Required().Min(1),
				schema.Array("params", "Values for $1, $2, ... (objects and arrays are sent as JSON)", nil),
				schema.Integer("maxRows", "Most rows returned").Default(defaultMaxRows).Min(1).Max(maxMaxRows),
				aliasArg("PostgreSQL"),
			)).
			WithPhrases("run sql postgres", "psql query", "select from postgres", "postgres insert update delete", "parameterized query", "execute sql statement", "query postgres table", "check row exists in table", "count rows in postgres", "how many rows are in a status"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := pgLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			qctx, cancel := context.WithCancel(ctx)
			defer cancel()
			rows, err := pgRun(qctx, c.c.Query, in.Query, in.Params)
			if err != nil {
				return nil, pgErr(c, in.Query, err)
			}
			var stop func()
			if readOnly(in.Query) {
				stop = cancel
			}
			res, err := pgResult(rows, maxRowsOf(in.MaxRows), stop)
			if err != nil {
				return nil, pgErr(c, in.Query, err)
			}
			nameTypes(ctx, c, res)
			return res, nil
		}),
	}
}

func pgTransaction() tool.Tool {
	type statement struct {
		Query  string `json:"query"`
		Params []any  `json:"params"`
	}
	type args struct {
		Queries []statement `json:"queries"`
		Alias   string      `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_pg_transaction", pgGroup, "Run statements in one transaction, all or nothing: if one fails, all are rolled back and the error names it (index and SQL). "+
			"Returns {committed, results: [{commandTag, rowsAffected, rows?}]}.", true,
			schema.Object(
				schema.Array("queries", "The statements, in order", schema.ObjectItems(
					schema.String("query", "SQL statement").Required().Min(1),
					schema.Array("params", "Values for $1, $2, ...", nil),
				)).Required().Min(1),
				aliasArg("PostgreSQL"),
			)).
			WithPhrases("begin commit", "rollback on error", "atomic migration", "several sql statements", "postgres batch", "multi-statement sql", "apply a migration", "ddl in one transaction", "all or nothing sql", "atomically", "if one statement fails undo them all"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := pgLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			for i, st := range in.Queries {
				if ctl := txControl(st.Query); ctl != "" {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"queries\": statement %d of %d is %s, which would end or nest the transaction db_pg_transaction holds "+
						"(it begins, commits and rolls back by itself); leave out BEGIN, COMMIT and ROLLBACK (SAVEPOINT and ROLLBACK TO SAVEPOINT are fine); nothing was run",
						i+1, len(in.Queries), ctl)
				}
			}
			tx, err := c.c.Begin(ctx)
			if err != nil {
				return nil, pgErr(c, "BEGIN", err)
			}
			defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it does nothing
			results := make([]map[string]any, 0, len(in.Queries))
			for i, st := range in.Queries {
				rows, err := pgRun(ctx, tx.Query, st.Query, st.Params)
				var res map[string]any
				if err == nil {
					res, err = pgResult(rows, defaultMaxRows, nil)
				}
				if err != nil {
					e := tool.AsError(pgErr(c, st.Query, err))
					e.Message = fmt.Sprintf("statement %d of %d failed, and the transaction was rolled back (nothing was applied): %s\n  statement: %s",
						i+1, len(in.Queries), e.Message, c.red.String(st.Query))
					return nil, e
				}
				// A statement txControl did not recognise (a procedure's
				// COMMIT, say) may still have ended the transaction: the
				// server says so, and what ran before it is no longer ours
				// to roll back.
				if tx.Conn().PgConn().TxStatus() == 'I' {
					return nil, tool.Errorf(tool.CodeQueryError, "statement %d of %d ended the transaction, so statements 1 to %d may have been committed and "+
						"db_pg_transaction cannot roll them back; leave out statements that commit or roll back\n  statement: %s",
						i+1, len(in.Queries), i+1, c.red.String(st.Query))
				}
				results = append(results, res)
			}
			if err := tx.Commit(ctx); err != nil {
				return nil, pgErr(c, "COMMIT", err)
			}
			for _, res := range results {
				nameTypes(ctx, c, res)
			}
			return map[string]any{"committed": true, "results": results}, nil
		}),
	}
}

// splitTable parses "table" or "schema.table" (either part may be quoted
// with double quotes) into its parts.
func splitTable(name string) ([]string, error) {
	var parts []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(name); i++ {
		ch := name[i]
		switch {
		case ch == '"' && quoted && i+1 < len(name) && name[i+1] == '"':
			b.WriteByte('"')
			i++
		case ch == '"':
			quoted = !quoted
		case ch == '.' && !quoted:
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(ch)
		}
	}
	parts = append(parts, b.String())
	if quoted || len(parts) > 2 || slicesHasEmpty(parts) {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"table\": %q is not a table name; write table or schema.table", name)
	}
	return parts, nil
}

// sortedKeys returns a row's column names sorted, so that the columns of
// a seed come in a stable order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func slicesHasEmpty(ps []string) bool {
	for _, p := range ps {
		if p == "" {
			return true
		}
	}
	return false
}

func pgSeed() tool.Tool {
	type args struct {
		Table         string           `json:"table"`
		Data          []map[string]any `json:"data"`
		TruncateFirst bool             `json:"truncateFirst"`
		Alias         string           `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_pg_seed", pgGroup, "Insert rows into a table in one transaction (all or none), optionally emptying it first. "+
			"Table and column names are quoted as identifiers, so they cannot inject SQL. Returns {table, inserted, truncated}.", true,
			schema.Object(
				schema.String("table", "Table name, or schema.table").Required().Min(1),
				schema.Array("data", "Rows: objects of column name → value", schema.ObjectItems()).Required(),
				schema.Boolean("truncateFirst", "Empty the table first (TRUNCATE, in the same transaction)").Default(false),
				aliasArg("PostgreSQL"),
			)).
			WithPhrases("postgres fixtures", "populate table", "bulk insert rows", "load sample data into postgres", "reset table then fill", "insert json rows"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := pgLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			parts, err := splitTable(in.Table)
			if err != nil {
				return nil, err
			}
			table := pgx.Identifier(parts).Sanitize()
			// The columns, in the order they first appear.
			var cols []string
			seen := map[string]bool{}
			for _, row := range in.Data {
				for _, k := range sortedKeys(row) {
					if !seen[k] {
						seen[k] = true
						cols = append(cols, k)
					}
				}
			}
			tx, err := c.c.Begin(ctx)
			if err != nil {
				return nil, pgErr(c, "BEGIN", err)
			}
			defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it does nothing
			if in.TruncateFirst {
				q := "TRUNCATE " + table
				if _, err := tx.Exec(ctx, q); err != nil {
					return nil, pgErr(c, q, err)
				}
			}
			quoted := make([]string, len(cols))
			for i, col := range cols {
				quoted[i] = pgx.Identifier{col}.Sanitize()
			}
			batch := &pgx.Batch{}
			queries := make([]string, 0, len(in.Data))
			for _, row := range in.Data {
				var names, marks []string
				var vals []any
				for i, col := range cols {
					v, ok := row[col]
					if !ok {
						continue // the column's default
					}
					names = append(names, quoted[i])
					vals = append(vals, v)
					marks = append(marks, "$"+strconv.Itoa(len(vals)))
				}
				q := "INSERT INTO " + table + " DEFAULT VALUES"
				if len(names) > 0 {
					q = "INSERT INTO " + table + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
				}
				queries = append(queries, q)
				batch.Queue(q, params(vals)...)
			}
			br := tx.SendBatch(ctx, batch)
			for i := range queries {
				if _, err := br.Exec(); err != nil {
					br.Close()
					e := tool.AsError(pgErr(c, queries[i], err))
					e.Message = fmt.Sprintf("row %d of %d was refused, and nothing was inserted: %s", i+1, len(queries), e.Message)
					return nil, e
				}
			}
			if err := br.Close(); err != nil {
				return nil, pgErr(c, "INSERT", err)
			}
			if err := tx.Commit(ctx); err != nil {
				return nil, pgErr(c, "COMMIT", err)
			}
			if cols == nil {
				cols = []string{}
			}
			return map[string]any{"table": table, "inserted": len(in.Data), "truncated": in.TruncateFirst, "columns": cols}, nil
		}),
	}
}

func pgSchema() tool.Tool {
	type args struct {
		Table string `json:"table"`
		Alias string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_pg_schema", pgGroup, "Describe the database: without table, its tables and views {schema, name, type}; with table (or schema.table), "+
			"its columns {name, type, nullable, default}, primary key, indexes and foreign keys.", false,
			schema.Object(
				schema.String("table", "A table to describe: table or schema.table (default: list the tables)"),
				aliasArg("PostgreSQL"),
			)).
			WithPhrases("list tables postgres", "describe postgres table", "\\d table", "columns and types", "fk constraints", "information_schema", "what tables exist", "postgres primary key"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := pgLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			query := func(q string, args ...any) ([]map[string]any, error) {
				rows, err := c.c.Query(ctx, q, args...)
				if err != nil {
					return nil, pgErr(c, q, err)
				}
				res, err := pgResult(rows, maxMaxRows, nil)
				if err != nil {
					return nil, pgErr(c, q, err)
				}
				out, _ := res["rows"].([]map[string]any)
				return out, nil
			}
			const tablesQ = `SELECT table_schema AS schema, table_name AS name, lower(table_type) AS type FROM information_schema.tables
				WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`
			if in.Table == "" {
				tables, err := query(tablesQ)
				if err != nil {
					return nil, err
				}
				return map[string]any{"tables": tables, "count": len(tables)}, nil
			}
			parts, err := splitTable(in.Table)
			if err != nil {
				return nil, err
			}
			// to_regclass resolves the name as SQL would (search_path for an
			// unqualified one) without any text of ours in the statement.
			var oid *uint32
			if err := c.c.QueryRow(ctx, "SELECT to_regclass($1)::oid", pgx.Identifier(parts).Sanitize()).Scan(&oid); err != nil {
				return nil, pgErr(c, "to_regclass", err)
			}
			if oid == nil {
				tables, _ := query(tablesQ)
				names := make([]string, 0, len(tables))
				for _, t := range tables {
					names = append(names, quoteIdent(fmt.Sprint(t["schema"]))+"."+quoteIdent(fmt.Sprint(t["name"])))
				}
				return nil, tool.Errorf(tool.CodeNotFound, "no table %q; tables: %s", in.Table, listOrNone(names))
			}
			cols, err := query(`SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
				pg_get_expr(d.adbin, d.adrelid) AS "default"
				FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
				WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, *oid)
			if err != nil {
				return nil, err
			}
			pk, err := query(`SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
				WHERE i.indrelid = $1 AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`, *oid)
			if err != nil {
				return nil, err
			}
			idx, err := query(`SELECT c.relname AS name, i.indisunique AS unique, i.indisprimary AS primary, pg_get_indexdef(i.indexrelid) AS definition
				FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = $1 ORDER BY 1`, *oid)
			if err != nil {
				return nil, err
			}
			fks, err := query(`SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
				WHERE conrelid = $1 AND contype = 'f' ORDER BY 1`, *oid)
			if err != nil {
				return nil, err
			}
			keys := make([]any, len(pk))
			for i, r := range pk {
				keys[i] = r["name"]
			}
			return map[string]any{"table": pgx.Identifier(parts).Sanitize(), "columns": cols, "primaryKey": keys, "indexes": idx, "foreignKeys": fks}, nil
		}),
	}
}

// quoteIdent writes a name as it must be given in the table argument:
// as it is when it is lower case letters, digits and _, else in double
// quotes ("my.table", "Users"), so that a name listed can be copied back.
func quoteIdent(name string) string {
	plain := name != "" && !(name[0] >= '0' && name[0] <= '9')
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	return pgx.Identifier{name}.Sanitize()
}

// listOrNone joins names for messages.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func pgDisconnect() tool.Tool {
	type args struct {
		Alias string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_pg_disconnect", pgGroup, "Close a PostgreSQL connection pool. Returns {alias, closed}.", false,
			schema.Object(aliasArg("PostgreSQL"))).
			WithPhrases("close postgres", "close pg pool", "end postgres session", "release db connections", "disconnect psql"),
		Run: tool.Typed(func(_ context.Context, in args, call *tool.Call) (any, error) {
			return disconnect(call, tool.KindPostgres, in.Alias, "db_pg_connect")
		}),
	}
}
